package envoy_test

import (
	"testing"

	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestPerRouteConfig: what a field builds per route (policy.Fragment.
// PerRoute) names each route and the listener serving it, although the
// field renders once. One global rate limit on a route served through
// two listeners: each route's RateLimitPerRoute has its listener's domain
// and a generic key naming the route as Envoy Gateway does, and each
// listener's chain gets the ratelimit filter of its own domain.
func TestPerRouteConfig(t *testing.T) {
	input := egTwoListeners + `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: rl, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]
  rateLimit: {global: {rules: [{clientSelectors: [{headers: [{name: x-user, type: Distinct}]}], limit: {requests: 1, unit: Second}}]}}
`
	withService := func(c *policy.Config) {
		c.Values = map[string]any{"envoyGateway.rateLimit.enabled": true} // Envoy Gateway's rate limit service
	}
	gw := renderInline(t, input, "envoygateway", withService)
	want := map[string]string{ // RouteConfiguration → listener
		"listener~80":   "a",
		"listener~8080": "b",
	}
	seen := 0
	for _, rc := range gw.RouteConfigurations {
		listener, ok := want[rc.Name]
		if !ok {
			t.Fatalf("unexpected route configuration %s", rc.Name)
		}
		for _, vh := range rc.VirtualHosts {
			for _, r := range vh.Routes {
				seen++
				a := r.GetTypedPerFilterConfig()["envoy.filters.http.ratelimit"]
				if a == nil {
					t.Fatalf("%s: no RateLimitPerRoute", r.Name)
				}
				per := &ratelimitv3.RateLimitPerRoute{}
				if err := a.UnmarshalTo(per); err != nil {
					t.Fatal(err)
				}
				if got := per.GetDomain(); got != "infra/gw/"+listener {
					t.Errorf("%s: domain %q, want infra/gw/%s", r.Name, got, listener)
				}
				key := per.GetRateLimits()[0].GetActions()[0].GetGenericKey().GetDescriptorKey()
				// match 0: the rule's one match is the CRD's default
				// (PathPrefix /), which the API server writes.
				if key != "httproute/infra/shop/rule/0/match/0/*" {
					t.Errorf("%s: route descriptor %q, want httproute/infra/shop/rule/0/match/0/*", r.Name, key)
				}
			}
		}
	}
	if seen != 2 {
		t.Fatalf("%d routes, want 2", seen)
	}
	for _, l := range gw.Listeners {
		hcm := &hcmv3.HttpConnectionManager{}
		if err := l.GetFilterChains()[0].GetFilters()[0].GetTypedConfig().UnmarshalTo(hcm); err != nil {
			t.Fatal(err)
		}
		var domains []string
		for _, f := range hcm.GetHttpFilters() {
			if f.GetName() != "envoy.filters.http.ratelimit" {
				continue
			}
			rl := &ratelimitv3.RateLimit{}
			if err := f.GetTypedConfig().UnmarshalTo(rl); err != nil {
				t.Fatal(err)
			}
			if f.GetDisabled() {
				t.Errorf("%s: the ratelimit filter is off; Envoy Gateway leaves it on", l.Name)
			}
			domains = append(domains, rl.GetDomain())
		}
		rc := hcm.GetRds().GetRouteConfigName()
		if len(domains) != 1 || domains[0] != "infra/gw/"+want[rc] {
			t.Errorf("%s: ratelimit filter domains %v, want [infra/gw/%s]", l.Name, domains, want[rc])
		}
	}
}
