package cli

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestKgatewayCollectorBackend: a listener-level collector (the
// OpenTelemetry tracer, an OpenTelemetry or gRPC access log) or a
// GatewayExtension's gRPC service that is a kgateway Backend gets the
// Backend's own cluster, as a route's backendRef to it does (kgateway's
// ToEnvoyGrpc and ResolveExtGrpcService name backend.ClusterName());
// a Backend named with a port is not found (kgateway indexes it under
// port 0), and a backend its controller leaves out keeps no cluster
// when a setting names it. Render, lint, status and explain read the
// same verdict.
func TestKgatewayCollectorBackend(t *testing.T) {
	const base = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: kgw}\nspec: {controllerName: kgateway.dev/kgateway}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: edge}\nspec:\n  gatewayClassName: kgw\n  listeners: [{name: web, protocol: HTTP, port: 8080}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: edge}\nspec:\n  parentRefs: [{name: gw}]\n  rules: [{backendRefs: [{name: app, port: 80}]}]\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: app, namespace: edge}\nspec: {ports: [{port: 80}]}\n"
	backend := func(ns, name, extra string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: Backend\nmetadata: {name: " + name + ", namespace: " + ns + extra + "}\n" +
			"spec: {type: Static, static: {hosts: [{host: " + name + ".collect.example, port: 4317}], appProtocol: http2}}\n"
	}
	listener := func(settings string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: ListenerPolicy\nmetadata: {name: obs, namespace: edge}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  default:\n    httpSettings: " + settings + "\n"
	}
	tracer := func(ref string) string {
		return listener("{tracing: {provider: {openTelemetry: {grpcService: {backendRef: " + ref + "}, serviceName: edge}}}}")
	}
	extProc := func(ref string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: GatewayExtension\nmetadata: {name: proc, namespace: edge}\nspec:\n  extProc:\n    grpcService: {backendRef: " + ref + "}\n" +
			"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: tp, namespace: edge}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n  extProc: {extensionRef: {name: proc}}\n"
	}
	const be = "{group: gateway.kgateway.dev, kind: Backend, name: otel}"
	const dropped = ", annotations: {kgateway.dev/disable-istio-auto-mtls: perhaps}"
	for _, tc := range []struct {
		name, in string
		named    string   // the cluster the listener or filter config names
		built    []string // clusters built from a Backend (a DNS cluster, not EDS)
		absent   []string // clusters not rendered
		problem  string   // the policy's Accepted=False message, "" when accepted
	}{
		{name: "tracer to a static Backend: the Backend's cluster", in: base + backend("edge", "otel", "") + tracer(be),
			named: "backend_edge_otel_0", built: []string{"backend_edge_otel_0"}},
		{name: "OpenTelemetry access log to a Backend of another namespace a grant allows", in: base + backend("obs", "otel", "") +
			listener("{accessLog: [{openTelemetry: {grpcService: {backendRef: {group: gateway.kgateway.dev, kind: Backend, name: otel, namespace: obs}, logName: edge}}}]}") +
			"---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: obs}\nspec:\n  from: [{group: gateway.kgateway.dev, kind: ListenerPolicy, namespace: edge}]\n  to: [{group: gateway.kgateway.dev, kind: Backend}]\n",
			named: "backend_obs_otel_0", built: []string{"backend_obs_otel_0"}},
		{name: "gRPC access log and tracer share one Backend", in: base + backend("edge", "otel", "") +
			listener("{tracing: {provider: {openTelemetry: {grpcService: {backendRef: "+be+"}, serviceName: s}}}, accessLog: [{grpcService: {backendRef: "+be+", logName: edge}}]}"),
			named: "backend_edge_otel_0", built: []string{"backend_edge_otel_0"}},
		{name: "ext_proc extension to a Backend: the Backend's cluster", in: base + backend("edge", "otel", "") + extProc(be),
			named: "backend_edge_otel_0", built: []string{"backend_edge_otel_0"}},
		{name: "tracer to a Backend named with a port: not found", in: base + backend("edge", "otel", "") +
			tracer("{group: gateway.kgateway.dev, kind: Backend, name: otel, port: 4317}"),
			problem: `BackendRef to "otel" includes a port`},
		{name: "extension to a Backend named with a port: not found", in: base + backend("edge", "otel", "") +
			extProc("{group: gateway.kgateway.dev, kind: Backend, name: otel, port: 9000}"),
			problem: `BackendRef to "otel" includes a port`},
		{name: "tracer to a Backend its controller leaves out: named, no cluster", in: base + backend("edge", "otel", dropped) + tracer(be),
			named: "backend_edge_otel_0", absent: []string{"backend_edge_otel_0"}},
		{name: "OpenTelemetry access log to a Backend its controller refuses: named, no cluster", in: base +
			"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: Backend\nmetadata: {name: otel, namespace: edge}\nspec: {type: Static, static: {hosts: [{host: otel.collect.example}]}}\n" +
			listener("{accessLog: [{openTelemetry: {grpcService: {backendRef: "+be+", logName: edge}}}]}"),
			named: "backend_edge_otel_0", absent: []string{"backend_edge_otel_0"}},
		{name: "extension to a Service its controller leaves out: named, no cluster", in: base + extProc("{name: sink, port: 9090}") +
			"---\napiVersion: v1\nkind: Service\nmetadata: {name: sink, namespace: edge" + dropped + "}\nspec: {ports: [{port: 9090}]}\n",
			named: "kube_edge_sink_9090", absent: []string{"kube_edge_sink_9090"}},
		{name: "tracer to a ConfigMap: an unknown backend kind", in: base + tracer("{kind: ConfigMap, name: otel}"),
			problem: "unknown backend kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(path, []byte(tc.in), 0o600); err != nil {
				t.Fatal(err)
			}
			out, errOut, _ := run(t, "render", "-o", "json", "-f", path)
			var xds struct {
				Gateways []struct {
					Listeners           json.RawMessage
					RouteConfigurations json.RawMessage `json:"route_configurations"`
					Clusters            []map[string]any
				}
			}
			if err := json.Unmarshal([]byte(out), &xds); err != nil || len(xds.Gateways) != 1 {
				t.Fatalf("render: %v\n%s", err, errOut)
			}
			g := xds.Gateways[0]
			var config bytes.Buffer
			for _, raw := range []json.RawMessage{g.Listeners, g.RouteConfigurations} {
				if len(raw) > 0 {
					if err := json.Compact(&config, raw); err != nil {
						t.Fatal(err)
					}
				}
			}
			if tc.named != "" && !strings.Contains(config.String(), `"cluster_name":"`+tc.named+`"`) {
				t.Errorf("no gRPC service names %s:\n%s", tc.named, config.String())
			}
			clusters := map[string]map[string]any{}
			for _, c := range g.Clusters {
				name, _ := c["name"].(string)
				clusters[name] = c
			}
			for _, name := range tc.built {
				c, ok := clusters[name]
				switch {
				case !ok:
					t.Errorf("cluster %s missing: %v", name, slices.Sorted(maps.Keys(clusters)))
				case c["type"] == "EDS" || c["load_assignment"] == nil:
					t.Errorf("cluster %s is not the Backend's: %v", name, c)
				}
			}
			for _, name := range tc.absent {
				if _, ok := clusters[name]; ok {
					t.Errorf("cluster %s rendered, want it left out", name)
				}
			}
			if strings.Contains(errOut, "GWP404") {
				t.Errorf("render reports an unsupported setting:\n%s", errOut)
			}
			lint, _, _ := run(t, "lint", "-f", path)
			status, _, _ := run(t, "status", "-f", path)
			if tc.problem == "" {
				// the setting is no finding (a refused Backend is its own)
				for _, line := range strings.Split(lint, "\n") {
					if strings.Contains(line, "GWP404") || strings.Contains(line, "GWP401") && (strings.Contains(line, "grpcService") || strings.Contains(line, "GatewayExtension")) {
						t.Errorf("lint reports the setting: %s", line)
					}
				}
				if strings.Contains(status, "grpcService") || strings.Contains(status, "GatewayExtension edge/proc") {
					t.Errorf("status: a policy not accepted for its collector:\n%s", status)
				}
				return
			}
			if !strings.Contains(lint, "GWP401") || !strings.Contains(lint, tc.problem) {
				t.Errorf("lint does not report %q:\n%s", tc.problem, lint)
			}
			if !strings.Contains(status, "Invalid") || !strings.Contains(status, tc.problem) {
				t.Errorf("status does not say %q:\n%s", tc.problem, status)
			}
			if tc.named == "" && strings.Contains(config.String(), "envoy.tracers.opentelemetry") {
				t.Errorf("the tracer is rendered without its collector")
			}
			ex, _, _ := run(t, "explain", "gateway/edge/gw/web", "-f", path)
			if strings.Contains(ex, "default.httpSettings.tracing") {
				t.Errorf("explain gives the left-out tracer an owner:\n%s", ex)
			}
		})
	}
}
