package envoy_test

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestBackendPolicyMetadataBesideBackendMetadata: a backend whose own
// cluster already carries metadata (a GCP Backend's gcp_authn audience in
// typed_filter_metadata, and no filter_metadata) takes the merge origins
// of the BackendConfigPolicies on it beside its own metadata, which
// stays. Before, render crashed on such a cluster (a write into its nil
// filter_metadata map). Shapes no public case has: a GCP Backend with a
// policy, beside a static Backend (no metadata of its own) and a dynamic
// forward proxy Backend with the same policy.
func TestBackendPolicyMetadataBesideBackendMetadata(t *testing.T) {
	input := kgatewayShop + `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: Backend
metadata: {name: run, namespace: shop}
spec:
  type: GCP
  gcp: {host: run.example.app}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: Backend
metadata: {name: st, namespace: shop}
spec:
  type: Static
  static: {hosts: [{host: example.com, port: 8080}]}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: Backend
metadata: {name: dfp, namespace: shop}
spec:
  type: DynamicForwardProxy
  dynamicForwardProxy: {}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /run}}]
    backendRefs: [{group: gateway.kgateway.dev, kind: Backend, name: run}]
  - matches: [{path: {type: PathPrefix, value: /st}}]
    backendRefs: [{group: gateway.kgateway.dev, kind: Backend, name: st}]
  - matches: [{path: {type: PathPrefix, value: /dfp}}]
    backendRefs: [{group: gateway.kgateway.dev, kind: Backend, name: dfp}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: BackendConfigPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRefs:
  - {group: gateway.kgateway.dev, kind: Backend, name: run}
  - {group: gateway.kgateway.dev, kind: Backend, name: st}
  - {group: gateway.kgateway.dev, kind: Backend, name: dfp}
  connectTimeout: 3s
`
	for _, tc := range []struct {
		cluster string
		typed   bool // the Backend's own typed_filter_metadata
	}{
		{"backend_shop_run_0", true},
		{"backend_shop_st_0", false},
		{"backend_shop_dfp_0", false},
	} {
		t.Run(tc.cluster, func(t *testing.T) {
			cfg := policy.Config{}
			out, err := envoy.Render(compileInline(t, input, cfg), envoy.Options{Target: "envoy", Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range out.Gateways[0].Clusters {
				if c.GetName() != tc.cluster {
					continue
				}
				if got := c.GetConnectTimeout().AsDuration().String(); got != "3s" {
					t.Errorf("connect timeout %s, want the policy's 3s", got)
				}
				if _, ok := c.GetMetadata().GetFilterMetadata()["merge.gateway.kgateway.dev/BackendConfigPolicy"]; !ok {
					t.Errorf("no merge origins in %v", c.GetMetadata())
				}
				if got := len(c.GetMetadata().GetTypedFilterMetadata()) > 0; got != tc.typed {
					t.Errorf("typed filter metadata kept %v, want %v", got, tc.typed)
				}
				return
			}
			t.Fatalf("no cluster %s among %v", tc.cluster, clusterNames(out.Gateways[0]))
		})
	}
}
