package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAggregateViewsPerGateway: the views that show a route's or a
// backend's merge without choosing a Gateway — explain's policy view,
// graph, and status's --gateway scope (and so its summary) — say where a
// policy takes no part because the Gateway's controller does not read
// its kind, as render decided it (merge.Result.NotOn, OnGateway,
// BackendOn): on a route a kgateway and an Envoy Gateway Gateway both
// serve, with a kgateway TrafficPolicy and an Envoy Gateway
// BackendTrafficPolicy on it and a kgateway BackendConfigPolicy on its
// Service. Before, each view claimed every policy on both Gateways.
// Shapes no public case has.
func TestAggregateViewsPerGateway(t *testing.T) {
	fixture, err := os.ReadFile("../../testdata/explain/backend-policy-other-controller/input.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const tp = "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: tp, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}]\n  timeouts: {request: 9s}\n"
	mixed := filepath.Join(t.TempDir(), "mixed.yaml")
	// the same objects with no GatewayClass: no controller is known, every
	// Gateway takes every kind, and no view says otherwise
	unmixed := filepath.Join(t.TempDir(), "unmixed.yaml")
	var noClasses []string
	for _, doc := range strings.Split(string(fixture)+"\n"+tp, "\n---\n") {
		if !strings.Contains(doc, "kind: GatewayClass") {
			noClasses = append(noClasses, doc)
		}
	}
	if err := os.WriteFile(mixed, append(fixture, tp...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(unmixed, []byte(strings.Join(noClasses, "\n---\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		want     []string
		dontWant []string
	}{
		{"explain: a kgateway TrafficPolicy on the route is not on the Envoy Gateway Gateway",
			[]string{"explain", "trafficpolicy/app/tp", "-f", mixed},
			[]string{"not on Gateway app/egw: its controller does not read TrafficPolicy"}, []string{"not on Gateway app/kgw"}},
		{"explain: an Envoy Gateway BackendTrafficPolicy on the route is not on the kgateway Gateway",
			[]string{"explain", "backendtrafficpolicy/app/btp", "-f", mixed},
			[]string{"not on Gateway app/kgw: its controller does not read BackendTrafficPolicy"}, []string{"not on Gateway app/egw"}},
		{"explain: a kgateway BackendConfigPolicy on the Service is not on the Envoy Gateway Gateway",
			[]string{"explain", "backendconfigpolicy/app/bcp", "-f", mixed},
			[]string{"not on Gateway app/egw: its controller does not read BackendConfigPolicy", "connectTimeout: won"}, nil},
		{"explain, json: the Gateways listed",
			[]string{"explain", "trafficpolicy/app/tp", "-f", mixed, "-o", "json"},
			[]string{`"notOn": [`, `"app/egw"`}, nil},
		{"status --gateway on the Envoy Gateway Gateway: not the TrafficPolicy",
			[]string{"status", "-f", mixed, "-o", "summary", "--gateway", "app/egw"},
			[]string{"BackendTrafficPolicy app/btp → Gateway/app/egw"}, []string{"TrafficPolicy app/tp"}},
		{"status --gateway on the kgateway Gateway: not the BackendTrafficPolicy",
			[]string{"status", "-f", mixed, "-o", "summary", "--gateway", "app/kgw"},
			[]string{"TrafficPolicy app/tp → Gateway/app/kgw"}, []string{"BackendTrafficPolicy"}},
		{"status --route: every policy on the route, each against its own Gateway",
			[]string{"status", "-f", mixed, "-o", "summary", "--route", "httproute/app/web"},
			[]string{"TrafficPolicy app/tp → Gateway/app/kgw", "BackendTrafficPolicy app/btp → Gateway/app/egw"}, nil},
		{"graph: each attachment edge names the Gateways the policy is not on",
			[]string{"graph", "-f", mixed},
			[]string{`"p_gateway.kgateway.dev/TrafficPolicy/app/tp" -> "rule_HTTPRoute/app/web/main" [label="ref, not on app/egw"`,
				`"p_gateway.envoyproxy.io/BackendTrafficPolicy/app/btp" -> "rule_HTTPRoute/app/web/main" [label="ref, not on app/kgw"`,
				`"p_gateway.kgateway.dev/BackendConfigPolicy/app/bcp" -> "b_Service/app/svc" [label="ref, not on app/egw"`}, nil},
		{"no GatewayClass in the input: every Gateway takes every kind",
			[]string{"explain", "trafficpolicy/app/tp", "-f", unmixed},
			[]string{"timeouts: won"}, []string{"not on"}},
		{"no GatewayClass in the input: graph as before",
			[]string{"graph", "-f", unmixed},
			[]string{`[label="ref"`}, []string{"not on"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := run(t, tc.args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("want %q in:\n%s", w, out)
				}
			}
			for _, w := range tc.dontWant {
				if strings.Contains(out, w) {
					t.Errorf("want no %q in:\n%s", w, out)
				}
			}
		})
	}
}
