package envoygateway

import "github.com/gwpol/gwpol/internal/policy"

// allTargets are the kinds a route-level policy kind may target.
var allTargets = []policy.TargetKind{policy.TargetGateway, policy.TargetListenerSet, policy.TargetHTTPRoute, policy.TargetGRPCRoute, "TCPRoute", "UDPRoute", "TLSRoute"}

// BackendTrafficPolicy is how Envoy talks to the backends of a Gateway or
// route: load balancing, retries, timeouts, rate limits, circuit breakers,
// health checks, fault injection, compression…
func BackendTrafficPolicy() *Kind { return backendTrafficPolicy }

var backendTrafficPolicy = &Kind{
	name:   "BackendTrafficPolicy",
	plural: "backendTrafficPolicies",
	fields: []string{"rateLimit", "loadBalancer", "proxyProtocol", "tcpKeepalive", "healthCheck", "circuitBreaker",
		"retry", "timeout", "connection", "dns", "http2", "faultInjection", "useClientProtocol", "compression",
		"compressor", "responseOverride", "httpUpgrade", "requestBuffer", "telemetry", "routingType", "admissionControl",
		"bandwidthLimit"},
	targets:   allTargets,
	mergeable: true,
	// "Unable to target Listener ns/gw/section"
	gatewayListenerByKey: true,
}
