package envoy_test

import (
	"fmt"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
)

// egTwoListeners: one route served through two HTTP listeners on
// different ports; the cases add BackendTrafficPolicies.
var egTwoListeners = egGateway("infra", "  - {name: a, protocol: HTTP, port: 80}\n", "  - {name: b, protocol: HTTP, port: 8080}\n") +
	egService("infra", "web", "{port: 80}") + egShop("HTTPRoute")

// TestRuleClusterPerSettings: a rule whose routes' policies shape its
// clusters gets one cluster per distinct settings (and owners) — shared
// when the same policies shape it through both listeners, one each (the
// later suffixed) when they differ — and each route sends to the cluster
// carrying its own settings.
func TestRuleClusterPerSettings(t *testing.T) {
	policy := func(name, section string, max int) string {
		return fmt.Sprintf(`---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: %s, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw%s}]
  circuitBreaker: {maxConnections: %d}
`, name, section, max)
	}
	for _, tc := range []struct {
		name     string
		policies string
		clusters int
		want     map[string]uint32 // RouteConfiguration → max connections of its route's cluster
	}{
		{"one policy: the rule's one cluster", policy("gw", "", 100), 1, map[string]uint32{"listener~80": 100, "listener~8080": 100}},
		{"a policy per listener: a cluster each", policy("a", ", sectionName: a", 100) + policy("b", ", sectionName: b", 200), 2,
			map[string]uint32{"listener~80": 100, "listener~8080": 200}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			input := egTwoListeners + tc.policies
			gw := renderInline(t, input, "envoygateway")
			byName := map[string]*clusterv3.Cluster{}
			rule := 0
			for _, c := range gw.Clusters {
				byName[c.Name] = c
				if c.GetEdsClusterConfig().GetServiceName() != "" {
					rule++
				}
			}
			if rule != tc.clusters {
				t.Fatalf("%d rule clusters, want %d", rule, tc.clusters)
			}
			want := tc.want
			for _, rc := range gw.RouteConfigurations {
				for _, vh := range rc.VirtualHosts {
					for _, r := range vh.Routes {
						c := byName[r.GetRoute().GetCluster()]
						if got := c.GetCircuitBreakers().GetThresholds()[0].GetMaxConnections().GetValue(); got != want[rc.Name] {
							t.Errorf("%s route %s sends to %s with max connections %d, want %d", rc.Name, r.Name, c.GetName(), got, want[rc.Name])
						}
					}
				}
			}
		})
	}
}
