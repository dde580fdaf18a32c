package envoygateway

// SecurityPolicy is the access control of a Gateway or route: CORS, basic
// auth, API keys, JWT, OIDC, external authorization and authorization
// rules.
func SecurityPolicy() *Kind { return securityPolicy }

var securityPolicy = &Kind{
	name:   "SecurityPolicy",
	plural: "securityPolicies",
	fields: []string{"cors", "basicAuth", "apiKeyAuth", "jwt", "oidc", "extAuth", "authorization", "csrf"},
	// writes are the Envoy paths each field sets (policy.FieldSpec.Writes).
	writes: map[string][]string{
		"cors":          {"http_filter.envoy.filters.http.cors", "typed_per_filter_config.envoy.filters.http.cors"},
		"basicAuth":     {"http_filter.envoy.filters.http.basic_auth/*", "typed_per_filter_config.envoy.filters.http.basic_auth/*"},
		"apiKeyAuth":    {"http_filter.envoy.filters.http.api_key_auth", "typed_per_filter_config.envoy.filters.http.api_key_auth"},
		"jwt":           {"http_filter.envoy.filters.http.jwt_authn", "typed_per_filter_config.envoy.filters.http.jwt_authn", "clusters.*"},
		"oidc":          {"-"},
		"extAuth":       {"http_filter.envoy.filters.http.ext_authz/*", "typed_per_filter_config.envoy.filters.http.ext_authz/*", "clusters.*"},
		"authorization": {"http_filter.envoy.filters.http.rbac", "typed_per_filter_config.envoy.filters.http.rbac", "http_filter.envoy.filters.http.geoip", "request_headers_to_remove[]"},
		"csrf":          {"http_filter.envoy.filters.http.csrf", "typed_per_filter_config.envoy.filters.http.csrf"},
	},
	targets:   allTargets,
	mergeable: true,
}
