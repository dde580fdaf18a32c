package envoy_test

import (
	"slices"
	"testing"

	jwtauthnv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
)

// egJWTBase: an Envoy Gateway Gateway whose one listener serves two
// routes, each with a SecurityPolicy of its own naming its JWT provider.
var egJWTBase = egGateway("infra", egHTTP80) + egService("infra", "web", "{port: 80}")

func egJWTRoute(name, provider string) string {
	return `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ` + name + `, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{matches: [{path: {type: PathPrefix, value: /` + name + `}}], backendRefs: [{name: web, port: 80}]}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: ` + name + `-jwt, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ` + name + `}]
  jwt: {providers: [{name: ` + provider + `, issuer: ` + provider + `, localJWKS: {type: Inline, inline: '{"keys":[]}'}}]}
`
}

// TestMergedFilterConfig: a filter whose chain configuration holds what
// each route refers to (policy.HTTPFilter.Merge — Envoy Gateway's
// jwt_authn) gets every route's providers and requirements in the one
// chain, and each route's requirement is among them; two routes with the
// same provider share its entry.
func TestMergedFilterConfig(t *testing.T) {
	for _, tc := range []struct {
		name               string
		routes             string
		providers, reqs    int
		wantSharedProvider bool
	}{
		{"two providers", egJWTRoute("a", "alpha") + egJWTRoute("b", "beta"), 2, 2, false},
		{"one provider twice", egJWTRoute("a", "alpha") + egJWTRoute("b", "alpha"), 1, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw := renderInline(t, egJWTBase+tc.routes, "envoygateway")
			cfg := &jwtauthnv3.JwtAuthentication{}
			for _, f := range hcmOf(t, gw.Listeners[0].FilterChains[0]).GetHttpFilters() {
				if f.Name == "envoy.filters.http.jwt_authn" {
					if err := f.GetTypedConfig().UnmarshalTo(cfg); err != nil {
						t.Fatal(err)
					}
				}
			}
			if len(cfg.Providers) != tc.providers || len(cfg.RequirementMap) != tc.reqs {
				t.Fatalf("chain has %d providers and %d requirements, want %d and %d", len(cfg.Providers), len(cfg.RequirementMap), tc.providers, tc.reqs)
			}
			var named []string
			for _, vh := range gw.RouteConfigurations[0].VirtualHosts {
				for _, r := range vh.Routes {
					per := &jwtauthnv3.PerRouteConfig{}
					if err := r.TypedPerFilterConfig["envoy.filters.http.jwt_authn"].UnmarshalTo(per); err != nil {
						t.Fatalf("route %s: %v", r.Name, err)
					}
					if _, ok := cfg.RequirementMap[per.GetRequirementName()]; !ok {
						t.Errorf("route %s names requirement %q, which the chain lacks", r.Name, per.GetRequirementName())
					}
					named = append(named, per.GetRequirementName())
				}
			}
			if shared := len(slices.Compact(slices.Sorted(slices.Values(named)))) == 1; shared != tc.wantSharedProvider {
				t.Errorf("routes' requirements %v: shared %v, want %v", named, shared, tc.wantSharedProvider)
			}
		})
	}
}
