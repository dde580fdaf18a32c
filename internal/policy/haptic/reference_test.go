package haptic_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy/haptic"
	"github.com/gwpol/gwpol/internal/status"
)

// referenceBase is what every TestReferenceBeforePolicy route runs
// against: a HAPTIC Gateway, a Service, a policy that is valid (ok), one
// whose credential Secret is mutable (mut), and a kgateway TrafficPolicy
// (tp), a policy kind of another family.
const referenceBase = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: haptic}
spec: {controllerName: haproxy-haptic.org/controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: public, namespace: infra}
spec:
  gatewayClassName: haptic
  listeners: [{name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: v1
kind: Service
metadata: {name: orders, namespace: shop}
spec: {ports: [{name: http, port: 8080}]}
---
apiVersion: v1
kind: Secret
metadata: {name: keys, namespace: shop}
stringData: {keys: "k1:alice"}
---
apiVersion: haproxy-haptic.org/v1alpha1
kind: HAProxyRoutePolicy
metadata: {name: ok, namespace: shop}
spec: {rateLimit: {requests: 10}}
---
apiVersion: haproxy-haptic.org/v1alpha1
kind: HAProxyRoutePolicy
metadata: {name: mut, namespace: shop}
spec: {authentication: {apiKey: {secretRef: {name: keys}}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: tp, namespace: shop}
spec: {timeouts: {request: 10s}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: public, namespace: infra}]
  rules:
`

// ref is an ExtensionRef filter; rule is a rule with those filters (and
// backendRef filters, when given) forwarding to orders.
func ref(group, kind, name string) string {
	return "{type: ExtensionRef, extensionRef: {group: \"" + group + "\", kind: " + kind + ", name: " + name + "}}"
}

func rule(filters []string, backendFilters ...string) string {
	s := "    - backendRefs: [{name: orders, port: 8080"
	if len(backendFilters) > 0 {
		s += ", filters: [" + strings.Join(backendFilters, ", ") + "]"
	}
	s += "}]\n"
	if len(filters) > 0 {
		s += "      filters: [" + strings.Join(filters, ", ") + "]\n"
	}
	return s
}

// TestReferenceBeforePolicy: HAPTIC settles a rule's error from its
// references before the policy they name (44-route-policies.yaml:
// GatewayPolicyReference, then GatewayPolicyRecord only when the
// reference is right), so a wrong reference — another kind, a policy
// filter on a backendRef, two policies, the route's SSL passthrough —
// is the reason the route reports, and a missing policy or a credential
// the policy may not use behind it sets no ResolvedRefs reason. The
// route's conditions are those of its first failing rule.
func TestReferenceBeforePolicy(t *testing.T) {
	const grp, kind = "haproxy-haptic.org", "HAProxyRoutePolicy"
	pol := func(name string) string { return ref(grp, kind, name) }
	unknown := ref("example.com", "Foo", "x")
	pass := ref("tls.example.com", "SSLPassthrough", "tls")
	plain := rule(nil)
	cases := []struct {
		name  string
		rules []string
		// want: Accepted, ResolvedRefs and PartiallyInvalid as
		// status/reason ("" for PartiallyInvalid: not written).
		want [3]string
	}{
		{"another kind before a policy with a mutable Secret", []string{rule([]string{unknown, pol("mut")}), plain},
			[3]string{"True/", "True/", "True/UnsupportedValue"}},
		{"another kind after a policy with a mutable Secret", []string{rule([]string{pol("mut"), unknown}), plain},
			[3]string{"True/", "True/", "True/UnsupportedValue"}},
		{"another kind beside a missing policy", []string{rule([]string{pol("absent"), unknown}), plain},
			[3]string{"True/", "True/", "True/UnsupportedValue"}},
		{"a missing policy and a policy filter on the backendRef", []string{rule([]string{pol("absent")}, pol("ok"))},
			[3]string{"False/UnsupportedValue", "True/", ""}},
		{"a policy with a mutable Secret, also on the backendRef", []string{rule([]string{pol("mut")}, pol("mut")), plain},
			[3]string{"True/", "True/", "True/UnsupportedValue"}},
		{"two policies, one missing", []string{rule([]string{pol("ok"), pol("absent")}), plain},
			[3]string{"True/", "True/", "True/IncompatibleFilters"}},
		{"two policies and a backendRef filter", []string{rule([]string{pol("ok"), pol("mut")}, pol("ok")), plain},
			[3]string{"True/", "True/", "True/IncompatibleFilters"}},
		{"a missing policy on a passthrough route", []string{rule([]string{pol("absent")}), rule([]string{pass})},
			[3]string{"False/IncompatibleFilters", "True/", ""}},
		{"a mutable Secret on a passthrough route", []string{rule([]string{pol("mut")}), rule([]string{pass})},
			[3]string{"False/IncompatibleFilters", "True/", ""}},
		{"another kind first on a passthrough route", []string{rule([]string{unknown}), rule([]string{pol("ok")}), rule([]string{pass})},
			[3]string{"False/IncompatibleFilters", "True/", ""}},
		{"a policy kind of another group named as a passthrough", []string{rule([]string{pol("ok")}), rule([]string{ref("", kind, "ssl-passthrough")}), plain},
			[3]string{"False/IncompatibleFilters", "True/", ""}},
		{"a policy kind of another group", []string{rule([]string{ref("haproxy.org", kind, "absent")}), plain},
			[3]string{"True/", "True/", "True/UnsupportedValue"}},
		{"a missing policy, then two policies: the first rule's reasons", []string{rule([]string{pol("absent")}), rule([]string{pol("ok"), pol("ok")})},
			[3]string{"False/UnsupportedValue", "False/PolicyNotFound", ""}},
		{"a mutable Secret alone", []string{rule([]string{pol("mut")}), plain},
			[3]string{"True/", "False/RefNotPermitted", "True/UnsupportedValue"}},
	}
	cases = append(cases, routeFalseCases(pol)...)
	cases = append(cases, foreignKindCases(pol)...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "input.yaml")
			input := referenceBase + strings.Join(tc.rules, "")
			if strings.HasPrefix(tc.name, "NoMatchingParent: ") {
				input = strings.Replace(input, "parentRefs: [{name: public, namespace: infra}]", "parentRefs: [{name: public, namespace: infra, sectionName: https}]", 1)
			}
			if err := os.WriteFile(file, []byte(input), 0o600); err != nil {
				t.Fatal(err)
			}
			rep := status.Compute(compile(t, file).Result, status.Options{})
			if len(rep.Routes) != 1 || len(rep.Routes[0].Parents) != 1 {
				t.Fatalf("want one route with one parent, got %+v", rep.Routes)
			}
			var got [3]string
			for _, c := range rep.Routes[0].Parents[0].Conditions {
				v := string(c.Status) + "/"
				if c.Status != "True" || c.Type == "PartiallyInvalid" {
					v += c.Reason
				}
				switch c.Type {
				case "Accepted":
					got[0] = v
				case "ResolvedRefs":
					got[1] = v
				case "PartiallyInvalid":
					got[2] = v
				}
			}
			if got != tc.want {
				t.Errorf("Accepted, ResolvedRefs, PartiallyInvalid = %q, want %q", got, tc.want)
			}
		})
	}
}

// routeFalseCases are TestReferenceBeforePolicy's routes that are False
// on their own: HAPTIC's ApplyGatewayPolicyConditions
// (46-policy-status.yaml) replaces Accepted and ResolvedRefs only where
// they are True, so a backendRef not found keeps ResolvedRefs'
// BackendNotFound and a parentRef no listener matches keeps Accepted's
// NoMatchingParent; PartiallyInvalid is written all the same.
func routeFalseCases(pol func(string) string) []struct {
	name  string
	rules []string
	want  [3]string
} {
	noService := "    - backendRefs: [{name: nosvc, port: 8080}]\n"
	return []struct {
		name  string
		rules []string
		want  [3]string
	}{
		{"a missing policy beside a missing Service", []string{rule([]string{pol("absent")}), noService},
			[3]string{"True/", "False/BackendNotFound", "True/UnsupportedValue"}},
		{"a mutable Secret beside a missing Service", []string{rule([]string{pol("mut")}), noService},
			[3]string{"True/", "False/BackendNotFound", "True/UnsupportedValue"}},
		{"NoMatchingParent: every rule naming a missing policy", []string{rule([]string{pol("absent")})},
			[3]string{"False/NoMatchingParent", "False/PolicyNotFound", ""}},
	}
}

// foreignKindCases are TestReferenceBeforePolicy's routes naming another
// family's policy kind: GatewayPolicyReference knows only
// HAProxyRoutePolicy, so a kgateway TrafficPolicy fails the rule as any
// unsupported kind does — UnsupportedValue, ResolvedRefs True — whether
// it exists or not, and beside a policy of HAPTIC's own.
func foreignKindCases(pol func(string) string) []struct {
	name  string
	rules []string
	want  [3]string
} {
	tp := func(name string) string { return ref("gateway.kgateway.dev", "TrafficPolicy", name) }
	return []struct {
		name  string
		rules []string
		want  [3]string
	}{
		{"another family's policy that exists", []string{rule([]string{tp("tp")}), rule(nil)},
			[3]string{"True/", "True/", "True/UnsupportedValue"}},
		{"another family's policy that does not exist", []string{rule([]string{tp("nope")}), rule(nil)},
			[3]string{"True/", "True/", "True/UnsupportedValue"}},
		{"another family's policy beside a missing policy", []string{rule([]string{pol("absent"), tp("tp")})},
			[3]string{"False/UnsupportedValue", "True/", ""}},
	}
}

// TestGatewayFiltersBesidePolicy: HAPTIC fails a rule closed only for its
// ExtensionRef filters (44-route-policies.yaml: GatewayPolicyReference
// looks at no other filter type). A Gateway API CORS filter is served —
// HAPTIC's policy reference (route-policy.md@04be9778, "Filter order and
// failures") answers a CORS preflight before authentication and still
// passes actual requests through the attached policy — so on the haptic
// render target the rule forwards with Envoy's cors filter ahead of the
// policy's filters, and only a broken policy (not the CORS filter) makes
// it answer 503. The other filter types beside a policy forward too.
func TestGatewayFiltersBesidePolicy(t *testing.T) {
	const grp, kind = "haproxy-haptic.org", "HAProxyRoutePolicy"
	pol := func(name string) string { return ref(grp, kind, name) }
	cors := `{type: CORS, cors: {allowOrigins: ["https://shop.example.com"], allowMethods: [GET, POST], allowHeaders: [X-API-Key]}}`
	headers := `{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: X-Tenant, value: shop}]}}`
	redirect := `{type: RequestRedirect, requestRedirect: {scheme: https, statusCode: 301}}`
	cases := []struct {
		name  string
		rules []string
		// want is each rule's Envoy answer: "forward", "redirect" or a
		// direct response status.
		want []string
		// policyAfterCORS: the rule's route enables the api_key_auth
		// filter of the policy and the chain puts cors before it.
		policyAfterCORS bool
	}{
		{"CORS alone", []string{rule([]string{cors})}, []string{"forward"}, false},
		{"CORS before the policy filter", []string{rule([]string{cors, pol("mut")}), rule(nil)}, []string{"503", "forward"}, false},
		{"CORS beside a rate-limited policy", []string{rule([]string{pol("ok"), cors})}, []string{"forward"}, false},
		{"CORS beside an API key policy", []string{rule([]string{cors, pol("keyed")})}, []string{"forward"}, true},
		{"CORS beside a missing policy: the policy fails the rule", []string{rule([]string{cors, pol("absent")}), rule([]string{cors})}, []string{"503", "forward"}, false},
		{"CORS on one rule, the policy on another", []string{rule([]string{cors}), rule([]string{pol("keyed")})}, []string{"forward", "forward"}, false},
		{"header modifier and redirect beside a policy", []string{rule([]string{headers, pol("keyed")}), rule([]string{redirect, pol("keyed")})}, []string{"forward", "redirect"}, false},
	}
	keyed := "---\napiVersion: v1\nkind: Secret\nimmutable: true\nmetadata: {name: keys2, namespace: shop}\nstringData: {keys: \"k1:alice\"}\n" +
		"---\napiVersion: haproxy-haptic.org/v1alpha1\nkind: HAProxyRoutePolicy\nmetadata: {name: keyed, namespace: shop}\nspec: {authentication: {apiKey: {secretRef: {name: keys2}}}}\n"
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "input.yaml")
			if err := os.WriteFile(file, []byte(referenceBase+strings.Join(tc.rules, "")+keyed), 0o600); err != nil {
				t.Fatal(err)
			}
			c := compile(t, file)
			chain, routes, findings := renderedXDS(t, c, haptic.Target.Name)
			for _, d := range append(c.Diagnostics(), findings...) {
				if d.Severity == diag.Error && strings.Contains(d.Message, "cors") {
					t.Errorf("finding about the CORS filter: %s %s", d.Code, d.Message)
				}
			}
			rt := c.Graph.Routes[0]
			for i, want := range tc.want {
				mine := routesOf(routes, rt, rt.Rules[i])
				if len(mine) == 0 {
					t.Fatalf("rule %d: no Envoy route", i)
				}
				for _, r := range mine {
					got := describe(r)
					switch want {
					case "forward":
						want = "a forwarding route"
					case "redirect":
						want = "a redirect"
					default:
						want = "direct_response " + want
					}
					if got != want {
						t.Errorf("rule %d renders %s, want %s", i, got, want)
					}
					if tc.policyAfterCORS && i == 0 {
						apiKey := slices.IndexFunc(chain, func(n string) bool { return strings.HasPrefix(n, "envoy.filters.http.api_key_auth/") })
						corsAt := slices.Index(chain, "envoy.filters.http.cors")
						if apiKey < 0 || corsAt < 0 || corsAt > apiKey {
							t.Errorf("HTTP filters %v: want envoy.filters.http.cors before the policy's api_key_auth", chain)
						}
						if apiKey >= 0 && r.PerFilter[chain[apiKey]] == nil {
							t.Errorf("rule %d forwards without its policy's %s", i, chain[apiKey])
						}
					}
				}
			}
		})
	}
}

// TestPartiallyInvalidCleared: HAPTIC writes PartiallyInvalid on a route
// whose status already has that condition (on any parent, whatever its
// status) even when no rule is partially invalid now: False/AllRulesValid
// once every rule is valid, False/AllRulesInvalid beside Accepted False
// once every rule fails (46-policy-status.yaml@a7ac8a15:
// ApplyGatewayPolicyConditions, "previous"); without such a condition it
// writes PartiallyInvalid only while some rules fail. The route's written
// status is read from the input, as kubectl prints it.
func TestPartiallyInvalidCleared(t *testing.T) {
	const grp, kind = "haproxy-haptic.org", "HAProxyRoutePolicy"
	pol := func(name string) string { return ref(grp, kind, name) }
	written := func(parent, status string) string {
		return "status:\n  parents:\n  - parentRef: {name: " + parent + ", namespace: infra}\n    controllerName: haproxy-haptic.org/controller\n" +
			"    conditions:\n    - {type: Accepted, status: \"True\", reason: Accepted, message: ok}\n" +
			"    - {type: PartiallyInvalid, status: \"" + status + "\", reason: UnsupportedValue, message: earlier}\n"
	}
	for _, tc := range []struct {
		name, status string
		rules        []string
		// want: Accepted and PartiallyInvalid as status/reason ("" for
		// PartiallyInvalid: not written).
		want [2]string
	}{
		{"every rule valid after PartiallyInvalid True", written("public", "True"), []string{rule([]string{pol("ok")}), rule(nil)},
			[2]string{"True/", "False/AllRulesValid"}},
		{"every rule valid after PartiallyInvalid False", written("public", "False"), []string{rule([]string{pol("ok")})},
			[2]string{"True/", "False/AllRulesValid"}},
		{"the condition on another parent counts", written("elsewhere", "True"), []string{rule(nil)},
			[2]string{"True/", "False/AllRulesValid"}},
		{"some rules failing: True as ever", written("public", "True"), []string{rule([]string{pol("absent")}), rule(nil)},
			[2]string{"True/", "True/UnsupportedValue"}},
		{"every rule failing after PartiallyInvalid True", written("public", "True"), []string{rule([]string{pol("absent")})},
			[2]string{"False/UnsupportedValue", "False/AllRulesInvalid"}},
		{"every rule valid, no written condition", "", []string{rule([]string{pol("ok")}), rule(nil)},
			[2]string{"True/", ""}},
		{"every rule failing, no written condition", "", []string{rule([]string{pol("absent")})},
			[2]string{"False/UnsupportedValue", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "input.yaml")
			if err := os.WriteFile(file, []byte(referenceBase+strings.Join(tc.rules, "")+tc.status), 0o600); err != nil {
				t.Fatal(err)
			}
			rep := status.Compute(compile(t, file).Result, status.Options{})
			if len(rep.Routes) != 1 || len(rep.Routes[0].Parents) != 1 {
				t.Fatalf("want one route with one parent, got %+v", rep.Routes)
			}
			var got [2]string
			for _, c := range rep.Routes[0].Parents[0].Conditions {
				v := string(c.Status) + "/"
				if c.Status != "True" || c.Type == "PartiallyInvalid" {
					v += c.Reason
				}
				switch c.Type {
				case "Accepted":
					got[0] = v
				case "PartiallyInvalid":
					got[1] = v
				}
			}
			if got != tc.want {
				t.Errorf("Accepted, PartiallyInvalid = %q, want %q", got, tc.want)
			}
		})
	}
}
