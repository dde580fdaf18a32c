package envoy_test

import (
	"slices"
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// leftOutBase: a route to a Service port speaking h2c and one speaking
// HTTP/1.1; the backend policies of TestBackendClusterLeftOut target them.
const leftOutBase = httpGateway + `---
apiVersion: v1
kind: Service
metadata: {name: rpc, namespace: infra}
spec: {ports: [{name: rpc, port: 9000, appProtocol: kubernetes.io/h2c}, {name: web, port: 9001}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{name: rpc, port: 9000}]
  - matches: [{path: {type: PathPrefix, value: /h1}}]
    backendRefs: [{name: rpc, port: 9001}]
`

// TestBackendClusterLeftOut: a backend policy's field that cannot be
// rendered (a value Envoy refuses) where it applies leaves the backend's
// cluster out of the config, and the routes sending there answer their
// cluster-not-found status, as the field's finding (GWP401) says — never
// the cluster without the field (TLS origination that is not there). A
// field the backend's protocol does not take leaves its cluster as it
// is; so does a field that renders.
func TestBackendClusterLeftOut(t *testing.T) {
	long := strings.Repeat("a", 60) + "." + strings.Repeat("b", 60) + "." + strings.Repeat("c", 60) + "." + strings.Repeat("d", 60) + "." + strings.Repeat("e", 60) + ".com"
	for _, c := range []struct {
		name, target, policy string
		clusters             []string // the rendered clusters
		answers              []int    // the rules' answers: 0 forwards
	}{
		{"HTTP/2 window Envoy refuses, on an h2c port", "kgateway", `apiVersion: gateway.kgateway.dev/v1alpha1
kind: BackendConfigPolicy
metadata: {name: h2, namespace: infra}
spec:
  targetRefs: [{group: "", kind: Service, name: rpc}]
  http2ProtocolOptions: {initialStreamWindowSize: 1}
`, []string{"kube_infra_rpc_9001"}, []int{500, 0}},
		{"HTTP/2 window that renders", "kgateway", `apiVersion: gateway.kgateway.dev/v1alpha1
kind: BackendConfigPolicy
metadata: {name: h2, namespace: infra}
spec:
  targetRefs: [{group: "", kind: Service, name: rpc}]
  http2ProtocolOptions: {initialStreamWindowSize: 65535}
`, []string{"kube_infra_rpc_9000", "kube_infra_rpc_9001"}, []int{0, 0}},
		{"TLS hostname longer than an SNI", "envoy", `apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: tls, namespace: infra}
spec:
  targetRefs: [{group: "", kind: Service, name: rpc, sectionName: web}]
  validation: {hostname: ` + long + `, wellKnownCACertificates: System}
`, []string{"kube_infra_rpc_9000"}, []int{0, 500}},
		{"TLS that renders", "envoy", `apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: tls, namespace: infra}
spec:
  targetRefs: [{group: "", kind: Service, name: rpc}]
  validation: {hostname: rpc.example.com, wellKnownCACertificates: System}
`, []string{"kube_infra_rpc_9000", "kube_infra_rpc_9001"}, []int{0, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := compileInline(t, leftOutBase+"---\n"+c.policy, policy.Config{})
			out := render(t, res, envoy.Options{Target: c.target})
			if len(out.Gateways) != 1 {
				t.Fatalf("%d Gateways rendered", len(out.Gateways))
			}
			if clusters := clusterNames(out.Gateways[0]); !slices.Equal(clusters, c.clusters) {
				t.Errorf("clusters %q, want %q", clusters, c.clusters)
			}
			leftOut := len(c.clusters) < 2
			if d := diagText(out.Diagnostics); leftOut != strings.Contains(d, "GWP401") || leftOut && !strings.Contains(d, "cluster-not-found status") {
				t.Errorf("findings:\n%s", d)
			}
			rt := res.Graph.Route("HTTPRoute", "infra", "shop")
			l := rt.Parents[0].Listeners[0]
			var answers []int
			for _, rule := range rt.Rules {
				for _, a := range out.AnswersOn(rule, nil, l) {
					answers = append(answers, a.Status)
				}
			}
			if !slices.Equal(answers, c.answers) {
				t.Errorf("answers %v, want %v", answers, c.answers)
			}
		})
	}
}

// TestFailedFieldOnAnsweredRule: a route-level field that cannot be
// rendered (a connect timeout Envoy refuses, for the rule's own
// clusters) answers its rule 503 where the rule forwards; where no
// backendRef of the rule takes traffic the rule answers what the merge
// decided before any policy applies (500), as explain says: the field
// has no cluster to go into there (found by FuzzPipeline's explain/render
// agreement: render answered 503, explain 500).
func TestFailedFieldOnAnsweredRule(t *testing.T) {
	const btp = `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: bt, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]
  timeout: {tcp: {connectTimeout: -5s}}
`
	route := func(ref string) string {
		return httpGateway + `---
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
  rules: [{backendRefs: [` + ref + `]}]
`
	}
	for _, c := range []struct {
		name, ref string
		want      int
	}{
		{"forwarding rule", "{name: web, port: 80}", 503},
		{"no backendRef takes traffic", "{name: gone, port: 80}", 500},
	} {
		for _, target := range []string{"envoy", "kgateway", "envoygateway"} {
			res := compileInline(t, route(c.ref)+btp, policy.Config{})
			out := render(t, res, envoy.Options{Target: target})
			rt := res.Graph.Route("HTTPRoute", "infra", "shop")
			l := rt.Parents[0].Listeners[0]
			var got []int
			for _, a := range out.AnswersOn(rt.Rules[0], nil, l) {
				got = append(got, a.Status)
			}
			if !slices.Equal(got, []int{c.want}) {
				t.Errorf("%s, %s: the rule answers %v, want %d", c.name, target, got, c.want)
			}
			if fs, ok := res.FixedStatusOn(rt, rt.Rules[0], l.Gateway); ok && fs.Status != c.want {
				t.Errorf("%s, %s: the merge answers %d, render %d", c.name, target, fs.Status, c.want)
			}
		}
	}
}

// TestRouteAnswerAllBlackholed: a route whose every weighted cluster is
// BlackholeCluster answers every request its cluster-not-found status,
// as one whose one cluster is (found by FuzzPipeline's explain/render
// agreement: a rule none of whose three backendRefs resolved was read as
// forwarding); one with a cluster that exists forwards.
func TestRouteAnswerAllBlackholed(t *testing.T) {
	route := func(names ...string) *routev3.Route {
		var wcs []*routev3.WeightedCluster_ClusterWeight
		for _, n := range names {
			wcs = append(wcs, &routev3.WeightedCluster_ClusterWeight{Name: n, Weight: wrapperspb.UInt32(1)})
		}
		return &routev3.Route{Action: &routev3.Route_Route{Route: &routev3.RouteAction{ClusterNotFoundResponseCode: routev3.RouteAction_INTERNAL_SERVER_ERROR,
			ClusterSpecifier: &routev3.RouteAction_WeightedClusters{WeightedClusters: &routev3.WeightedCluster{Clusters: wcs}}}}}
	}
	for _, c := range []struct {
		name string
		r    *routev3.Route
		want int
	}{
		{"every share blackholed", route(envoy.BlackholeCluster, envoy.BlackholeCluster, envoy.BlackholeCluster), 500},
		{"one share forwards", route(envoy.BlackholeCluster, "kube_app_present_8080"), 0},
		{"no blackhole", route("a", "b"), 0},
	} {
		if got, _ := envoy.RouteAnswer(c.r); got != c.want {
			t.Errorf("%s: answers %d, want %d", c.name, got, c.want)
		}
	}
}
