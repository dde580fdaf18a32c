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
	// writes are the Envoy paths each field sets (policy.FieldSpec.Writes).
	writes: map[string][]string{
		"rateLimit":         {"http_filter.envoy.filters.http.local_ratelimit", "typed_per_filter_config.envoy.filters.http.local_ratelimit", "http_filter.envoy.filters.http.ratelimit*", "typed_per_filter_config.envoy.filters.http.ratelimit*", "clusters.*", "route.rate_limits[]"},
		"loadBalancer":      {"cluster.load_balancing_policy", "cluster.common_lb_config", "route.hash_policy", "response_headers_to_remove[]"},
		"proxyProtocol":     {"cluster.transport_socket"},
		"tcpKeepalive":      {"cluster.upstream_connection_options"},
		"healthCheck":       {"cluster.health_checks", "cluster.outlier_detection", "cluster.common_lb_config", "typed_per_filter_config.envoy.filters.http.health_check"},
		"circuitBreaker":    {"cluster.circuit_breakers", "cluster.typed_extension_protocol_options"},
		"retry":             {"route.retry_policy"},
		"timeout":           {"route.timeout", "route.idle_timeout", "route.max_stream_duration", "cluster.connect_timeout", "cluster.typed_extension_protocol_options"},
		"connection":        {"cluster.per_connection_buffer_limit_bytes"},
		"dns":               {"cluster.cluster_type", "cluster.dns_lookup_family", "cluster.dns_refresh_rate", "cluster.respect_dns_ttl"},
		"http2":             {"cluster.typed_extension_protocol_options"},
		"faultInjection":    {"http_filter.envoy.filters.http.fault", "typed_per_filter_config.envoy.filters.http.fault"},
		"useClientProtocol": {"cluster.typed_extension_protocol_options"},
		"compression":       {"http_filter.envoy.filters.http.compressor*", "typed_per_filter_config.envoy.filters.http.compressor*", "request_headers_to_remove[]"},
		"compressor":        {"http_filter.envoy.filters.http.compressor*", "typed_per_filter_config.envoy.filters.http.compressor*", "request_headers_to_remove[]"},
		"responseOverride":  {"http_filter.envoy.filters.http.custom_response/*", "typed_per_filter_config.envoy.filters.http.custom_response/*"},
		"httpUpgrade":       {"route.upgrade_configs"},
		"requestBuffer":     {"http_filter.envoy.filters.http.buffer", "typed_per_filter_config.envoy.filters.http.buffer"},
		"telemetry":         {"tracing", "stat_prefix"},
		"routingType":       {"-"},
		"admissionControl":  {"cluster.typed_extension_protocol_options"},
		"bandwidthLimit":    {"-"},
	},
	targets:   allTargets,
	mergeable: true,
	// "Unable to target Listener ns/gw/section"
	gatewayListenerByKey: true,
}
