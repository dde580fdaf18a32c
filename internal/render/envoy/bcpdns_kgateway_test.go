package envoy_test

import (
	"testing"

	dnsclusterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/dns/v3"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestBackendConfigPolicyDNSParts: kgateway merges a BackendConfigPolicy's
// dns settings part by part (backendconfigpolicy/merge.go:
// mergeDnsRefreshRate, mergeDnsJitter, mergeRespectDnsTtl), so of two
// policies on one static Backend the older's refresh rate and the newer's
// jitter and TTL both tune its DNS cluster, the newer's refresh rate
// losing to the older's.
func TestBackendConfigPolicyDNSParts(t *testing.T) {
	bcp := func(name, created, dns string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: BackendConfigPolicy\nmetadata: {name: " + name + ", namespace: shop, creationTimestamp: \"" + created + "\"}\n" +
			"spec:\n  targetRefs: [{group: gateway.kgateway.dev, kind: Backend, name: ext}]\n  dns: " + dns + "\n"
	}
	input := kgatewayShop + `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: Backend
metadata: {name: ext, namespace: shop}
spec:
  type: Static
  static: {hosts: [{host: example.com, port: 8080}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ext, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{group: gateway.kgateway.dev, kind: Backend, name: ext}]
` + bcp("old", "2024-01-01T00:00:00Z", "{refreshRate: 60s}") + bcp("new", "2024-01-02T00:00:00Z", "{refreshRate: 30s, jitter: 15s, respectTTL: true}")
	cfg := policy.Config{}
	out, err := envoy.Render(compileInline(t, input, cfg), envoy.Options{Target: "kgateway", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range out.Gateways[0].Clusters {
		if c.GetName() != "backend_shop_ext_0" {
			continue
		}
		var d dnsclusterv3.DnsCluster
		if err := c.GetClusterType().GetTypedConfig().UnmarshalTo(&d); err != nil {
			t.Fatalf("cluster type %s: %v", c.GetClusterType().GetName(), err)
		}
		if d.GetDnsRefreshRate().AsDuration().String() != "1m0s" || d.GetDnsJitter().AsDuration().String() != "15s" || !d.GetRespectDnsTtl() {
			t.Errorf("DNS cluster: refresh %v, jitter %v, respect TTL %v; want 1m0s (the older's), 15s and true (the newer's)",
				d.GetDnsRefreshRate().AsDuration(), d.GetDnsJitter().AsDuration(), d.GetRespectDnsTtl())
		}
		return
	}
	t.Fatalf("no cluster backend_shop_ext_0 among %v", clusterNames(out.Gateways[0]))
}
