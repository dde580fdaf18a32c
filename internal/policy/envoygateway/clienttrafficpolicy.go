package envoygateway

import "github.com/gwpol/gwpol/internal/policy"

// ClientTrafficPolicy is how a Gateway's listeners talk to clients: TLS,
// keepalive, proxy protocol, client IP detection, timeouts, HTTP/1, 2 and
// 3 settings. It targets Gateways (or their listeners) and ListenerSets
// only, and has no mergeType.
func ClientTrafficPolicy() *Kind { return clientTrafficPolicy }

var clientTrafficPolicy = &Kind{
	name:   "ClientTrafficPolicy",
	plural: "clientTrafficPolicies",
	fields: []string{"tcpKeepalive", "enableProxyProtocol", "proxyProtocol", "clientIPDetection", "tls", "path",
		"headers", "timeout", "connection", "http1", "http2", "http3", "healthCheck", "scheme", "grpc"},
	targets:   []policy.TargetKind{policy.TargetGateway, policy.TargetListenerSet},
	bySection: true,
}
