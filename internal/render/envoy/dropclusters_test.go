package envoy_test

import (
	"slices"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestDropReplacedClusters: under Envoy Gateway a Service port's cluster
// is left out when every route to it sends to its rule's own clusters (a
// BackendTrafficPolicy shapes them) and nothing else names it; another
// route or a mirror to it keeps it; kgateway keeps it whatever.
func TestDropReplacedClusters(t *testing.T) {
	base := egGateway("infra", egHTTP80) + egService("infra", "web", "{port: 80}") + egService("infra", "shadow", "{port: 80}") +
		egShop("HTTPRoute", "  hostnames: [shop.example.com]\n") + `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: cb, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]
  circuitBreaker: {maxConnections: 10}
`
	const otherRoute = `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: docs, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  hostnames: [docs.example.com]
  rules:
  - backendRefs: [{name: web, port: 80}]
`
	const mirror = `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: copy, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  hostnames: [copy.example.com]
  rules:
  - backendRefs: [{name: shadow, port: 80}]
    filters: [{type: RequestMirror, requestMirror: {backendRef: {name: web, port: 80}}}]
`
	for _, tc := range []struct {
		name, target, extra string
		kept                bool
	}{
		{"only rule clusters use it", "envoygateway", "", false},
		{"another route sends to it", "envoygateway", otherRoute, true},
		{"a mirror sends to it", "envoygateway", mirror, true},
		{"kgateway keeps it", "kgateway", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("fixture.yaml", []byte(base+tc.extra), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			out := render(t, compile(t, &manifest.Set{Objects: objs}, policy.Config{}), envoy.Options{Target: tc.target})
			if len(out.Gateways) != 1 {
				t.Fatalf("%d gateways", len(out.Gateways))
			}
			var names []string
			for _, c := range out.Gateways[0].Clusters {
				names = append(names, c.Name)
			}
			if got := slices.Contains(names, "kube_infra_web_80"); got != tc.kept {
				t.Errorf("clusters %v: kube_infra_web_80 kept %v, want %v", names, got, tc.kept)
			}
			if tc.target == "envoygateway" && !slices.Contains(names, "httproute/infra/shop/rule/0") {
				t.Errorf("clusters %v lack the rule's own", names)
			}
		})
	}
}
