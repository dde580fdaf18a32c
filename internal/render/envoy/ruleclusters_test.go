package envoy_test

import (
	"fmt"
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// egTwoListeners: one route served through two HTTP listeners on
// different ports; the cases add BackendTrafficPolicies.
var egTwoListeners = egGateway("infra", "  - {name: a, protocol: HTTP, port: 80}\n", "  - {name: b, protocol: HTTP, port: 8080}\n") +
	egService("infra", "web", "{port: 80}") + egShop("HTTPRoute")

// TestRuleClusterPerSettings: a rule whose routes' policies shape its
// clusters. On a Gateway whose controller gives each route its own
// cluster (no GatewayClass: the default controller), one cluster per
// distinct settings — shared when the same policies shape it through
// both listeners, one each (the later suffixed) when they differ — each
// route sending to the cluster carrying its own settings. On Envoy
// Gateway's (policy.Controller.RuleClusterOnce, merge.ClusterShape) the
// rule's one cluster is its route's on the first listener, with that
// route's settings or none, and every route sends to it; with
// mergeBackends, a route with no policy below the Gateway writing
// clusters sends to the backend's shared cluster instead. The
// expectations are egctl v1.9.0's (the Gateway's; its loader reads no
// ListenerSet).
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
	const mergeBackends = "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: merge, namespace: infra}\nspec: {mergeBackends: {}}\n"
	proxied := strings.Replace(egTwoListeners, "  gatewayClassName: eg\n", "  gatewayClassName: eg\n  infrastructure: {parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: merge}}\n", 1)
	perListener := policy("a", ", sectionName: a", 100) + policy("b", ", sectionName: b", 200)
	for _, tc := range []struct {
		name     string
		input    string
		clusters int
		want     map[string]uint32 // RouteConfiguration → max connections of its route's cluster (0: none set)
	}{
		{"one policy: the rule's one cluster", egClass + egTwoListeners + policy("gw", "", 100), 1, map[string]uint32{"listener~80": 100, "listener~8080": 100}},
		{"each route its own: a policy per listener, a cluster each", noClass(egTwoListeners) + perListener, 2,
			map[string]uint32{"listener~80": 100, "listener~8080": 200}},
		{"one per rule: a policy per listener, the first listener's", egClass + egTwoListeners + perListener, 1,
			map[string]uint32{"listener~80": 100, "listener~8080": 100}},
		{"one per rule: the Gateway's policy and a later listener's, the Gateway's on both", egClass + egTwoListeners + policy("gw", "", 100) + policy("b", ", sectionName: b", 200), 1,
			map[string]uint32{"listener~80": 100, "listener~8080": 100}},
		{"one per rule: the Gateway's policy and the first listener's, that listener's on both", egClass + egTwoListeners + policy("gw", "", 100) + policy("a", ", sectionName: a", 300), 1,
			map[string]uint32{"listener~80": 300, "listener~8080": 300}},
		{"one per rule: the first listener's policy alone, on both", egClass + egTwoListeners + policy("a", ", sectionName: a", 100), 1,
			map[string]uint32{"listener~80": 100, "listener~8080": 100}},
		{"one per rule: a later listener's policy alone, on neither", egClass + egTwoListeners + policy("b", ", sectionName: b", 200), 0,
			map[string]uint32{"listener~80": 0, "listener~8080": 0}},
		{"merged backends: the first listener's policy alone, the other route on the backend's", egClass + proxied + mergeBackends + policy("a", ", sectionName: a", 100), 1,
			map[string]uint32{"listener~80": 100, "listener~8080": 0}},
		{"merged backends: a later listener's policy alone, on its route", egClass + proxied + mergeBackends + policy("b", ", sectionName: b", 200), 1,
			map[string]uint32{"listener~80": 0, "listener~8080": 200}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw := renderInline(t, tc.input, "envoygateway")
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
			for _, rc := range gw.RouteConfigurations {
				for _, vh := range rc.VirtualHosts {
					for _, r := range vh.Routes {
						c := byName[r.GetRoute().GetCluster()]
						if c == nil {
							t.Fatalf("%s route %s sends to %q, which is not defined", rc.Name, r.Name, r.GetRoute().GetCluster())
						}
						var got uint32
						if th := c.GetCircuitBreakers().GetThresholds(); len(th) > 0 {
							got = th[0].GetMaxConnections().GetValue()
						}
						if got != tc.want[rc.Name] {
							t.Errorf("%s route %s sends to %s with max connections %d, want %d", rc.Name, r.Name, c.GetName(), got, tc.want[rc.Name])
						}
					}
				}
			}
		})
	}
}

// noClass is an input whose Gateway names a GatewayClass the input does
// not hold: it takes every kind, under the default controller.
func noClass(input string) string {
	return strings.Replace(input, "gatewayClassName: eg", "gatewayClassName: none", 1)
}

// TestRuleClusterNotForBlackhole: under a target that keeps an unusable
// backendRef's place as BlackholeCluster (a cluster nothing defines, so
// Envoy answers its share 500), a rule whose policies shape its clusters
// gives that backendRef none of its own: one built from the name would be
// defined (an EDS cluster of no Service) and answer 503 instead, where
// explain and status say 500 (found by FuzzPipeline's explain/render
// agreement). The usable backendRefs of the rule get theirs.
func TestRuleClusterNotForBlackhole(t *testing.T) {
	const btp = `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: bt, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]
  circuitBreaker: {maxConnections: 10}
`
	route := func(refs string) string {
		return `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: gwpol
  listeners:
  - {name: a, protocol: HTTP, port: 80}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: ` + refs + `}]
`
	}
	for _, c := range []struct {
		name, refs string
		sendsTo    []string // the route's clusters, in order
	}{
		{"the one backendRef is missing", "[{name: gone, port: 80}]", []string{envoy.BlackholeCluster}},
		{"one of two is missing", "[{name: gone, port: 80}, {name: web, port: 80}]", []string{envoy.BlackholeCluster, "httproute/infra/shop/rule/0/backend/1"}},
		{"the one backendRef resolves", "[{name: web, port: 80}]", []string{"httproute/infra/shop/rule/0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, target := range []string{"envoy", "kgateway"} {
				out := render(t, compileInline(t, route(c.refs)+btp, policy.Config{}), envoy.Options{Target: target})
				gw := out.Gateways[0]
				var sends []string
				for _, rc := range gw.RouteConfigurations {
					for _, vh := range rc.VirtualHosts {
						for _, r := range vh.Routes {
							if cl := r.GetRoute().GetCluster(); cl != "" {
								sends = append(sends, cl)
							}
							for _, w := range r.GetRoute().GetWeightedClusters().GetClusters() {
								sends = append(sends, w.GetName())
							}
						}
					}
				}
				if fmt.Sprint(sends) != fmt.Sprint(c.sendsTo) {
					t.Errorf("%s: the route sends to %q, want %q", target, sends, c.sendsTo)
				}
				for _, cl := range gw.Clusters {
					if cl.GetEdsClusterConfig().GetServiceName() == envoy.BlackholeCluster || cl.GetName() == envoy.BlackholeCluster {
						t.Errorf("%s: cluster %s defines the blackhole", target, cl.GetName())
					}
				}
			}
		})
	}
}

// TestRuleClusterKeepsItsPortsPolicies: a rule's own cluster copies its
// backend's cluster, and the backend's policies that name the port
// (sectionName) reach the copy as they reach the backend's cluster: the
// copy is judged on the port of the cluster it copies, not on its own
// name, which names the rule (before: a BackendTLSPolicy on the https
// port was lost as soon as a route's policy shaped the rule's cluster,
// the copy taking only the whole Service's policies). Envoy Gateway
// resolves a BackendTLSPolicy per backendRef, matching sectionName to the
// port's name (backendtlspolicy.go: getBackendTLSPolicy), whatever other
// settings the route's cluster takes.
func TestRuleClusterKeepsItsPortsPolicies(t *testing.T) {
	route := egGateway("infra", egHTTP80) + egService("infra", "web", "{name: https, port: 443}", "{name: http, port: 80}") +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: shop, namespace: infra}\nspec:\n  parentRefs: [{name: gw}]\n  rules: [{backendRefs: [{name: web, port: %d}]}]\n"
	btls := func(section string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: tls, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: \"\", kind: Service, name: web, sectionName: " + section + "}]\n" +
			"  validation: {wellKnownCACertificates: System, hostname: web.example.com}\n"
	}
	const shaping = "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: shape, namespace: infra}\n" +
		"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]\n  timeout: {tcp: {connectTimeout: 7s}}\n"
	for _, tc := range []struct {
		name    string
		port    int
		section string
		shaped  bool
		tls     bool
	}{
		{"the backend's cluster, the port's policy", 443, "https", false, true},
		{"the rule's copy, the port's policy", 443, "https", true, true},
		{"the rule's copy, another port's policy", 80, "https", true, false},
		{"the rule's copy of the other port, its own port's policy", 80, "http", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			input := egClass + fmt.Sprintf(route, tc.port) + btls(tc.section)
			if tc.shaped {
				input += shaping
			}
			gw := renderInline(t, input, "envoygateway")
			if len(gw.Clusters) != 1 {
				t.Fatalf("%d clusters, want the rule's one: %v", len(gw.Clusters), clusterNames(gw))
			}
			c := gw.Clusters[0]
			if got := c.GetConnectTimeout().AsDuration().String() == "7s"; got != tc.shaped {
				t.Errorf("cluster %s: connect timeout %v, shaped by the route's policy: %v", c.Name, c.GetConnectTimeout(), tc.shaped)
			}
			if got := c.GetTransportSocket() != nil; got != tc.tls {
				t.Errorf("cluster %s: TLS %v, want %v", c.Name, got, tc.tls)
			}
		})
	}
}
