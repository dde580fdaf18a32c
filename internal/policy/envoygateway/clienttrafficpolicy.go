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
	// writes are the Envoy paths each field sets (policy.FieldSpec.Writes).
	writes: map[string][]string{
		"tcpKeepalive":        {"listener.socket_options"},
		"enableProxyProtocol": {"listener.listener_filters[]"},
		"proxyProtocol":       {"listener.listener_filters[]"},
		"clientIPDetection":   {"hcm.original_ip_detection_extensions", "hcm.use_remote_address", "hcm.xff_num_trusted_hops"},
		"tls":                 {"tls.common_tls_context", "tls.require_client_certificate", "tls.disable_stateful_session_resumption", "tls.disable_stateless_session_resumption", "tls.session_ticket_keys_sds_secret_config", "tls.session_timeout"},
		"path":                {"hcm.merge_slashes", "hcm.path_with_escaped_slashes_action", "hcm.normalize_path"},
		"headers":             {"hcm.common_http_protocol_options.headers_with_underscores_action", "hcm.forward_client_cert_details", "hcm.preserve_external_request_id", "hcm.set_current_client_cert_details", "hcm.strip_trailing_host_dot", "hcm.strip_any_host_port", "hcm.generate_request_id", "hcm.request_id_extension", "hcm.early_header_mutation_extensions", "hcm.server_header_transformation", "hcm.server_name", "http_filter.envoy.filters.http.header_mutation"},
		"timeout":             {"hcm.common_http_protocol_options.idle_timeout", "hcm.common_http_protocol_options.max_connection_duration", "hcm.request_headers_timeout", "hcm.request_timeout", "hcm.stream_idle_timeout", "tcp_proxy.idle_timeout"},
		"connection":          {"hcm.common_http_protocol_options.max_connection_duration", "hcm.http1_safe_max_connection_duration", "listener.max_connections_to_accept_per_socket_event", "listener.per_connection_buffer_limit_bytes", "network_filter.envoy.filters.network.connection_limit"},
		"http1":               {"hcm.http1_safe_max_connection_duration", "hcm.http_protocol_options", "cluster.typed_extension_protocol_options"},
		"http2":               {"hcm.http2_protocol_options"},
		"http3":               {"listener.udp_listener_config"},
		"healthCheck":         {"http_filter.envoy.filters.http.health_check"},
		"scheme":              {"hcm.scheme_header_transformation"},
		"grpc":                {"http_filter.envoy.filters.http.grpc_web", "http_filter.envoy.filters.http.grpc_stats"},
	},
	targets:   []policy.TargetKind{policy.TargetGateway, policy.TargetListenerSet},
	bySection: true,
}
