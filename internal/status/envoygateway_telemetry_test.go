package status_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/status"
)

// TestEnvoyGatewayTelemetryNotAccepted: Envoy Gateway walks the
// telemetry of the EnvoyProxy in effect on each Gateway it translates
// (listener.go: processProxyObservability — access log, tracing,
// metrics, each backend cluster through processBackendRefsForTelemetry)
// and, at the first error, writes the Gateway Accepted=False
// (InvalidParameters) "Invalid <section> backendRefs in the referenced
// EnvoyProxy: <error>", the error as it is (not capitalised, no full
// stop); its provider writes no Programmed on a Gateway not accepted. The
// listeners keep their status, their routes attach. Shapes no public case
// has: each way a telemetry backend fails, the walk's order, and those
// that pass.
func TestEnvoyGatewayTelemetryNotAccepted(t *testing.T) {
	class := "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec:\n  controllerName: " + egController +
		"\n  parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: proxy, namespace: infra}\n"
	base := class + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: eg\n" +
		"  listeners: [{name: http, protocol: HTTP, port: 80}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra}\nspec:\n" +
		"  parentRefs: [{name: gw}]\n  rules: [{backendRefs: [{name: app, port: 8080}]}]\n" + svcDoc("app", "{port: 8080}")
	proxy := func(telemetry string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: proxy, namespace: infra}\nspec:\n" + telemetry
	}
	tracing := func(refs string) string {
		return "  telemetry:\n    tracing: {provider: {type: OpenTelemetry, backendRefs: [" + refs + "]}}\n"
	}
	backendDoc := func(name, spec string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: " + name + ", namespace: infra}\nspec: " + spec + "\n"
	}
	const ok = "Accepted=True/Accepted Programmed=True/Programmed"
	const invalid = "Accepted=False/InvalidParameters"
	for _, tc := range []struct {
		name, docs string
		backends   bool   // the deployment enables Backends
		want       string // the Gateway's conditions
		message    string // its Accepted message when not accepted
	}{
		{name: "a tracing Service that resolves", docs: proxy(tracing("{name: traces, port: 4317}")) + svcDoc("traces", "{port: 4317}"), want: ok},
		{name: "a missing tracing Service", docs: proxy(tracing("{name: gone, port: 4317}")), want: invalid,
			message: "Invalid tracing backendRefs in the referenced EnvoyProxy: service infra/gone not found"},
		{name: "an ExternalName Service", docs: proxy(tracing("{name: ext, port: 4317}")) +
			"---\napiVersion: v1\nkind: Service\nmetadata: {name: ext, namespace: infra}\nspec: {type: ExternalName, externalName: otel.example.com, ports: [{port: 4317}]}\n",
			want: invalid, message: "Invalid tracing backendRefs in the referenced EnvoyProxy: Service infra/ext is of type ExternalName, which is not supported as a backend; use an Envoy Gateway Backend resource with an FQDN endpoint instead"},
		{name: "a Service whose port is UDP only", docs: proxy(tracing("{name: traces, port: 4317}")) + svcDoc("traces", "{port: 4317, protocol: UDP}"),
			want: invalid, message: "Invalid tracing backendRefs in the referenced EnvoyProxy: TCP Port 4317 not found on Service infra/traces"},
		{name: "a Service whose EndpointSlices list no address", docs: proxy(tracing("{name: traces, port: 4317}")) + svcDoc("traces", "{port: 4317}") +
			"---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: traces-1, namespace: infra, labels: {kubernetes.io/service-name: traces}}\naddressType: IPv4\nports: [{port: 4317}]\nendpoints: []\n",
			want: invalid, message: "Invalid tracing backendRefs in the referenced EnvoyProxy: no ready endpoints for the related Service infra/traces"},
		{name: "… which the EnvoyProxy's Service routing does not look at", docs: strings.Replace(proxy(tracing("{name: traces, port: 4317}")), "spec:\n", "spec:\n  routingType: Service\n", 1) +
			svcDoc("traces", "{port: 4317}") +
			"---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: traces-1, namespace: infra, labels: {kubernetes.io/service-name: traces}}\naddressType: IPv4\nports: [{port: 4317}]\nendpoints: []\n",
			want: ok},
		{name: "a backendRef of another kind", docs: proxy(tracing("{group: example.com, kind: Collector, name: c, port: 4317}")), want: invalid,
			message: "Invalid tracing backendRefs in the referenced EnvoyProxy: unsupported kind for backendRefs: Collector"},
		{name: "a Backend while the deployment disables them", docs: proxy(tracing("{group: gateway.envoyproxy.io, kind: Backend, name: b, port: 4317}")) +
			backendDoc("b", "{endpoints: [{fqdn: {hostname: otel.example.com, port: 4317}}]}"),
			want: invalid, message: "Invalid tracing backendRefs in the referenced EnvoyProxy: Backend is disabled in Envoy Gateway configuration"},
		{name: "a Backend that resolves", backends: true, docs: proxy(tracing("{group: gateway.envoyproxy.io, kind: Backend, name: b, port: 4317}")) +
			backendDoc("b", "{endpoints: [{fqdn: {hostname: otel.example.com, port: 4317}}]}"), want: ok},
		{name: "a missing Backend", backends: true, docs: proxy(tracing("{group: gateway.envoyproxy.io, kind: Backend, name: b, port: 4317}")),
			want: invalid, message: "Invalid tracing backendRefs in the referenced EnvoyProxy: Backend infra/b not found"},
		{name: "a Backend Envoy Gateway refuses", backends: true, docs: proxy(tracing("{group: gateway.envoyproxy.io, kind: Backend, name: b, port: 4317}")) +
			backendDoc("b", "{endpoints: [{ip: {address: 127.0.0.1, port: 4317}}]}"),
			want: invalid, message: "Invalid tracing backendRefs in the referenced EnvoyProxy: IP address 127.0.0.1 in the loopback range is only supported when using the Host infrastructure"},
		{name: "a DynamicResolver Backend", backends: true, docs: proxy(tracing("{group: gateway.envoyproxy.io, kind: Backend, name: b, port: 4317}")) +
			backendDoc("b", "{type: DynamicResolver}"),
			want: invalid, message: "Invalid tracing backendRefs in the referenced EnvoyProxy: dynamic resolver destinations are not supported"},
		{name: "a BackendTLSPolicy whose CA ConfigMap is missing", docs: proxy(tracing("{name: traces, port: 4317}")) + svcDoc("traces", "{port: 4317}") +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: t, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: '', kind: Service, name: traces}]\n  validation: {hostname: a.example.com, caCertificateRefs: [{group: '', kind: ConfigMap, name: gone}]}\n",
			want: invalid, message: "Invalid tracing backendRefs in the referenced EnvoyProxy: configmap gone not found in namespace infra"},
		{name: "backendSettings that do not translate", docs: strings.Replace(proxy(tracing("{name: traces, port: 4317}")), "backendRefs:", "backendSettings: {timeout: {tcp: {connectTimeout: 5x}}}, backendRefs:", 1) +
			svcDoc("traces", "{port: 4317}"),
			want: invalid, message: "Invalid tracing backendRefs in the referenced EnvoyProxy: invalid ConnectTimeout value 5x"},
		{name: "an access log match that is not CEL, before a tracing Service that is missing",
			docs: proxy("  telemetry:\n    accessLog: {settings: [{matches: ['a ==(', 'b ==('], sinks: [{type: File, file: {path: /dev/stdout}}]}]}\n" +
				"    tracing: {provider: {type: OpenTelemetry, backendRefs: [{name: gone, port: 4317}]}}\n"),
			want: invalid, message: "Invalid access log backendRefs in the referenced EnvoyProxy: [invalid CEL expression: a ==(, invalid CEL expression: b ==(]"},
		{name: "a disabled access log is not walked: the metrics sink fails",
			docs: proxy("  telemetry:\n    accessLog: {disable: true, settings: [{matches: ['a ==('], sinks: [{type: File, file: {path: /dev/stdout}}]}]}\n" +
				"    metrics: {sinks: [{type: OpenTelemetry, openTelemetry: {backendRefs: [{name: gone, port: 4317}]}}]}\n"),
			want: invalid, message: "Invalid metrics backendRefs in the referenced EnvoyProxy: service infra/gone not found"},
		{name: "an access log OpenTelemetry sink whose Service is missing",
			docs: proxy("  telemetry:\n    accessLog: {settings: [{sinks: [{type: OpenTelemetry, openTelemetry: {backendRefs: [{name: gone, port: 4317}]}}]}]}\n"),
			want: invalid, message: "Invalid access log backendRefs in the referenced EnvoyProxy: service infra/gone not found"},
		{name: "a telemetry Service in another namespace needs no ReferenceGrant", docs: proxy(tracing("{name: traces, namespace: obs, port: 4317}")) +
			"---\napiVersion: v1\nkind: Service\nmetadata: {name: traces, namespace: obs}\nspec: {ports: [{port: 4317}]}\n", want: ok},
	} {
		t.Run(tc.name, func(t *testing.T) {
			settings := map[string]any{}
			if tc.backends {
				settings["envoyGateway.enableBackend"] = true
			}
			gw := gatewayStatus(t, compileWithSettings(t, base+tc.docs, settings), "gw")
			var got []string
			msg := ""
			for _, c := range gw.Conditions {
				got = append(got, c.Type+"="+c.Status+"/"+c.Reason)
				if c.Type == "Accepted" && c.Status == "False" {
					msg = c.Message
				}
			}
			slices.Sort(got)
			if strings.Join(got, " ") != tc.want {
				t.Errorf("conditions %q, want %q", got, tc.want)
			}
			if msg != tc.message {
				t.Errorf("message %q, want %q", msg, tc.message)
			}
			// the Gateway is translated all the same: its listener's status
			// is written and the route attached there
			if len(gw.Listeners) != 1 || gw.Listeners[0].AttachedRoutes != 1 {
				t.Errorf("listeners %+v, want http with its route", gw.Listeners)
			}
		})
	}
}

// svcDoc is a Service infra/name with the ports given.
func svcDoc(name, ports string) string {
	return "---\napiVersion: v1\nkind: Service\nmetadata: {name: " + name + ", namespace: infra}\nspec: {ports: [" + ports + "]}\n"
}

// gatewayStatus is the status of the Gateway named name in rep.
func gatewayStatus(t *testing.T, rep *status.Report, name string) *status.Gateway {
	t.Helper()
	for i := range rep.Gateways {
		if rep.Gateways[i].Name == name {
			return &rep.Gateways[i]
		}
	}
	t.Fatalf("no status for Gateway %s", name)
	return nil
}
