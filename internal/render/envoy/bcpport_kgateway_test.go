package envoy_test

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestBackendConfigPolicyPortAfterWhole: on a Service port a
// BackendConfigPolicy names by sectionName, kgateway applies the whole
// Service's policies first (BackendIndex.AddBackends appends the port's
// to them, each in age order, and the merge keeps the first setter), so
// a port's policy sets only what no whole-Service policy does: the
// connect timeout is the whole Service's whatever the ages, the port's
// own field (its load balancer) still applies, and a port no policy names
// takes the whole Service's alone.
func TestBackendConfigPolicyPortAfterWhole(t *testing.T) {
	bcp := func(name, created, section, fields string) string {
		sec := ""
		if section != "" {
			sec = ", sectionName: " + section
		}
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: BackendConfigPolicy\nmetadata: {name: " + name + ", namespace: shop, creationTimestamp: \"" + created + "\"}\n" +
			"spec:\n  targetRefs: [{group: \"\", kind: Service, name: web" + sec + "}]\n" + fields
	}
	base := kgatewayShop + `---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {ports: [{port: 80, name: http}, {port: 81, name: admin}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /a}}]
    backendRefs: [{name: web, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /b}}]
    backendRefs: [{name: web, port: 81}]
`
	for _, tc := range []struct {
		name, policies string
		timeout        map[string]string // cluster → connect timeout
		leastRequest   map[string]bool   // cluster → least request load balancing
	}{
		{"the port's policy older", bcp("port", "2024-01-01T00:00:00Z", "http", "  connectTimeout: 1s\n  loadBalancer: {leastRequest: {}}\n") + bcp("whole", "2024-06-01T00:00:00Z", "", "  connectTimeout: 9s\n"),
			map[string]string{"kube_shop_web_80": "9s", "kube_shop_web_81": "9s"}, map[string]bool{"kube_shop_web_80": true, "kube_shop_web_81": false}},
		{"the port's policy newer", bcp("whole", "2024-01-01T00:00:00Z", "", "  connectTimeout: 9s\n") + bcp("port", "2024-06-01T00:00:00Z", "http", "  connectTimeout: 1s\n  loadBalancer: {leastRequest: {}}\n"),
			map[string]string{"kube_shop_web_80": "9s", "kube_shop_web_81": "9s"}, map[string]bool{"kube_shop_web_80": true, "kube_shop_web_81": false}},
		{"no whole-Service policy: the port's applies", bcp("port", "2024-01-01T00:00:00Z", "http", "  connectTimeout: 1s\n"),
			map[string]string{"kube_shop_web_80": "1s", "kube_shop_web_81": "5s"}, map[string]bool{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := policy.Config{}
			out, err := envoy.Render(compileInline(t, base+tc.policies, cfg), envoy.Options{Target: "kgateway", Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			for _, c := range out.Gateways[0].Clusters {
				want, ok := tc.timeout[c.GetName()]
				if !ok {
					continue
				}
				seen++
				if got := c.GetConnectTimeout().AsDuration().String(); got != want {
					t.Errorf("%s connect timeout %s, want %s", c.GetName(), got, want)
				}
				if got := c.GetLeastRequestLbConfig() != nil || c.GetLoadBalancingPolicy() != nil; got != tc.leastRequest[c.GetName()] {
					t.Errorf("%s least request load balancing %v, want %v", c.GetName(), got, tc.leastRequest[c.GetName()])
				}
			}
			if seen != len(tc.timeout) {
				t.Fatalf("clusters %v, want %d of web's", clusterNames(out.Gateways[0]), len(tc.timeout))
			}
		})
	}
}
