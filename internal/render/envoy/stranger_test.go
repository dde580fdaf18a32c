package envoy_test

import (
	"strings"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// strangerRoutes is one HTTPRoute served by a kgateway Gateway
// (kg.example), an Envoy Gateway Gateway (eg.example) and a HAPTIC
// Gateway (hap.example).
const strangerRoutes = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kg}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: kgw, namespace: infra}
spec:
  gatewayClassName: kg
  listeners: [{name: http, protocol: HTTP, port: 80, hostname: kg.example}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: egw, namespace: infra}
spec:
  gatewayClassName: eg
  listeners: [{name: http, protocol: HTTP, port: 80, hostname: eg.example}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: hap}
spec: {controllerName: haproxy-haptic.org/controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: hgw, namespace: infra}
spec:
  gatewayClassName: hap
  listeners: [{name: http, protocol: HTTP, port: 80, hostname: hap.example}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: infra}
spec:
  parentRefs: [{name: kgw}, {name: egw}, {name: hgw}]
  rules:
  - name: main
    backendRefs: [{name: svc, port: 80}]
`

// TestStrangerRoutePolicies: a route served by Gateways of two
// controllers takes each family's policies (on the route or one of its
// rules) on its own controller's Gateway only: neither controller applies
// the other's kinds. Shapes no public case has.
func TestStrangerRoutePolicies(t *testing.T) {
	const none = -1
	tp := func(target string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: tp, namespace: infra}\nspec:\n  targetRefs: [" + target + "]\n  timeouts: {request: 9s}\n"
	}
	btp := func(target string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: btp, namespace: infra}\nspec:\n  targetRefs: [" + target + "]\n  timeout: {http: {requestTimeout: 7s}}\n"
	}
	const route = "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}"
	const rule = "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web, sectionName: main}"
	for _, tc := range []struct {
		name     string
		policies string
		kg, eg   time.Duration // HAPTIC's Gateway takes neither
	}{
		{"a kgateway TrafficPolicy on the route: kgateway's Gateway only", tp(route), 9 * time.Second, none},
		{"a kgateway TrafficPolicy on the rule: kgateway's Gateway only", tp(rule), 9 * time.Second, none},
		{"an Envoy Gateway BackendTrafficPolicy on the route: Envoy Gateway's only", btp(route), none, 7 * time.Second},
		{"both: each on its own controller's Gateway", tp(route) + btp(route), 9 * time.Second, 7 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("fixture.yaml", []byte(strangerRoutes+tc.policies), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			out := render(t, compile(t, &manifest.Set{Objects: objs}, policy.Config{}), envoy.Options{})
			for _, want := range []struct {
				host    string
				timeout time.Duration
			}{{"kg.example", tc.kg}, {"eg.example", tc.eg}, {"hap.example", none}} {
				ra := forwardingRoute(t, out, want.host)
				if g := durationOrNone(ra.Timeout != nil, ra.Timeout.AsDuration()); g != want.timeout {
					t.Errorf("%s: timeout %v, want %v", want.host, g, want.timeout)
				}
			}
		})
	}
}

// TestStrangerRoutePolicyBesideOwnValues: the same route with timeouts of
// its own (Gateway API values every controller translates, which the
// families' kinds carry as the rule's own) and a kgateway TrafficPolicy
// that sets more: on the other controllers' Gateways the rule keeps its
// own timeout and takes nothing of the policy — the policy's header
// modifier was rendered there, as the point holding the rule's own values
// was kept whole (merge.Result.OnGateway). Shapes no public case has.
func TestStrangerRoutePolicyBesideOwnValues(t *testing.T) {
	tp := func(target string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: tp, namespace: infra}\nspec:\n  targetRefs: [" + target + "]\n" +
			"  timeouts: {request: 9s}\n  headerModifiers: {request: {set: [{name: x-kg, value: tp}]}}\n"
	}
	withOwn := strings.Replace(strangerRoutes, "    backendRefs: [{name: svc, port: 80}]\n", "    backendRefs: [{name: svc, port: 80}]\n    timeouts: {request: 3s}\n", 1)
	for _, tc := range []struct{ name, policies string }{
		{"a TrafficPolicy on the route", tp("{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}")},
		{"a TrafficPolicy on the rule", tp("{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web, sectionName: main}")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("fixture.yaml", []byte(withOwn+tc.policies), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			res := compile(t, &manifest.Set{Objects: objs}, policy.Config{})
			for _, target := range []string{"envoy", "kgateway", "envoygateway"} {
				out := render(t, res, envoy.Options{Target: target})
				for _, want := range []struct {
					host   string
					header bool
				}{{"kg.example", true}, {"eg.example", false}, {"hap.example", false}} {
					ra := forwardingRoute(t, out, want.host)
					if g := durationOrNone(ra.Timeout != nil, ra.Timeout.AsDuration()); g != 3*time.Second {
						t.Errorf("%s %s: timeout %v, want the rule's own 3s", target, want.host, g)
					}
					js, err := protojson.Marshal(routeServing(out, want.host))
					if err != nil {
						t.Fatal(err)
					}
					if got := strings.Contains(string(js), "x-kg"); got != want.header {
						t.Errorf("%s %s: the TrafficPolicy's header set %v, want %v", target, want.host, got, want.header)
					}
				}
			}
		})
	}
}

// routeServing is the one route of the virtual host serving host, whole
// (its per-filter configs with it).
func routeServing(out *envoy.Output, host string) proto.Message {
	for _, g := range out.Gateways {
		for _, rc := range g.RouteConfigurations {
			for _, vh := range rc.VirtualHosts {
				if len(vh.Domains) > 0 && strings.EqualFold(vh.Domains[0], host) && len(vh.Routes) == 1 {
					return vh.Routes[0]
				}
			}
		}
	}
	return nil
}

// lone is a Service no route sends to, which the kgateway target gives
// every Gateway a cluster of (Target.UnroutedBackendClusters) when a
// backend policy targets it.
const lone = "---\napiVersion: v1\nkind: Service\nmetadata: {name: lone, namespace: infra}\nspec: {ports: [{port: 81}]}\n"

// bcp is a kgateway BackendConfigPolicy with a connect timeout on a
// Service of infra.
func bcp(name, svc, timeout string) string {
	return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: BackendConfigPolicy\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: \"\", kind: Service, name: " + svc + "}]\n  connectTimeout: " + timeout + "\n"
}

// strangerBackends is strangerRoutes with a BackendConfigPolicy on the
// route's Service and one on lone.
var strangerBackends = strangerRoutes + lone + bcp("bcp", "svc", "3s") + bcp("bcp-lone", "lone", "4s")

// TestStrangerBackendPolicies: a policy on a backend shapes the clusters
// of the Gateways whose controller reads its kind only — a kgateway
// BackendConfigPolicy on a Service that a kgateway, an Envoy Gateway and
// a HAPTIC Gateway route to is in kgateway's cluster alone, as an Envoy
// Gateway BackendTrafficPolicy's cluster settings on the route are in
// Envoy Gateway's alone; the Gateway API's BackendTLSPolicy, which every
// controller reads, is in each (merge.Result.BackendOn). Under a target
// that adds the clusters of Services no route uses (kgateway's), a
// Gateway that does not read the kind builds those clusters without it
// and shares none with the others (merge.Result.BackendStranger): the
// Envoy Gateway Gateway, built first, must not hand its clusters to
// kgateway's. Shapes no public case has.
func TestStrangerBackendPolicies(t *testing.T) {
	const btp = "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: btp, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}]\n  circuitBreaker: {maxConnections: 7}\n"
	const tls = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: tls, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: \"\", kind: Service, name: svc}]\n  validation: {wellKnownCACertificates: System, hostname: svc.example}\n"
	bcpTimeout := func(c *clusterv3.Cluster) bool { return c.GetConnectTimeout().AsDuration() == 3*time.Second }
	breaker := func(c *clusterv3.Cluster) bool {
		th := c.GetCircuitBreakers().GetThresholds()
		return len(th) > 0 && th[0].GetMaxConnections().GetValue() == 7
	}
	originates := func(c *clusterv3.Cluster) bool {
		return c.GetTransportSocket() != nil || len(c.GetTransportSocketMatches()) > 0
	}
	for _, tc := range []struct {
		name, policies string
		targets        []string
		has            func(*clusterv3.Cluster) bool
		kg, eg, hap    bool
	}{
		{"a kgateway BackendConfigPolicy on the Service: kgateway's cluster only", bcp("bcp", "svc", "3s"), []string{"", "kgateway", "envoy"}, bcpTimeout, true, false, false},
		{"an Envoy Gateway BackendTrafficPolicy's circuit breaker on the route: Envoy Gateway's cluster only", btp, []string{"", "envoygateway"}, breaker, false, true, false},
		{"both: each in its own controller's cluster", bcp("bcp", "svc", "3s") + btp, []string{""}, func(c *clusterv3.Cluster) bool { return bcpTimeout(c) || breaker(c) }, true, true, false},
		{"the Gateway API's BackendTLSPolicy: every controller reads it", tls, []string{"", "kgateway", "envoygateway"}, originates, true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("fixture.yaml", []byte(strangerRoutes+lone+tc.policies+bcp("bcp-lone", "lone", "4s")), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			res := compile(t, &manifest.Set{Objects: objs}, policy.Config{})
			for _, target := range tc.targets {
				out := render(t, res, envoy.Options{Target: target})
				for _, want := range []struct {
					host string
					has  bool
				}{{"kg.example", tc.kg}, {"eg.example", tc.eg}, {"hap.example", tc.hap}} {
					c := routeCluster(t, out, want.host)
					if c == nil {
						continue // a target that sends the host's route to no cluster of its own
					}
					if got := tc.has(c); got != want.has {
						t.Errorf("target %q, %s: cluster %s shaped by the policy %v, want %v", target, want.host, c.GetName(), got, want.has)
					}
				}
				// kgateway's own Service clusters, also of a Service no route
				// uses (the kgateway target's), take the BackendConfigPolicy;
				// the other Gateways' never do
				for _, g := range out.Gateways {
					for _, c := range g.Clusters {
						if c.GetName() != "kube_infra_lone_81" {
							continue
						}
						if got, want := c.GetConnectTimeout().AsDuration() == 4*time.Second, g.Name == "kgw"; got != want {
							t.Errorf("target %q, Gateway %s: cluster %s has bcp-lone's connect timeout %v, want %v", target, g.Name, c.GetName(), got, want)
						}
					}
				}
			}
		})
	}
}

// routeCluster is the cluster the one route of the virtual host serving
// host sends to, in that Gateway's clusters; nil when the Gateway has no
// cluster of that name.
func routeCluster(t *testing.T, out *envoy.Output, host string) *clusterv3.Cluster {
	t.Helper()
	name := forwardingRoute(t, out, host).GetCluster()
	for _, g := range out.Gateways {
		for _, rc := range g.RouteConfigurations {
			for _, vh := range rc.VirtualHosts {
				if len(vh.Domains) == 0 || !strings.EqualFold(vh.Domains[0], host) {
					continue
				}
				for _, c := range g.Clusters {
					if c.GetName() == name {
						return c
					}
				}
				return nil
			}
		}
	}
	return nil
}
