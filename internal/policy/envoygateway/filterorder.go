package envoygateway

import "github.com/gwpol/gwpol/internal/policy"

// The filter order of Envoy Gateway's HTTP connection manager chain, in
// one table: every filter this package adds takes its place from here
// (policy.HTTPFilter.Order; render sorts by order, then by name, and an
// extension kind's filters by their index in the policy, see
// extensionFilter). The places are Envoy Gateway's translator's (its
// http filter order).

// orderCustomResponse puts the custom response filter (a
// BackendTrafficPolicy's responseOverride) first, so that it sees every
// response, including those the other filters answer themselves.
const orderCustomResponse = 1

const (
	// Fault injection and CORS first, then header mutation,
	// authentication, session
	// persistence, request buffering, the extensions (Lua, external
	// processors, Wasm, dynamic modules), authorization and rate limits
	// (xds translator httpfilters.go: newOrderedHTTPFilter).
	orderFault = 10 + iota
	orderCORS
	// orderHeaderMutation places the header_mutation filter a
	// ClientTrafficPolicy's lateResponseHeaders add after CSRF (at
	// orderCORS) and before external authorization, which may read the
	// headers.
	orderHeaderMutation
	orderExtAuth
	orderAPIKeyAuth
	orderBasicAuth
	orderOAuth2
	orderJWT
	// orderStatefulSession places the session persistence filter a
	// route rule's sessionPersistence turns on (render adds it,
	// policy.Target.SessionFilterOrder) right after JWT authentication.
	orderStatefulSession
	orderBuffer
	orderLua
	orderExtProc
	orderWasm
	orderDynamicModule
	orderRBAC
	orderLocalRateLimit
	orderRateLimit

	// orderCSRF puts the CSRF filter after CORS (same order, and
	// envoy.filters.http.cors sorts before envoy.filters.http.csrf), so
	// that preflights are answered first, and before authentication.
	orderCSRF = orderCORS
	// orderGeoIP puts the geolocation filter just before RBAC (same
	// order, and envoy.filters.http.geoip sorts before
	// envoy.filters.http.rbac), which matches the headers it writes.
	orderGeoIP = orderRBAC

	// orderGRPCWeb places the gRPC-Web filter a ClientTrafficPolicy turns
	// on where Envoy Gateway's data plane puts its own for a GRPCRoute
	// (policy.OrderGRPC): after every policy filter, before the router,
	// the gRPC statistics filter after it.
	orderGRPCWeb = policy.OrderGRPC
	// orderCredentialInjector puts an HTTPRouteFilter's credential
	// injector after the gRPC-Web and gRPC statistics filters, just
	// before the router.
	orderCredentialInjector = orderGRPCWeb + 2
	// orderCompressor puts the compressor after the credential injector,
	// so after the gRPC filters too, last before the router.
	orderCompressor = orderCredentialInjector + 1
)
