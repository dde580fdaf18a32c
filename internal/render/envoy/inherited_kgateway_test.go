package envoy_test

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestInheritedRewriteAndSessionRendered: what a delegated child takes
// from a parent route whose inherited-policy-priority prefers the parent
// reaches its Envoy route: the parent's hostname and path rewrite replace
// the child's (a prefix rewrite in place of the child's full-path regex
// rewrite, never both: Envoy takes one form), and a parent rule's
// sessionPersistence turns the stateful session on for a child rule
// without one (krtcollections/builtin.go: urlRewriteIr.apply,
// ruleIR applied by applyRulePolicy, IsSettable under the parent's
// priority).
func TestInheritedRewriteAndSessionRendered(t *testing.T) {
	doc := func(annotations, rule string) string {
		return `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: api, namespace: shop` + annotations + `}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /api}}]
` + rule + `    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: kid}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: kid, namespace: shop}
spec:
  rules:
  - matches: [{path: {type: PathPrefix, value: /api/kid}}]
    filters: [{type: URLRewrite, urlRewrite: {hostname: kid.example, path: {type: ReplaceFullPath, replaceFullPath: /k}}}]
    backendRefs: [{name: cart, port: 80}]
`
	}
	const rewrite = "    filters: [{type: URLRewrite, urlRewrite: {hostname: parent.example, path: {type: ReplacePrefixMatch, replacePrefixMatch: /parent}}}]\n    sessionPersistence: {sessionName: parent-session}\n"
	for _, tt := range []struct {
		name, annotations      string
		host, prefix, regexSub string
	}{
		{"default: the child's own", "", "kid.example", "", "/k"},
		{"ShallowMergePreferParent: the parent's", ", annotations: {kgateway.dev/inherited-policy-priority: ShallowMergePreferParent}", "parent.example", "/parent", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := policy.Config{}
			out, err := envoy.Render(compileInline(t, kgatewayShop+"---\n"+doc(tt.annotations, rewrite), cfg), envoy.Options{Target: "kgateway", Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			routes := out.Gateways[0].RouteConfigurations[0].GetVirtualHosts()[0].GetRoutes()
			if len(routes) != 1 {
				t.Fatalf("%d routes, want the child's one", len(routes))
			}
			act := routes[0].GetRoute()
			if got := act.GetHostRewriteLiteral(); got != tt.host {
				t.Errorf("host rewrite %q, want %q", got, tt.host)
			}
			if got := act.GetPrefixRewrite(); got != tt.prefix {
				t.Errorf("prefix rewrite %q, want %q", got, tt.prefix)
			}
			if got := act.GetRegexRewrite().GetSubstitution(); got != tt.regexSub {
				t.Errorf("regex rewrite to %q, want %q", got, tt.regexSub)
			}
			a := routes[0].GetTypedPerFilterConfig()["envoy.filters.http.stateful_session"]
			if a == nil || !strings.Contains(string(a.GetValue()), "parent-session") {
				t.Errorf("the child's route has no stateful session from its parent rule: %v", a)
			}
		})
	}
}

// kgatewayShop is a kgateway Gateway with one HTTP listener in shop and
// the Service shop/cart (port 80).
const kgatewayShop = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kgw}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: kgw
  listeners: [{name: web, port: 8080, protocol: HTTP}]
---
apiVersion: v1
kind: Service
metadata: {name: cart, namespace: shop}
spec: {ports: [{port: 80}]}
`
