package kgateway

import (
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestStaticBackendClusterType: a static Backend whose hosts are all IP
// addresses is a STATIC cluster — nothing to resolve, so no DNS cluster
// extension and no lookup family —, while one host name among them makes
// the whole cluster a DNS cluster (kgateway's buildStaticIr: the cluster
// type stays STATIC unless netip.ParseAddr fails on a host, then
// processStatic writes the envoy.clusters.dns extension). Before, every
// static Backend was a DNS cluster. Shapes no public case has (every
// public static Backend names its hosts).
func TestStaticBackendClusterType(t *testing.T) {
	for _, tc := range []struct {
		name, hosts string
		dns         bool
	}{
		{"one IPv4 address", "[{host: 10.0.0.7, port: 8080}]", false},
		{"IPv4 and IPv6 addresses", `[{host: 10.0.0.7, port: 8080}, {host: "fd00::7", port: 8080}]`, false},
		{"an IPv6 address with a zone", `[{host: "fe80::1%eth0", port: 80}]`, false},
		{"a name after an address", "[{host: 10.0.0.7, port: 80}, {host: api.example.com, port: 80}]", true},
		{"a name", "[{host: api.example.com, port: 443}]", true},
		{"a dotted name that is no address", "[{host: 10.0.0.256, port: 80}]", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("b.yaml", []byte("apiVersion: gateway.kgateway.dev/v1alpha1\nkind: Backend\nmetadata: {name: b, namespace: infra}\nspec:\n  static: {hosts: "+tc.hosts+"}\n"), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			build, err := Kind{}.BackendCluster(objs[0], "backend_infra_b_0", &policy.Env{Config: policy.Config{Values: map[string]any{DNSLookupFamily.Key: "V4_ONLY"}}})
			if err != nil {
				t.Fatal(err)
			}
			c, ok := build.Cluster.(*clusterv3.Cluster)
			if !ok {
				t.Fatalf("cluster %T", build.Cluster)
			}
			if got := c.GetClusterType().GetName() == DNSClusterType; got != tc.dns {
				t.Errorf("DNS cluster %v, want %v", got, tc.dns)
			}
			if !tc.dns && c.GetType() != clusterv3.Cluster_STATIC {
				t.Errorf("cluster type %v, want STATIC", c.GetType())
			}
			if n := len(c.GetLoadAssignment().GetEndpoints()[0].GetLbEndpoints()); n == 0 {
				t.Errorf("no endpoints")
			}
		})
	}
}
