package status_test

import (
	"slices"
	"strings"
	"testing"
)

// TestEnvoyGatewayRouteOverlap: Envoy Gateway's checkRouteOverlaps — two
// HTTPRoutes or GRPCRoutes with an Envoy route of the same hostname and
// matches on one listener both get RouteRulesOverlap True on the parent
// through which they meet, naming each other; anything that tells their
// requests apart keeps them clear (docs/controllers/envoygateway-checks.md
// rows V1–V12).
func TestEnvoyGatewayRouteOverlap(t *testing.T) {
	route := func(kind, name, parent, spec string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: app}\nspec:\n" +
			"  parentRefs: [" + parent + "]\n" + spec
	}
	const http = "{name: gw, namespace: infra, sectionName: http}"
	const other = "{name: gw, namespace: infra, sectionName: other}"
	base := egPlatform("infra", "  listeners:\n"+
		"  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}\n"+
		"  - {name: other, protocol: HTTP, port: 8080, allowedRoutes: {namespaces: {from: All}}}\n")
	const cookieFilter = "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: HTTPRouteFilter\nmetadata: {name: session, namespace: app}\nspec:\n  matches: [{cookies: [{name: session, value: abc}]}]\n"
	const overlapA = "Overlapping match conditions with route(s): HTTPRoute app/b"
	tests := []struct {
		name, docs string
		// want: route name → its RouteRulesOverlap message on the
		// Gateway ("" for none).
		want map[string]string
	}{
		{"two routes without matches or hostnames overlap",
			route("HTTPRoute", "a", http, "  rules: [{}]\n") + route("HTTPRoute", "b", http, "  rules: [{}]\n"),
			map[string]string{"a": overlapA, "b": "Overlapping match conditions with route(s): HTTPRoute app/a"}},
		{"a prefix's trailing slash and a missing path are the xDS translator's own forms",
			route("HTTPRoute", "a", http, "  rules: [{matches: [{path: {type: PathPrefix, value: /api/}}]}]\n") +
				route("HTTPRoute", "b", http, "  rules: [{matches: [{path: {type: PathPrefix, value: /api}}]}]\n"),
			map[string]string{"a": overlapA}},
		{"header names are case-insensitive, their order does not count",
			route("HTTPRoute", "a", http, "  rules: [{matches: [{headers: [{name: X-A, value: '1'}, {name: x-b, value: '2'}]}]}]\n") +
				route("HTTPRoute", "b", http, "  rules: [{matches: [{headers: [{name: x-b, value: '2'}, {name: x-a, value: '1'}]}]}]\n"),
			map[string]string{"a": overlapA}},
		{"different paths do not overlap",
			route("HTTPRoute", "a", http, "  rules: [{matches: [{path: {type: PathPrefix, value: /a}}]}]\n") +
				route("HTTPRoute", "b", http, "  rules: [{matches: [{path: {type: PathPrefix, value: /b}}]}]\n"),
			map[string]string{"a": "", "b": ""}},
		{"an exact path is not a prefix",
			route("HTTPRoute", "a", http, "  rules: [{matches: [{path: {type: Exact, value: /a}}]}]\n") +
				route("HTTPRoute", "b", http, "  rules: [{matches: [{path: {type: PathPrefix, value: /a}}]}]\n"),
			map[string]string{"a": ""}},
		{"a method match tells them apart",
			route("HTTPRoute", "a", http, "  rules: [{matches: [{method: GET}]}]\n") + route("HTTPRoute", "b", http, "  rules: [{}]\n"),
			map[string]string{"a": ""}},
		{"different hostnames do not overlap, a shared one does",
			route("HTTPRoute", "a", http, "  hostnames: [a.example.com, c.example.com]\n  rules: [{}]\n") +
				route("HTTPRoute", "b", http, "  hostnames: [b.example.com]\n  rules: [{}]\n") +
				route("HTTPRoute", "c", http, "  hostnames: [c.example.com]\n  rules: [{}]\n"),
			map[string]string{"a": "Overlapping match conditions with route(s): HTTPRoute app/c", "b": ""}},
		{"routes on different listeners do not overlap",
			route("HTTPRoute", "a", http, "  rules: [{}]\n") + route("HTTPRoute", "b", other, "  rules: [{}]\n"),
			map[string]string{"a": "", "b": ""}},
		{"two rules of one route do not count",
			route("HTTPRoute", "a", http, "  rules: [{}, {}]\n"),
			map[string]string{"a": ""}},
		{"a rule whose regular expression does not compile has no Envoy route",
			route("HTTPRoute", "a", http, "  rules: [{matches: [{path: {type: RegularExpression, value: '*x'}}]}]\n") +
				route("HTTPRoute", "b", http, "  rules: [{matches: [{path: {type: RegularExpression, value: '*x'}}]}]\n"),
			map[string]string{"a": "", "b": ""}},
		{"an HTTPRouteFilter's cookie match tells them apart",
			cookieFilter + route("HTTPRoute", "a", http, "  rules: [{filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: session}}]}]\n") +
				route("HTTPRoute", "b", http, "  rules: [{}]\n"),
			map[string]string{"a": ""}},
		{"a GRPCRoute and an HTTPRoute of the same path overlap",
			route("GRPCRoute", "a", http, "  rules: [{matches: [{method: {service: pkg.Svc, method: Get}}]}]\n") +
				route("HTTPRoute", "b", http, "  rules: [{matches: [{path: {type: Exact, value: /pkg.Svc/Get}}]}]\n"),
			map[string]string{"b": "Overlapping match conditions with route(s): GRPCRoute app/a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := compile(t, base+tc.docs)
			for name, want := range tc.want {
				got := ""
				for _, r := range rep.Routes {
					if r.Name != name {
						continue
					}
					for _, p := range r.Parents {
						for _, c := range p.Conditions {
							if c.Type == "RouteRulesOverlap" {
								if c.Status != "True" || c.Reason != "RouteRulesOverlap" {
									t.Errorf("%s: RouteRulesOverlap %s/%s", name, c.Status, c.Reason)
								}
								got = c.Message
							}
						}
					}
				}
				if got != want {
					t.Errorf("%s: overlap %q, want %q", name, got, want)
				}
			}
		})
	}
	// Every route still has its other conditions.
	rep := compile(t, base+route("HTTPRoute", "a", http, "  rules: [{}]\n")+route("HTTPRoute", "b", http, "  rules: [{}]\n"))
	for _, r := range rep.Routes {
		var types []string
		for _, c := range r.Parents[0].Conditions {
			types = append(types, c.Type)
		}
		if !slices.Equal(types, []string{"Accepted", "ResolvedRefs", "RouteRulesOverlap"}) {
			t.Errorf("%s: conditions %s", r.Name, strings.Join(types, " "))
		}
	}
}
