package envoy_test

import (
	"slices"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// scopeBase: two routes on one Gateway, each to its own Service; the
// policies of TestScopeClusters shape what the route shop sends to, and
// the render is scoped to the route other.
const scopeBase = httpGateway + `---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: infra}
spec: {ports: [{port: 8080}]}
---
apiVersion: v1
kind: Service
metadata: {name: authz, namespace: infra}
spec: {ports: [{port: 9000}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  hostnames: [shop.example.com]
  rules:
  - backendRefs: [{name: web, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: other, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  hostnames: [other.example.com]
  rules:
  - backendRefs: [{name: api, port: 8080}]
`

// TestScopeClusters: a render scoped to one route keeps the clusters its
// routes send to and those policy fragments refer to (the filters the
// kept listeners run call them), and none that policies shaped for
// routes out of scope: a rule's own cluster (ruleCluster) or a backend's
// cluster its policies shaped (backendPolicies), which are deep-validated
// as policy-shaped but belong to the route that sends to them.
func TestScopeClusters(t *testing.T) {
	for _, c := range []struct {
		name, target, policies string
		want                   []string // the scoped Gateway's clusters
	}{
		{"no policy", "envoygateway", "", []string{"kube_infra_api_8080"}},
		{"rule cluster of a route out of scope", "envoygateway", `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: bt, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]
  circuitBreaker: {maxConnections: 2048}
`, []string{"kube_infra_api_8080"}},
		{"rule cluster of the route in scope", "envoygateway", `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: bt, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: other}]
  circuitBreaker: {maxConnections: 2048}
`, []string{"httproute/infra/other/rule/0"}},
		{"backend cluster shaped by its policy, out of scope", "kgateway", `apiVersion: gateway.kgateway.dev/v1alpha1
kind: BackendConfigPolicy
metadata: {name: limits, namespace: infra}
spec:
  targetRefs: [{group: "", kind: Service, name: web}]
  circuitBreakers: {maxConnections: 512}
`, []string{"kube_infra_api_8080"}},
		{"backend cluster shaped by its policy, in scope", "kgateway", `apiVersion: gateway.kgateway.dev/v1alpha1
kind: BackendConfigPolicy
metadata: {name: limits, namespace: infra}
spec:
  targetRefs: [{group: "", kind: Service, name: api}]
  circuitBreakers: {maxConnections: 512}
`, []string{"kube_infra_api_8080"}},
		{"a Gateway policy's authorization service", "envoygateway", `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: auth, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  extAuth: {http: {backendRefs: [{name: authz, port: 9000}], path: /check}}
`, []string{"kube_infra_api_8080", "kube_infra_authz_9000"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := compileInline(t, scopeBase+"---\n"+c.policies, policy.Config{})
			out := render(t, res, envoy.Options{Target: c.target})
			if d := diagText(out.Diagnostics); d != "" {
				t.Fatalf("render diagnostics:\n%s", d)
			}
			rt := res.Graph.Route("HTTPRoute", "infra", "other")
			var rules []envoy.RuleOn
			for _, rule := range rt.Rules {
				for _, p := range rt.Parents {
					for _, l := range p.Listeners {
						rules = append(rules, envoy.RuleOn{Rule: rule, Listener: l})
					}
				}
			}
			scoped := out.Scope(rules)
			if len(scoped.Gateways) != 1 {
				t.Fatalf("%d Gateways in scope, want 1", len(scoped.Gateways))
			}
			if got := clusterNames(scoped.Gateways[0]); !slices.Equal(got, c.want) {
				t.Errorf("scoped clusters %q, want %q", got, c.want)
			}
		})
	}
}
