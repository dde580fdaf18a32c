package haptic_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy/haptic"
)

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
