package kgateway

import (
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	dnscommonv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/common/dns/v3"
	dnsclusterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/dns/v3"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestDNSLookupFamily: every Backend cluster resolved by the DNS cluster
// extension (static hosts by name, AWS Lambda, GCP) looks names up in the
// deployment's dnsLookupFamily, V4_PREFERRED unless set, as kgateway's
// processDnsLookupFamily sets it after the backend plugin; a dynamic
// forward proxy, which is no DNS cluster, and the GCP metadata server
// cluster a backend brings keep their own.
func TestDNSLookupFamily(t *testing.T) {
	backends := map[string]string{
		"static": "static: {hosts: [{host: api.example.com, port: 443}]}",
		"aws":    "aws: {accountId: \"123456789012\", region: eu-west-1, lambda: {functionName: f}}",
		"gcp":    "gcp: {host: svc.run.app}",
		"dfp":    "dynamicForwardProxy: {}",
	}
	for _, family := range []string{"", "V4_ONLY", "ALL", "auto"} {
		for kind, spec := range backends {
			t.Run(kind+"/"+family, func(t *testing.T) {
				objs, err := manifest.Parse("b.yaml", []byte("apiVersion: gateway.kgateway.dev/v1alpha1\nkind: Backend\nmetadata: {name: b, namespace: infra}\nspec:\n  "+spec+"\n"), manifest.Limits{})
				if err != nil {
					t.Fatal(err)
				}
				cfg := policy.Config{Values: map[string]any{}}
				want := dnscommonv3.DnsLookupFamily_V4_PREFERRED
				if family != "" {
					cfg.Values[DNSLookupFamily.Key] = family
					want = dnscommonv3.DnsLookupFamily(dnscommonv3.DnsLookupFamily_value[DNSLookupFamily.String(cfg)])
				}
				build, err := Kind{}.BackendCluster(objs[0], "backend_infra_b_0", &policy.Env{Config: cfg})
				if err != nil {
					t.Fatal(err)
				}
				got, dns := lookupFamily(t, build.Cluster)
				if kind == "dfp" {
					if dns {
						t.Errorf("a dynamic forward proxy is a DNS cluster here")
					}
					return
				}
				if !dns || got != want {
					t.Errorf("lookup family = %v (DNS cluster %v), want %v", got, dns, want)
				}
				for _, m := range build.Clusters {
					if f, ok := lookupFamily(t, m); ok && f != dnscommonv3.DnsLookupFamily_V4_ONLY {
						t.Errorf("an extra cluster's lookup family = %v, want its own V4_ONLY", f)
					}
				}
			})
		}
	}
}

func lookupFamily(t *testing.T, m any) (dnscommonv3.DnsLookupFamily, bool) {
	t.Helper()
	c, ok := m.(*clusterv3.Cluster)
	if !ok || c.GetClusterType().GetName() != "envoy.clusters.dns" {
		return 0, false
	}
	d := &dnsclusterv3.DnsCluster{}
	if err := c.GetClusterType().GetTypedConfig().UnmarshalTo(d); err != nil {
		t.Fatal(err)
	}
	return d.GetDnsLookupFamily(), true
}
