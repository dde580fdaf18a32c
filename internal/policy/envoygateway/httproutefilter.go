package envoygateway

// HTTPRouteFilter is Envoy Gateway's route filter extension: a direct
// response, a URL rewrite or credential injection that a route rule names
// through an ExtensionRef filter. It has no targets and Envoy Gateway
// writes no status for it; gwpol reads it so that the rules naming it
// resolve, and renders its credentialInjection on their routes
// (render_httproutefilter.go).
func HTTPRouteFilter() *Kind { return httpRouteFilter }

var httpRouteFilter = &Kind{
	name:   "HTTPRouteFilter",
	plural: "httpRouteFilters",
	fields: []string{"directResponse", "urlRewrite", "credentialInjection", "matches"},
	// writes are the Envoy paths each field sets (policy.FieldSpec.Writes).
	writes: map[string][]string{
		"directResponse":      {"direct_response", "response_headers_to_add[]"},
		"urlRewrite":          {"route.append_x_forwarded_host", "route.host_rewrite_header", "route.host_rewrite_literal", "route.host_rewrite_path_regex", "route.auto_host_rewrite", "route.regex_rewrite", "route.prefix_rewrite", "route.path_rewrite_policy"},
		"credentialInjection": {"backend_cluster.typed_extension_protocol_options", "http_filter.envoy.filters.http.credential_injector/*", "typed_per_filter_config.envoy.filters.http.credential_injector/*"},
		"matches":             {"match"},
	},
	extensionRef: true,
}
