package envoygateway

// HTTPRouteFilter is Envoy Gateway's route filter extension: a direct
// response, a URL rewrite or credential injection that a route rule names
// through an ExtensionRef filter. It has no targets and Envoy Gateway
// writes no status for it; gwpol reads it so that the rules naming it
// resolve, and renders its credentialInjection on their routes
// (render_httproutefilter.go).
func HTTPRouteFilter() *Kind { return httpRouteFilter }

var httpRouteFilter = &Kind{
	name:         "HTTPRouteFilter",
	plural:       "httpRouteFilters",
	fields:       []string{"directResponse", "urlRewrite", "credentialInjection", "matches"},
	extensionRef: true,
}
