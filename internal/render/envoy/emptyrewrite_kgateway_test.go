package envoy_test

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestEmptyPathReplacement: kgateway applies a URLRewrite's full path or
// prefix replacement only when it is not empty (krtcollections/
// builtin.go: urlRewriteIr.apply), and the Gateway API lets either be "":
// the route then has no path rewrite of the rule's own, and a
// TrafficPolicy's urlRewrite, which only fills a route without one
// (applyURLRewrite), applies.
func TestEmptyPathReplacement(t *testing.T) {
	for _, tt := range []struct {
		name, path string // the rule's URLRewrite path modifier
		regex      string // the route's regex rewrite substitution, "" none
		prefix     string
	}{
		{"empty full path: the policy's regex applies", `{type: ReplaceFullPath, replaceFullPath: ""}`, "/from-policy", ""},
		{"empty prefix: the policy's regex applies", `{type: ReplacePrefixMatch, replacePrefixMatch: ""}`, "/from-policy", ""},
		{"a full path of its own beats the policy", `{type: ReplaceFullPath, replaceFullPath: /own}`, "/own", ""},
		{"a prefix of its own beats the policy", `{type: ReplacePrefixMatch, replacePrefixMatch: /own}`, "", "/own"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			input := kgatewayShop + `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /api}}]
    filters: [{type: URLRewrite, urlRewrite: {path: ` + tt.path + `}}]
    backendRefs: [{name: cart, port: 80}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: tp, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  urlRewrite: {pathRegex: {pattern: "^/api/(.*)$", substitution: /from-policy}}
`
			cfg := policy.Config{}
			out, err := envoy.Render(compileInline(t, input, cfg), envoy.Options{Target: "kgateway", Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			act := out.Gateways[0].RouteConfigurations[0].GetVirtualHosts()[0].GetRoutes()[0].GetRoute()
			if got := act.GetRegexRewrite().GetSubstitution(); got != tt.regex {
				t.Errorf("regex rewrite to %q, want %q", got, tt.regex)
			}
			if got := act.GetPrefixRewrite(); got != tt.prefix {
				t.Errorf("prefix rewrite %q, want %q", got, tt.prefix)
			}
		})
	}
}
