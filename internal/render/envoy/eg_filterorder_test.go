package envoy_test

import (
	"github.com/gwpol/gwpol/internal/render/envoy"

	"slices"
	"strings"
	"testing"
)

// TestEnvoyGatewayFilterOrder: the connection manager chain of Envoy
// Gateway's target keeps its translator's order (xds translator
// httpfilters.go: newOrderedHTTPFilter): the stateful session filter a
// rule's sessionPersistence turns on right after authentication, then
// the buffer filter, both before the extensions, authorization and rate
// limits; the compressor after the gRPC filters and the credential
// injector, last before the router (F49). Upstream Envoy's target keeps
// the session filter last before the router.
func TestEnvoyGatewayFilterOrder(t *testing.T) {
	btp := func(field string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: btp, namespace: infra}\n" +
			"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n" + field
	}
	const (
		session = "envoy.filters.http.stateful_session"
		local   = "envoy.filters.http.local_ratelimit"
		buffer  = "envoy.filters.http.buffer"
		gzip    = "envoy.filters.http.compressor.gzip"
		grpcWeb = "envoy.filters.http.grpc_web"
		stats   = "envoy.filters.http.grpc_stats"
		router  = "envoy.filters.http.router"
	)
	sessionRule := "  rules:\n  - backendRefs: [{name: web, port: 80}]\n    sessionPersistence: {sessionName: s}\n"
	shopWith := func(kind, rules string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: shop, namespace: infra}\nspec:\n  parentRefs: [{name: gw}]\n" + rules
	}
	const localRL = "  rateLimit: {type: Local, local: {rules: [{limit: {requests: 10, unit: Minute}}]}}\n"
	const buffered = "  requestBuffer: {limit: 1Mi}\n"
	const gzipped = "  compression: [{type: Gzip}]\n"
	// Response headers a ClientTrafficPolicy sets (its header_mutation
	// filter), beside a SecurityPolicy's CORS, CSRF and external
	// authorization, all on the Gateway.
	lateHeaders := "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: ctp, namespace: infra}\n" +
		"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  headers: {lateResponseHeaders: {set: [{name: x-r, value: v}]}}\n"
	authz := "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: sp, namespace: infra}\n" +
		"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  cors: {allowOrigins: [\"https://a.example\"]}\n  csrf: {}\n" +
		"  extAuth: {http: {backendRefs: [{name: authz, port: 80}]}}\n" + egService("infra", "authz", "{port: 80}")
	const (
		cors     = "envoy.filters.http.cors"
		csrf     = "envoy.filters.http.csrf"
		mutation = "envoy.filters.http.header_mutation"
		extAuth  = "envoy.filters.http.ext_authz/securitypolicy/infra/sp"
	)
	for _, tc := range []struct {
		name, target, input string
		want                []string // in this order, among the chain's filters
	}{
		{"session before a local rate limit", "envoygateway", shopWith("HTTPRoute", sessionRule) + btp(localRL), []string{session, local, router}},
		{"session, then buffer, then the rate limit", "envoygateway", shopWith("HTTPRoute", sessionRule) + btp(localRL+buffered), []string{session, buffer, local, router}},
		{"buffer before the rate limit and the compressor", "envoygateway", egShop("HTTPRoute") + btp(localRL+buffered+gzipped), []string{buffer, local, gzip, router}},
		{"compressor after the gRPC filters", "envoygateway", egShop("GRPCRoute") + btp(gzipped), []string{grpcWeb, stats, gzip, router}},
		{"header mutation after CSRF, before external authorization", "envoygateway", egShop("HTTPRoute") + lateHeaders + authz, []string{cors, csrf, mutation, extAuth, router}},
		{"upstream Envoy: session last before the router", "envoy", shopWith("HTTPRoute", sessionRule) + btp(localRL), []string{local, session, router}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			input := egGateway("infra", egHTTP80) + egService("infra", "web", "{port: 80}") + tc.input
			gw := renderInline(t, input, tc.target)
			var got []string
			for _, name := range listenerFilterNames(t, gw) {
				if slices.Contains(tc.want, name) {
					got = append(got, name)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("chain order %s, want %s", strings.Join(got, ", "), strings.Join(tc.want, ", "))
			}
		})
	}
}

// listenerFilterNames are the HTTP filter names of the Gateway's one
// connection manager chain, in order.
func listenerFilterNames(t *testing.T, gw *envoy.Gateway) []string {
	t.Helper()
	var names []string
	for _, l := range gw.Listeners {
		for _, fc := range append(slices.Clone(l.FilterChains), l.DefaultFilterChain) {
			if fc == nil {
				continue
			}
			for _, f := range hcmOf(t, fc).GetHttpFilters() {
				names = append(names, f.Name)
			}
		}
	}
	return names
}
