package envoy_test

import (
	"strings"
	"testing"

	headermutationv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/header_mutation/v3"
	earlyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/early_header_mutation/header_mutation/v3"
)

// TestKgatewayEmptyHeaderFilters: a kgateway header filter with no add,
// set or remove entry, as kgateway's plugins write it. A ListenerPolicy's
// earlyRequestHeaderModifier {} is no value at all — convertHeaderMutations
// writes no early header mutation extension, and mergeEarlyHeaderMutation
// takes a policy's value only when it has one — so it neither configures
// the connection manager (before: an empty HeaderMutation Envoy refuses,
// which made gwpol answer the whole listener 503) nor overrides an older
// policy's modifier, nor is a merge origin. A TrafficPolicy's
// headerModifiers whose request and response are empty keeps its per-route
// config and the chain's filter, with no mutations (constructHeaderModifiers
// sets Mutations nil; before: an empty Mutations). Shapes no public case has.
func TestKgatewayEmptyHeaderFilters(t *testing.T) {
	lp := func(name, created, early string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: ListenerPolicy\nmetadata: {name: " + name + ", namespace: shop, creationTimestamp: \"" + created + "\"}\n" +
			"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  default:\n    httpSettings:\n      earlyRequestHeaderModifier: " + early + "\n"
	}
	tp := func(hm string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: tp, namespace: shop}\n" +
			"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]\n  headerModifiers: " + hm + "\n"
	}
	const route = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: cart, namespace: shop}\nspec:\n  parentRefs: [{name: gw}]\n  rules: [{backendRefs: [{name: cart, port: 80}]}]\n"
	for _, tc := range []struct {
		name, policies string
		early          []string // the early mutations' removed headers, nil: no extension
		perRoute       bool     // the route has header_mutation config
		mutations      bool     // … with mutations
	}{
		{name: "earlyRequestHeaderModifier {}: no extension", policies: lp("empty", "2024-01-01T00:00:00Z", "{}")},
		{name: "… with empty lists", policies: lp("empty", "2024-01-01T00:00:00Z", "{add: [], set: [], remove: []}")},
		{name: "an older empty one overrides nothing", policies: lp("empty", "2024-01-01T00:00:00Z", "{}") + lp("strip", "2024-06-01T00:00:00Z", "{remove: [x-user]}"),
			early: []string{"x-user"}},
		{name: "headerModifiers with an empty request", policies: tp("{request: {}}"), perRoute: true},
		{name: "… empty request and response lists", policies: tp("{request: {add: []}, response: {remove: []}}"), perRoute: true},
		{name: "… one response entry", policies: tp("{request: {}, response: {set: [{name: a, value: b}]}}"), perRoute: true, mutations: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw := renderInline(t, kgatewayShop+route+tc.policies, "kgateway")
			var early []*earlyv3.HeaderMutation
			routes := 0
			for _, l := range gw.Listeners {
				for _, fc := range l.FilterChains {
					hcm := hcmOf(t, fc)
					if hcm == nil {
						continue
					}
					for _, e := range hcm.GetEarlyHeaderMutationExtensions() {
						var m earlyv3.HeaderMutation
						if err := e.GetTypedConfig().UnmarshalTo(&m); err != nil {
							t.Fatal(err)
						}
						early = append(early, &m)
					}
				}
			}
			var removed []string
			for _, m := range early {
				for _, mu := range m.GetMutations() {
					removed = append(removed, mu.GetRemove())
				}
			}
			if (tc.early == nil) != (len(early) == 0) || strings.Join(removed, ",") != strings.Join(tc.early, ",") {
				t.Errorf("early header mutations %v, want removes %v", early, tc.early)
			}
			for _, rc := range gw.RouteConfigurations {
				for _, vh := range rc.VirtualHosts {
					for _, r := range vh.Routes {
						if r.GetRoute().GetCluster() == "" {
							t.Errorf("route %s does not forward: %v", r.GetName(), r.GetDirectResponse())
							continue
						}
						routes++
						a, ok := r.GetTypedPerFilterConfig()["envoy.extensions.filters.http.header_mutation"]
						if ok != tc.perRoute {
							t.Errorf("route %s header_mutation config %v, want %v", r.GetName(), ok, tc.perRoute)
							continue
						}
						if !ok {
							continue
						}
						var per headermutationv3.HeaderMutationPerRoute
						if err := a.UnmarshalTo(&per); err != nil {
							t.Fatal(err)
						}
						if (per.GetMutations() != nil) != tc.mutations {
							t.Errorf("route %s mutations %v, want present %v", r.GetName(), per.GetMutations(), tc.mutations)
						}
					}
				}
			}
			if routes == 0 {
				t.Error("no route forwards")
			}
		})
	}
}
