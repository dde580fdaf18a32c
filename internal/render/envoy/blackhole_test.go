package envoy_test

import (
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
)

// TestInvalidBackendPolicyBlackholes: for kgateway a policy on a backend
// that cannot be applied (a BackendTLSPolicy whose CA ConfigMap is
// missing) replaces the backend's cluster with a static one without
// endpoints, so connections fail instead of leaving in plain text; a
// valid policy shapes the EDS cluster as usual.
func TestInvalidBackendPolicyBlackholes(t *testing.T) {
	const input = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 443}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: web, port: 443}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: web-tls, namespace: infra}
spec:
  targetRefs: [{group: "", kind: Service, name: web}]
  validation:
    hostname: web.example.com
`
	cases := []struct {
		name, validation string
		want             clusterv3.Cluster_DiscoveryType
		endpoints        bool // a load assignment naming the cluster
	}{
		{"valid policy", "    wellKnownCACertificates: System\n", clusterv3.Cluster_EDS, false},
		{"CA ConfigMap missing", "    caCertificateRefs: [{group: \"\", kind: ConfigMap, name: missing-ca}]\n", clusterv3.Cluster_STATIC, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gw := renderInline(t, input+c.validation, "kgateway")
			var got *clusterv3.Cluster
			for _, cl := range gw.Clusters {
				if cl.Name == "kube_infra_web_443" {
					got = cl
				}
			}
			if got == nil {
				t.Fatalf("no cluster kube_infra_web_443 among %d", len(gw.Clusters))
			}
			if got.GetType() != c.want || (got.GetLoadAssignment() != nil) != c.endpoints {
				t.Errorf("cluster type %v, load assignment %v; want %v, %v", got.GetType(), got.GetLoadAssignment(), c.want, c.endpoints)
			}
			if c.endpoints && (len(got.GetLoadAssignment().GetEndpoints()) > 0 || got.GetTransportSocket() != nil) {
				t.Errorf("the replaced cluster still reaches the backend: %v", got)
			}
		})
	}
}
