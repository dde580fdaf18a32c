package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestKgatewayBackendAnnotationDropsClusters: kgateway reads the
// kgateway.dev/disable-istio-auto-mtls annotation on every Service and
// Backend it builds clusters for, whatever enableIstioAutoMtls says, and a
// value strconv.ParseBool refuses is an error of the backend
// (ParseObjectAnnotations), which leaves its clusters out (Q12) while no
// status says so: kgateway writes none on a Service, and a Backend's
// Accepted condition reads only its own spec's errors. Render builds no
// cluster for it on kgateway's Gateways (every port of a Service), the
// route keeps the cluster's name and answers 500, explain says why, lint
// reports GWP226 at the annotations; a value ParseBool takes (TRUE, 0)
// changes nothing, and an Envoy Gateway Gateway using the same Service
// keeps its cluster. Shapes no public case has.
func TestKgatewayBackendAnnotationDropsClusters(t *testing.T) {
	const kgw = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: kgw}\nspec: {controllerName: kgateway.dev/kgateway}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: apps}\nspec:\n  gatewayClassName: kgw\n  listeners: [{name: http, protocol: HTTP, port: 80, hostname: kg.example}]\n"
	const egw = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: egw, namespace: apps}\nspec:\n  gatewayClassName: eg\n  listeners: [{name: http, protocol: HTTP, port: 80, hostname: eg.example}]\n"
	svc := func(value string) string {
		ann := ""
		if value != "-" {
			ann = ", annotations: {kgateway.dev/disable-istio-auto-mtls: \"" + value + "\"}"
		}
		return "---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: apps" + ann + "}\nspec: {ports: [{port: 80, name: http}, {port: 81, name: admin}]}\n"
	}
	backend := func(value string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: Backend\nmetadata: {name: be, namespace: apps, annotations: {kgateway.dev/disable-istio-auto-mtls: \"" + value + "\"}}\n" +
			"spec: {static: {hosts: [{host: be.example.com, port: 8080}]}}\n"
	}
	route := func(parents, ref string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: apps}\nspec:\n  parentRefs: [" + parents + "]\n  rules:\n  - backendRefs: [" + ref + "]\n"
	}
	const toSvc = "{name: svc, port: 80}"
	const toBe = "{group: gateway.kgateway.dev, kind: Backend, name: be}"
	for _, tc := range []struct {
		name, in string
		object   string   // explain's target
		dropped  []string // kgateway clusters left out
		kept     []string // clusters present
		istio    bool     // enableIstioAutoMtls on
		egKeeps  bool     // Envoy Gateway's Gateway egw keeps the first dropped cluster
	}{
		{name: "a Service annotated maybe: every port's cluster left out", in: kgw + svc("maybe") + route("{name: gw}", toSvc), object: "service/apps/svc",
			dropped: []string{"kube_apps_svc_80", "kube_apps_svc_81"}},
		{name: "an empty value is no boolean either, with Istio auto-mTLS on", in: kgw + svc("") + route("{name: gw}", toSvc), object: "service/apps/svc",
			dropped: []string{"kube_apps_svc_80", "kube_apps_svc_81"}, istio: true},
		{name: "TRUE is a boolean to ParseBool", in: kgw + svc("TRUE") + route("{name: gw}", toSvc), kept: []string{"kube_apps_svc_80"}},
		{name: "0 is a boolean to ParseBool", in: kgw + svc("0") + route("{name: gw}", toSvc), kept: []string{"kube_apps_svc_80"}, istio: true},
		{name: "a Backend annotated yes: accepted, no cluster", in: kgw + backend("yes") + route("{name: gw}", toBe), object: "backend/apps/be",
			dropped: []string{"backend_apps_be_0"}},
		{name: "a Backend annotated false: its cluster", in: kgw + backend("false") + route("{name: gw}", toBe), kept: []string{"backend_apps_be_0"}},
		{name: "a Service both controllers use: Envoy Gateway keeps its cluster", in: kgw + egw + svc("off") + route("{name: gw}, {name: egw}", toSvc), object: "service/apps/svc",
			dropped: []string{"kube_apps_svc_80"}, egKeeps: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "in.yaml")
			if err := os.WriteFile(path, []byte(tc.in), 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"-f", path}
			if tc.istio {
				cfg := filepath.Join(dir, "gwpol.yaml")
				if err := os.WriteFile(cfg, []byte("enableIstioAutoMtls: true\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--config", cfg)
			}
			out, errOut, _ := run(t, append([]string{"render", "-o", "json"}, args...)...)
			var xds struct {
				Gateways []struct {
					Gateway             struct{ Name string }
					Clusters            []struct{ Name string }
					RouteConfigurations []struct {
						VirtualHosts []struct {
							Routes []struct {
								Route struct {
									Cluster                     string
									ClusterNotFoundResponseCode string `json:"cluster_not_found_response_code"`
								}
							}
						} `json:"virtual_hosts"`
					}
				}
			}
			if err := json.Unmarshal([]byte(out), &xds); err != nil || len(xds.Gateways) == 0 {
				t.Fatalf("render: %v\n%s", err, errOut)
			}
			var clusters, routed []string
			egHas := false
			for _, g := range xds.Gateways {
				for _, c := range g.Clusters {
					if g.Gateway.Name == "egw" {
						egHas = egHas || slices.Contains(tc.dropped, c.Name)
						continue
					}
					clusters = append(clusters, c.Name)
				}
				for _, rc := range g.RouteConfigurations {
					for _, vh := range rc.VirtualHosts {
						for _, r := range vh.Routes {
							routed = append(routed, r.Route.Cluster)
							if slices.Contains(tc.dropped, r.Route.Cluster) && r.Route.ClusterNotFoundResponseCode != "INTERNAL_SERVER_ERROR" {
								t.Errorf("route to the left-out %s answers %q without it, want 500", r.Route.Cluster, r.Route.ClusterNotFoundResponseCode)
							}
						}
					}
				}
			}
			for _, c := range tc.dropped {
				if slices.Contains(clusters, c) {
					t.Errorf("cluster %s rendered, want it left out: %q", c, clusters)
				}
			}
			for _, c := range tc.kept {
				if !slices.Contains(clusters, c) {
					t.Errorf("cluster %s missing: %q", c, clusters)
				}
			}
			if egHas != tc.egKeeps {
				t.Errorf("Envoy Gateway's Gateway has the cluster %v, want %v", egHas, tc.egKeeps)
			}
			if len(tc.dropped) > 0 && !slices.Contains(routed, tc.dropped[0]) {
				t.Errorf("no route names %s: %q", tc.dropped[0], routed)
			}

			lint, _, _ := run(t, append([]string{"lint"}, args...)...)
			if got := strings.Count(lint, "GWP226"); got != min(len(tc.dropped), 1) {
				t.Errorf("lint reports GWP226 %d times, want %d:\n%s", got, min(len(tc.dropped), 1), lint)
			}
			status, _, _ := run(t, append([]string{"status", "-o", "json"}, args...)...)
			if strings.Contains(status, `"kind": "Service"`) || strings.Contains(status, `"kind":"Service"`) {
				t.Errorf("status writes a Service's status:\n%s", status)
			}
			if strings.Contains(tc.object, "backend/") && !strings.Contains(status, "Backend accepted") {
				t.Errorf("status: the Backend not accepted:\n%s", status)
			}
			if tc.object == "" {
				return
			}
			ex, _, _ := run(t, append([]string{"explain", tc.object}, args...)...)
			if !strings.Contains(ex, "left out by its controller, which says so in no status") || !strings.Contains(ex, "strconv.ParseBool") {
				t.Errorf("explain %s does not say why its cluster is left out:\n%s", tc.object, ex)
			}
			rex, _, _ := run(t, append([]string{"explain", "httproute/apps/r"}, args...)...)
			if !strings.Contains(rex, "is left out by its controller") {
				t.Errorf("explain of the route does not say its backend is left out:\n%s", rex)
			}
		})
	}
}
