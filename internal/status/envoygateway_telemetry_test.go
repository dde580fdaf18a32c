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
			got, msg := conditionsOf(gw.Conditions, "Accepted")
			if got != tc.want {
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

// TestEnvoyGatewayGatewayTLS: a Gateway's own TLS references (spec.tls),
// as Envoy Gateway reads them before its listeners (listener.go:
// ProcessGatewayTLS): its ResolvedRefs (the last failure written
// standing, else True), InsecureFrontendValidationMode for a validation
// that resolves and allows an insecure fallback, and an HTTPS listener
// refused for its port's (else the default) frontend validation whose CA
// getCaCertsFromCARefs does not read (validate.go:
// validateTLSConfiguration) — not a TLS listener, which takes none.
func TestEnvoyGatewayGatewayTLS(t *testing.T) {
	secretDoc := func(ns, name, data string) string {
		return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: " + name + ", namespace: " + ns + "}\ntype: kubernetes.io/tls\ndata: " + data + "\n"
	}
	caDoc := func(ns, name string) string {
		return "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: " + ns + "}\ndata: {ca.crt: x}\n"
	}
	gateway := func(tls string) string {
		return egClassDoc + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: eg\n" +
			"  tls:\n" + tls +
			"  listeners:\n  - {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert}]}}\n" +
			"  - {name: passthrough, protocol: TLS, port: 8443, tls: {mode: Passthrough}}\n" + secretDoc("infra", "cert", testTLS)
	}
	frontend := func(refs, mode string) string {
		return "    frontend:\n      default:\n        validation: {caCertificateRefs: [" + refs + "]" + mode + "}\n"
	}
	const listenerOK = "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs"
	for _, tc := range []struct {
		name, docs string
		gateway    string // the Gateway's ResolvedRefs and InsecureFrontendValidationMode, "reason: message"
		https      string // the HTTPS listener's conditions
		httpsMsg   string // its ResolvedRefs message when False
	}{
		{name: "a frontend CA that resolves", docs: gateway(frontend("{group: '', kind: ConfigMap, name: ca}", "")) + caDoc("infra", "ca"),
			gateway: "ResolvedRefs=True/ResolvedRefs: Successfully resolved all TLS references for the gateway", https: listenerOK},
		{name: "a frontend CA Secret whose ca.crt does not parse: read as bytes, the listener served", docs: gateway(frontend("{group: '', kind: Secret, name: ca}", "")) +
			"---\napiVersion: v1\nkind: Secret\nmetadata: {name: ca, namespace: infra}\ndata: {ca.crt: bm90IGEgcGVt}\n",
			gateway: "ResolvedRefs=True/ResolvedRefs: Successfully resolved all TLS references for the gateway", https: listenerOK},
		{name: "a frontend CA ConfigMap that is missing", docs: gateway(frontend("{group: '', kind: ConfigMap, name: ca}", "")),
			gateway:  "ResolvedRefs=False/InvalidParameters: Failed to get default frontend CA certs for gateway: configmap ca not found in namespace infra",
			https:    "Accepted=False/NoValidCACertificate Programmed=False/InvalidCACertificateRef ResolvedRefs=False/InvalidCACertificateRef",
			httpsMsg: "Listener has invalid caCertificateRef for frontend TLS validation: configmap ca not found in namespace infra"},
		{name: "a frontend CA in another namespace without a ReferenceGrant", docs: gateway(frontend("{group: '', kind: ConfigMap, name: ca, namespace: other}", "")) + caDoc("other", "ca"),
			gateway:  "ResolvedRefs=False/InvalidParameters: Failed to get default frontend CA certs for gateway: cross-namespace reference is not permitted by any ReferenceGrant for caCertificateRef /ca (kind: ConfigMap, namespace: other)",
			https:    "Accepted=False/NoValidCACertificate Programmed=False/RefNotPermitted ResolvedRefs=False/RefNotPermitted",
			httpsMsg: "Listener has invalid caCertificateRef for frontend TLS validation: cross-namespace reference is not permitted by any ReferenceGrant for caCertificateRef /ca (kind: ConfigMap, namespace: other)"},
		{name: "… and with one", docs: gateway(frontend("{group: '', kind: ConfigMap, name: ca, namespace: other}", "")) + caDoc("other", "ca") +
			"---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: other}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: infra}]\n  to: [{group: '', kind: ConfigMap}]\n",
			gateway: "ResolvedRefs=True/ResolvedRefs: Successfully resolved all TLS references for the gateway", https: listenerOK},
		{name: "no frontend CA reference of a kind it reads", docs: gateway(frontend("{group: example.com, kind: Vault, name: ca}", "")),
			gateway:  "ResolvedRefs=False/InvalidParameters: Failed to get default frontend CA certs for gateway: Unsupported reference kind, supported kinds are ConfigMap, Secret, and ClusterTrustBundle in caCertificateRefs",
			https:    "Accepted=False/NoValidCACertificate Programmed=False/InvalidCACertificateKind ResolvedRefs=False/InvalidCACertificateKind",
			httpsMsg: "Listener has invalid caCertificateRef for frontend TLS validation: Unsupported reference kind, supported kinds are ConfigMap, Secret, and ClusterTrustBundle in caCertificateRefs"},
		{name: "a port's entry without a validation turns the failing default off there", docs: gateway(frontend("{group: '', kind: ConfigMap, name: ca}", "") +
			"      perPort: [{port: 443, tls: {}}]\n"),
			gateway: "ResolvedRefs=False/InvalidParameters: Failed to get default frontend CA certs for gateway: configmap ca not found in namespace infra", https: listenerOK},
		{name: "a port's own failing validation", docs: gateway("    frontend:\n      default: {}\n      perPort: [{port: 443, tls: {validation: {caCertificateRefs: [{group: '', kind: Secret, name: gone}]}}}]\n"),
			gateway:  "ResolvedRefs=False/InvalidParameters: Failed to get frontend CA certs for gateway: secret gone not found in namespace infra",
			https:    "Accepted=False/NoValidCACertificate Programmed=False/InvalidCACertificateRef ResolvedRefs=False/InvalidCACertificateRef",
			httpsMsg: "Listener has invalid caCertificateRef for frontend TLS validation: secret gone not found in namespace infra"},
		{name: "an insecure fallback that resolves", docs: gateway(frontend("{group: '', kind: ConfigMap, name: ca}", ", mode: AllowInsecureFallback")) + caDoc("infra", "ca"),
			gateway: "InsecureFrontendValidationMode=True/ConfigurationChanged: Gateway is using AllowInsecureFallback frontend validation mode. ResolvedRefs=True/ResolvedRefs: Successfully resolved all TLS references for the gateway",
			https:   listenerOK},
		{name: "an insecure fallback that does not resolve is no insecure mode", docs: gateway(frontend("{group: '', kind: ConfigMap, name: ca}", ", mode: AllowInsecureFallback")),
			gateway:  "ResolvedRefs=False/InvalidParameters: Failed to get default frontend CA certs for gateway: configmap ca not found in namespace infra",
			https:    "Accepted=False/NoValidCACertificate Programmed=False/InvalidCACertificateRef ResolvedRefs=False/InvalidCACertificateRef",
			httpsMsg: "Listener has invalid caCertificateRef for frontend TLS validation: configmap ca not found in namespace infra"},
		{name: "a backend client certificate that resolves", docs: gateway("    backend: {clientCertificateRef: {name: client}}\n") + secretDoc("infra", "client", testTLS),
			gateway: "ResolvedRefs=True/ResolvedRefs: Successfully resolved all TLS references for the gateway", https: listenerOK},
		{name: "a backend client certificate of another kind", docs: gateway("    backend: {clientCertificateRef: {kind: ConfigMap, name: client}}\n"),
			gateway: "ResolvedRefs=False/InvalidClientCertificateRef: Invalid backend client certificate reference for gateway: invalid client certificate reference kind: ConfigMap", https: listenerOK},
		{name: "a backend client certificate in another namespace without a ReferenceGrant", docs: gateway("    backend: {clientCertificateRef: {name: client, namespace: other}}\n") + secretDoc("other", "client", testTLS),
			gateway: "ResolvedRefs=False/RefNotPermitted: invalid cross-namespace reference to backend client certificate", https: listenerOK},
		{name: "a backend client certificate Secret that is missing", docs: gateway("    backend: {clientCertificateRef: {name: client}}\n"),
			gateway: "ResolvedRefs=False/InvalidClientCertificateRef: failed to get backend client certs for gateway", https: listenerOK},
		{name: "a backend client certificate Secret without tls.key", docs: gateway("    backend: {clientCertificateRef: {name: client}}\n") + secretDoc("infra", "client", "{tls.crt: eA==}"),
			gateway: "ResolvedRefs=False/InvalidClientCertificateRef: invalid backend client cert secret for gateway: secret infra/client must contain 'tls.crt' and 'tls.key' fields", https: listenerOK},
		{name: "the frontend's and the backend's failures: the backend's, written last, stands", docs: gateway(frontend("{group: '', kind: ConfigMap, name: ca}", "") + "    backend: {clientCertificateRef: {name: client}}\n"),
			gateway:  "ResolvedRefs=False/InvalidClientCertificateRef: failed to get backend client certs for gateway",
			https:    "Accepted=False/NoValidCACertificate Programmed=False/InvalidCACertificateRef ResolvedRefs=False/InvalidCACertificateRef",
			httpsMsg: "Listener has invalid caCertificateRef for frontend TLS validation: configmap ca not found in namespace infra"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw := gatewayStatus(t, compileWithSettings(t, tc.docs, nil), "gw")
			var got []string
			for _, c := range gw.Conditions {
				if c.Type == "ResolvedRefs" || c.Type == "InsecureFrontendValidationMode" {
					got = append(got, c.Type+"="+c.Status+"/"+c.Reason+": "+c.Message)
				}
			}
			slices.Sort(got)
			if strings.Join(got, " ") != tc.gateway {
				t.Errorf("Gateway %q, want %q", got, tc.gateway)
			}
			for _, l := range gw.Listeners {
				cs, msg := conditionsOf(l.Conditions, "ResolvedRefs")
				want, wantMsg := tc.https, tc.httpsMsg
				if l.Name == "passthrough" {
					want, wantMsg = listenerOK, ""
				}
				if cs != want || msg != wantMsg {
					t.Errorf("listener %s: %q (%q), want %q (%q)", l.Name, cs, msg, want, wantMsg)
				}
			}
		})
	}
}

// conditionsOf is cs as "Type=Status/Reason", sorted and joined by
// spaces, and the message of the condition of type typ when it is False.
func conditionsOf(cs []status.Condition, typ string) (summary, falseMsg string) {
	var out []string
	for _, c := range cs {
		out = append(out, c.Type+"="+c.Status+"/"+c.Reason)
		if c.Type == typ && c.Status == "False" {
			falseMsg = c.Message
		}
	}
	slices.Sort(out)
	return strings.Join(out, " "), falseMsg
}

// TestEnvoyGatewayListenerSetConditions: the conditions Envoy Gateway
// writes on a ListenerSet (listenerset.go): refused by its Gateway
// (not accepted whole, or not allowing the set's namespace) both False
// with "Not Programmed"; attached, its Accepted from its listeners'
// Accepted alone and its Programmed from their Programmed alone — all,
// some or none. Shapes no public case has: a listener accepted but not
// programmed, a refused parent, and a set under a Gateway its telemetry
// leaves not accepted (its sets were attached before).
func TestEnvoyGatewayListenerSetConditions(t *testing.T) {
	gateway := func(extra string) string {
		return egClassDoc + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: eg\n" + extra +
			"  allowedListeners: {namespaces: {from: Same}}\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n"
	}
	set := func(ns, listeners string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\nmetadata: {name: ls, namespace: " + ns + "}\nspec:\n  parentRef: {name: gw, namespace: infra}\n  listeners:\n" + listeners
	}
	const plain = "  - {name: a, protocol: HTTP, port: 8080}\n"
	const uncertified = "  - {name: s, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: gone}]}}\n"
	for _, tc := range []struct{ name, docs, want string }{
		{name: "every listener accepted and programmed", docs: gateway("") + set("infra", plain),
			want: "Accepted=True/Accepted: All listeners are accepted; Programmed=True/Programmed: All listeners are programmed"},
		{name: "a listener accepted but not programmed (its certificate Secret missing)", docs: gateway("") + set("infra", uncertified),
			want: "Accepted=True/Accepted: All listeners are accepted; Programmed=False/ListenersNotValid: No listeners are programmed"},
		{name: "… beside one that is", docs: gateway("") + set("infra", plain+uncertified),
			want: "Accepted=True/Accepted: All listeners are accepted; Programmed=True/Programmed: Some listeners are not programmed"},
		{name: "a namespace the Gateway does not allow", docs: gateway("") + set("apps", plain),
			want: "Accepted=False/NotAllowed: ListenerSet attachment from namespace apps not allowed by Gateway infra/gw; Programmed=False/NotAllowed: Not Programmed"},
		{name: "a Gateway Envoy Gateway refuses whole", docs: gateway("  addresses: [{type: NamedAddress, value: edge}]\n") + set("infra", plain),
			want: "Accepted=False/ParentNotAccepted: Parent Gateway infra/gw not accepted; Programmed=False/Programmed: Not Programmed"},
		{name: "a Gateway not accepted for its telemetry took its sets before", docs: strings.Replace(gateway(""), "spec: {controllerName: "+egController+"}",
			"spec:\n  controllerName: "+egController+"\n  parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: proxy, namespace: infra}", 1) +
			"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: proxy, namespace: infra}\nspec:\n  telemetry:\n    tracing: {provider: {type: OpenTelemetry, backendRefs: [{name: gone, port: 4317}]}}\n" +
			set("infra", plain),
			want: "Accepted=True/Accepted: All listeners are accepted; Programmed=True/Programmed: All listeners are programmed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := compileWithSettings(t, tc.docs, nil)
			var got []string
			for _, s := range rep.ListenerSets {
				for _, c := range s.Conditions {
					got = append(got, c.Type+"="+c.Status+"/"+c.Reason+": "+c.Message)
				}
			}
			slices.Sort(got)
			if strings.Join(got, "; ") != tc.want {
				t.Errorf("ListenerSet %q, want %q", got, tc.want)
			}
		})
	}
}
