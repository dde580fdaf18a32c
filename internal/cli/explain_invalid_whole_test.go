package cli

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestExplainInvalidHiddenByWholeOverrider: an invalid policy of a kind
// whose policies replace less specific ones whole (Envoy Gateway's
// BackendTrafficPolicy) makes a rule answer 500 only where merge's routed
// view keeps it — not on a route with a policy of its own that does not
// merge — and explain says so where render does (found by FuzzPipeline:
// explain said 500 for a route render forwarded, the Gateway's invalid
// policy being Overridden there). kgateway's TrafficPolicy, which merges
// level by level, is the control.
func TestExplainInvalidHiddenByWholeOverrider(t *testing.T) {
	const platform = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: CONTROLLER}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: infra}
spec:
  gatewayClassName: eg
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: v1
kind: Service
metadata: {name: catalog, namespace: store}
spec: {ports: [{name: http, port: 8080}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: catalog, namespace: store}
spec:
  parentRefs: [{name: edge, namespace: infra}]
  rules: [{name: main, backendRefs: [{name: catalog, port: 8080}]}]
`
	const eg = "gateway.envoyproxy.io/gatewayclass-controller"
	btp := func(ns, name, target, spec string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec:\n  targetRefs: [" + target + "]\n" + spec
	}
	gateway, listener := "{group: gateway.networking.k8s.io, kind: Gateway, name: edge}", "{group: gateway.networking.k8s.io, kind: Gateway, name: edge, sectionName: http}"
	route := "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: catalog}"
	invalid := "  rateLimit: {type: Local}\n"
	cases := []struct {
		name, controller, objects string
		answers500                bool
	}{
		{"invalid Gateway policy, route policy of its own", eg, btp("infra", "edge", gateway, invalid) + btp("store", "own", route, "  httpUpgrade: [{type: websocket}]\n"), false},
		{"invalid Gateway policy, route policy merging into it", eg, btp("infra", "edge", gateway, invalid) + btp("store", "own", route, "  mergeType: StrategicMerge\n  httpUpgrade: [{type: websocket}]\n"), true},
		{"invalid Gateway policy alone", eg, btp("infra", "edge", gateway, invalid), true},
		{"invalid listener policy, route policy of its own", eg, btp("infra", "edge", listener, invalid) + btp("store", "own", route, "  timeout: {http: {requestTimeout: 5s}}\n"), false},
		{"invalid route policy, valid Gateway policy", eg, btp("infra", "edge", gateway, "  timeout: {http: {requestTimeout: 5s}}\n") + btp("store", "own", route, invalid), true},
		{"kgateway: invalid Gateway policy, route policy of its own", "kgateway.dev/kgateway",
			"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: edge, namespace: infra}\nspec:\n  targetRefs: [" + gateway + "]\n  rateLimit: {local: {tokenBucket: {maxTokens: 0, fillInterval: 1s}}}\n" +
				"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: own, namespace: store}\nspec:\n  targetRefs: [" + route + "]\n  timeouts: {request: 5s}\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs, err := manifest.Parse("in.yaml", []byte(strings.Replace(platform, "CONTROLLER", c.controller, 1)+c.objects), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			comp := families.Compile(&manifest.Set{Objects: objs}, &Config{Namespace: "default"})
			out, err := envoy.Render(comp.Result, envoy.Options{Target: "envoy", Config: comp.Config.PolicyConfig()})
			if err != nil {
				t.Fatal(err)
			}
			// explain and render agree on every Envoy route (FuzzPipeline's check)
			checkOwnership(t, comp, out, "envoy", map[string][]string{})
			rep, err := explain.Explain(comp.Result, explain.TargetSpec{Kind: "HTTPRoute", Namespace: "store", Name: "catalog", Section: "main"}, explain.Options{})
			if err != nil {
				t.Fatal(err)
			}
			said := false
			for _, tg := range rep.Targets {
				for _, n := range tg.Notes {
					said = said || strings.HasPrefix(n, "replaced by a direct response (500)")
				}
			}
			if c.controller == eg && said != c.answers500 {
				t.Errorf("explain says 500: %v, want %v (%+v)", said, c.answers500, rep.Targets)
			}
		})
	}
}
