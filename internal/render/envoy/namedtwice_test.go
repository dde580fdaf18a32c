package envoy_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestPolicyNamingItsTargetTwice: an Envoy Gateway policy whose targetRefs
// name one target twice is built there through the first ref; the second
// only conflicts in its status (the target's attached flag stops a second
// translation, not the first: backendtrafficpolicy.go
// resolveBTPolicyGatewayTargetRef and its siblings), so its fields take
// effect (B106). Another policy that comes second on the target stays
// out.
func TestPolicyNamingItsTargetTwice(t *testing.T) {
	policy := func(name string, max int, refs ...string) string {
		var rs []string
		for _, r := range refs {
			kind, rest, _ := strings.Cut(r, "/")
			tname, section, _ := strings.Cut(rest, "#")
			ref := "{group: gateway.networking.k8s.io, kind: " + kind + ", name: " + tname
			if section != "" {
				ref += ", sectionName: " + section
			}
			rs = append(rs, ref+"}")
		}
		return fmt.Sprintf("---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: %s, namespace: infra}\n"+
			"spec:\n  targetRefs: [%s]\n  circuitBreaker: {maxConnections: %d}\n", name, strings.Join(rs, ", "), max)
	}
	for _, tc := range []struct {
		name     string
		policies string
		want     uint32 // max connections of the route's cluster (0: none set)
	}{
		{"the Gateway named twice", policy("twice", 100, "Gateway/gw", "Gateway/gw"), 100},
		{"a listener named twice", policy("twice", 100, "Gateway/gw#http", "Gateway/gw#http"), 100},
		{"the route named twice", policy("twice", 100, "HTTPRoute/shop", "HTTPRoute/shop"), 100},
		{"the Gateway named twice, after a listener", policy("twice", 100, "Gateway/gw#http", "Gateway/gw", "Gateway/gw#http"), 100},
		{"another policy second on the Gateway: the first's", policy("first", 100, "Gateway/gw") + policy("second", 200, "Gateway/gw"), 100},
		{"another policy second on the route: the first's", policy("first", 100, "HTTPRoute/shop") + policy("second", 200, "HTTPRoute/shop", "HTTPRoute/shop"), 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			input := egGateway("infra", egHTTP80) + egService("infra", "web", "{port: 80}") + egShop("HTTPRoute") + tc.policies
			gw := renderInline(t, input, "envoygateway")
			routes := 0
			for _, rc := range gw.RouteConfigurations {
				for _, vh := range rc.VirtualHosts {
					for _, r := range vh.Routes {
						routes++
						var got uint32
						for _, c := range gw.Clusters {
							if c.Name == r.GetRoute().GetCluster() {
								if th := c.GetCircuitBreakers().GetThresholds(); len(th) > 0 {
									got = th[0].GetMaxConnections().GetValue()
								}
							}
						}
						if got != tc.want {
							t.Errorf("route %s sends to %s with max connections %d, want %d", r.Name, r.GetRoute().GetCluster(), got, tc.want)
						}
					}
				}
			}
			if routes == 0 {
				t.Fatal("no route rendered")
			}
		})
	}
}
