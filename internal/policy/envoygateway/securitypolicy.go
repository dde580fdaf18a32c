package envoygateway

// SecurityPolicy is the access control of a Gateway or route: CORS, basic
// auth, API keys, JWT, OIDC, external authorization and authorization
// rules.
func SecurityPolicy() *Kind { return securityPolicy }

var securityPolicy = &Kind{
	name:      "SecurityPolicy",
	plural:    "securityPolicies",
	fields:    []string{"cors", "basicAuth", "apiKeyAuth", "jwt", "oidc", "extAuth", "authorization", "csrf"},
	targets:   allTargets,
	mergeable: true,
}
