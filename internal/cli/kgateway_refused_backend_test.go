package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestKgatewayRefusedBackendRendersNoCluster: a kgateway Backend is
// decided once, by its own status (GWP221's verdict). A Backend kgateway
// does not accept gets no cluster (TranslateBackend returns its IR's
// errors; the errored cluster is left out of the snapshot), the route
// still names it and answers its cluster-not-found code, 500; lint reports
// the Backend once (GWP221, not also render's GWP401) and explain says why
// the route's requests, or its share of them, answer 500.
func TestKgatewayRefusedBackendRendersNoCluster(t *testing.T) {
	for _, tc := range []struct {
		name     string
		spec     string // Backend be's spec, in flow style
		split    bool   // the rule splits 1:3 between be and a static Backend ok
		refused  bool   // kgateway writes Accepted False on be
		lintCode string // the one finding lint reports on be ("" none)
	}{
		{name: "static host without a port", spec: "{static: {hosts: [{host: b.example.com, port: 0}]}}", refused: true, lintCode: "GWP221"},
		{name: "static host without a port, one share of a split", spec: "{static: {hosts: [{host: b.example.com, port: 0}]}}", split: true, refused: true, lintCode: "GWP221"},
		{name: "lambda endpointURL naming no port", spec: `{aws: {accountId: "000000000000", lambda: {functionName: fn, endpointURL: "https://lambda.local"}}}`, refused: true, lintCode: "GWP221"},
		{name: "ec2 while discovery is off", spec: `{aws: {accountId: "000000000000", ec2: {}}}`, split: true, refused: true, lintCode: "GWP221"},
		{name: "accepted static hosts", spec: "{static: {hosts: [{host: b.example.com, port: 8080}]}}"},
		// kgateway accepts a port it reads as 32 bits; Envoy cannot take
		// it, which is render's own finding on an accepted Backend.
		{name: "accepted lambda port Envoy refuses", spec: `{aws: {accountId: "000000000000", lambda: {functionName: fn, endpointURL: "http://lambda.local:70000"}}}`, lintCode: "GWP401"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refs := "[{group: gateway.kgateway.dev, kind: Backend, name: be}]"
			if tc.split {
				refs = "[{group: gateway.kgateway.dev, kind: Backend, name: be, weight: 1}, {group: gateway.kgateway.dev, kind: Backend, name: ok, weight: 3}]"
			}
			in := "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: kgw}\nspec: {controllerName: kgateway.dev/kgateway}\n" +
				"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: apps}\nspec:\n  gatewayClassName: kgw\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n" +
				"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: Backend\nmetadata: {name: be, namespace: apps}\nspec: " + tc.spec + "\n" +
				"---\n" + staticBackends("ok") +
				"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: apps}\nspec:\n  parentRefs: [{name: gw}]\n  rules:\n  - backendRefs: " + refs + "\n"
			path := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
				t.Fatal(err)
			}

			out, errOut, _ := run(t, "render", "-f", path, "-o", "json")
			var xds struct {
				Gateways []struct {
					Clusters            []struct{ Name string }
					RouteConfigurations []struct {
						VirtualHosts []struct {
							Routes []struct {
								Route struct {
									Cluster                     string
									ClusterNotFoundResponseCode string                                     `json:"cluster_not_found_response_code"`
									WeightedClusters            struct{ Clusters []struct{ Name string } } `json:"weighted_clusters"`
								}
							}
						} `json:"virtual_hosts"`
					}
				}
			}
			if err := json.Unmarshal([]byte(out), &xds); err != nil || len(xds.Gateways) != 1 {
				t.Fatalf("render: %v (%d Gateways)\n%s", err, len(xds.Gateways), errOut)
			}
			g := xds.Gateways[0]
			var clusters []string
			for _, c := range g.Clusters {
				clusters = append(clusters, c.Name)
			}
			if has := slices.Contains(clusters, "backend_apps_be_0"); has == tc.refused {
				t.Errorf("clusters %q: Backend be's cluster present %v, want %v", clusters, has, !tc.refused)
			}
			if len(g.RouteConfigurations) != 1 || len(g.RouteConfigurations[0].VirtualHosts) != 1 || len(g.RouteConfigurations[0].VirtualHosts[0].Routes) != 1 {
				t.Fatalf("want one route:\n%s", out)
			}
			ra := g.RouteConfigurations[0].VirtualHosts[0].Routes[0].Route
			names := []string{ra.Cluster}
			if tc.split {
				names = nil
				for _, c := range ra.WeightedClusters.Clusters {
					names = append(names, c.Name)
				}
			}
			if !slices.Contains(names, "backend_apps_be_0") || ra.ClusterNotFoundResponseCode != "INTERNAL_SERVER_ERROR" {
				t.Errorf("route to %q (cluster not found: %q), want it to name backend_apps_be_0 and answer 500 without it", names, ra.ClusterNotFoundResponseCode)
			}

			lint, _, _ := run(t, "lint", "-f", path)
			var codes []string
			for _, code := range []string{"GWP221", "GWP401", "GWP404"} {
				if strings.Contains(lint, code) {
					codes = append(codes, code)
				}
			}
			if want := []string{tc.lintCode}; (tc.lintCode == "" && len(codes) > 0) || (tc.lintCode != "" && !slices.Equal(codes, want)) {
				t.Errorf("lint reports %q, want %q:\n%s", codes, tc.lintCode, lint)
			}

			ex, _, _ := run(t, "explain", "-f", path, "httproute/apps/r")
			share := "(1 of 1) answer 500"
			if tc.split {
				share = "(1 of 4) answer 500"
			}
			said := strings.Contains(ex, "backendRef Backend apps/be is not accepted by its controller") && strings.Contains(ex, share)
			if said != tc.refused {
				t.Errorf("explain says be's requests answer 500: %v, want %v:\n%s", said, tc.refused, ex)
			}
			if whole := strings.Contains(ex, "answers 500 to every request"); whole != (tc.refused && !tc.split) {
				t.Errorf("explain says the route answers 500 to every request: %v, want %v:\n%s", whole, tc.refused && !tc.split, ex)
			}
			bex, _, _ := run(t, "explain", "-f", path, "backend/apps/be")
			if left := strings.Contains(bex, "its cluster is left out of the Envoy config"); left != tc.refused {
				t.Errorf("explain of the Backend says its cluster is left out: %v, want %v:\n%s", left, tc.refused, bex)
			}
		})
	}
}
