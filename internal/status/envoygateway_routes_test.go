package status_test

import (
	"cmp"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/status"
)

// egRoutesBase is an Envoy Gateway platform for the route checks: the
// class, a Gateway with HTTP, TCP and UDP listeners open to every
// namespace, and a Service with a TCP and a UDP port.
var egRoutesBase = egPlatform("infra", "  listeners:\n  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}\n  - {name: tcp, protocol: TCP, port: 9000, allowedRoutes: {namespaces: {from: All}}}\n  - {name: udp, protocol: UDP, port: 5353, allowedRoutes: {namespaces: {from: All}}}\n") + `
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec:
  ports:
  - {name: http, port: 8080}
  - {name: dns, port: 53, protocol: UDP}
`

// egHTTPRoute is HTTPRoute app/r on the HTTP listener with one rule of
// the given YAML flow sequence of backendRefs.
func egHTTPRoute(backendRefs string) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n" +
		"  parentRefs: [{name: gw, namespace: infra, sectionName: http}]\n  rules:\n  - backendRefs: " + backendRefs + "\n"
}

// egBackend is Envoy Gateway Backend app/NAME with the given spec lines.
func egBackend(name, spec string) string {
	return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: " + name + ", namespace: app}\nspec:\n" + spec
}

// egStatuses prints the statuses of a report: each route parent as
// "KIND/NS/NAME @ PARENT: Type=Status/Reason …", each listener as
// "Gateway/NS/NAME#LISTENER: …", each Gateway as "Gateway/NS/NAME: …",
// each policy ancestor as "KIND/NS/NAME @ ANCESTOR: …", and the messages
// of every condition, for the checks on wording.
func egStatuses(rep *status.Report) (lines map[string]string, messages []string) {
	lines = map[string]string{}
	put := func(key string, cs []status.Condition) {
		var out []string
		for _, c := range cs {
			out = append(out, c.Type+"="+c.Status+"/"+c.Reason)
			messages = append(messages, c.Message)
		}
		slices.Sort(out)
		lines[key] = strings.Join(out, " ")
	}
	for _, g := range rep.Gateways {
		put("Gateway/"+g.Namespace+"/"+g.Name, g.Conditions)
		for _, l := range g.Listeners {
			put("Gateway/"+g.Namespace+"/"+g.Name+"#"+l.Name, l.Conditions)
		}
	}
	for _, r := range rep.Routes {
		for _, p := range r.Parents {
			put(r.Kind+"/"+r.Namespace+"/"+r.Name+" @ "+p.ParentRef.Kind+"/"+cmp.Or(p.ParentRef.Namespace, p.ResolvedNamespace)+"/"+p.ParentRef.Name, p.Conditions)
		}
	}
	for _, p := range rep.Policies {
		for _, a := range p.Ancestors {
			put(p.Kind+"/"+p.Namespace+"/"+p.Name+" @ "+a.AncestorRef.String(), a.Conditions)
		}
	}
	return lines, messages
}

const routeOnGW = "HTTPRoute/app/r @ Gateway/infra/gw"

// withProxyClientCert is egRoutesBase whose class names EnvoyProxy
// infra/proxy presenting the client certificate ref to backends, route
// app/r to the Service, a BackendTLSPolicy on the Service when tls, and
// extra.
func withProxyClientCert(ref string, tls bool, extra string) string {
	docs := strings.Replace(egRoutesBase, "spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}",
		"spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller, parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: proxy, namespace: infra}}", 1) +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: proxy, namespace: infra}\nspec:\n  backendTLS: {clientCertificateRef: " + ref + "}\n" +
		egHTTPRoute("[{name: svc, port: 8080}]") + extra
	if tls {
		docs += "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: tls, namespace: app}\nspec:\n" +
			"  targetRefs: [{group: '', kind: Service, name: svc}]\n  validation: {hostname: svc.example.com, wellKnownCACertificates: System}\n"
	}
	return docs
}

// TestEnvoyGatewayRouteChecks: the route, backendRef and listener checks
// of Envoy Gateway v1.9.0's translator (docs/controllers/envoygateway-checks.md,
// sections Gateway and listeners, routes, backendRefs, ReferenceGrant,
// BackendTLSPolicy), each on an input that makes it decide, with the
// conditions Envoy Gateway writes.
func TestEnvoyGatewayRouteChecks(t *testing.T) {
	tests := []struct {
		name string
		docs string
		want map[string]string
		// msg: some condition's message contains it
		msg string
	}{
		// backendRefs to Services
		{name: "a Service port resolves when its protocol is the route's (TCP when unset)",
			docs: egHTTPRoute("[{name: svc, port: 8080}]"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		{name: "a UDP Service port does not serve an HTTPRoute",
			docs: egHTTPRoute("[{name: svc, port: 53}]"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/PortNotFound"},
			msg:  "TCP Port 53 not found on Service app/svc"},
		{name: "a UDPRoute needs the UDP port of the Service",
			docs: "---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: UDPRoute\nmetadata: {name: u, namespace: app}\nspec:\n" +
				"  parentRefs: [{name: gw, namespace: infra, sectionName: udp}]\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n",
			want: map[string]string{"UDPRoute/app/u @ Gateway/infra/gw": "Accepted=True/Accepted ResolvedRefs=False/PortNotFound"},
			msg:  "UDP Port 8080 not found on Service app/svc"},
		{name: "a Service not in the input",
			docs: egHTTPRoute("[{name: nowhere, port: 8080}]"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/BackendNotFound"},
			msg:  "service app/nowhere not found"},
		{name: "a Service backendRef without a port",
			docs: egHTTPRoute("[{name: svc}]"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/PortNotSpecified"}},
		{name: "an ExternalName Service",
			docs: egHTTPRoute("[{name: ext, port: 80}]") + "---\napiVersion: v1\nkind: Service\nmetadata: {name: ext, namespace: app}\nspec: {type: ExternalName, externalName: example.com, ports: [{port: 80}]}\n",
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/UnsupportedValue"}},
		{name: "a backendRef group Envoy Gateway does not serve",
			docs: egHTTPRoute("[{group: example.com, kind: Thing, name: x, port: 80}]"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidKind"},
			msg:  "Group is invalid"},
		{name: "a backendRef kind Envoy Gateway does not serve",
			docs: egHTTPRoute("[{group: '', kind: ConfigMap, name: x, port: 80}]"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidKind"},
			msg:  "Kind is invalid"},
		{name: "two problems of one condition carry both reasons, sorted",
			docs: egHTTPRoute("[{name: svc, port: 9999}, {name: nowhere, port: 8080}]"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/BackendNotFound,PortNotFound"}},
		// a backendRef's own filters (processDestinationFilters)
		{name: "a backendRef's header filter that sets the Host header refuses the backendRef",
			docs: egHTTPRoute("[{name: svc, port: 8080, filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: Host, value: a.example.com}]}}]}]"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidBackendFilters"},
			msg:  "Failed to process route rule 0 backendRef 0: RequestHeaderModifier Filter did not provide valid configuration"},
		{name: "every invalid filter of a backendRef is said, one per line",
			docs: egHTTPRoute("[{name: svc, port: 8080, filters: [{type: RequestHeaderModifier, requestHeaderModifier: {remove: [':path']}}, " +
				"{type: ResponseHeaderModifier, responseHeaderModifier: {add: [{name: x-a, value: 'a  b'}]}}]}]"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidBackendFilters"},
			msg:  "ResponseHeaderModifier Filter did not provide valid configuration to add/remove any headers."},
		{name: "a backendRef of weight 0 has no destination, so its filters are not processed",
			docs: egHTTPRoute("[{name: svc, port: 8080}, {name: svc, port: 8080, weight: 0, filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: Host, value: a.example.com}]}}]}]"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		{name: "a backendRef's valid filters pass",
			docs: egHTTPRoute("[{name: svc, port: 8080, filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x-a, value: b}]}}, {type: URLRewrite, urlRewrite: {hostname: b.example.com}}]}]"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		// the client certificate of the Gateway's EnvoyProxy (applyBackendTLSSetting)
		{name: "the EnvoyProxy's client certificate Secret is missing: a backend reached over TLS is refused",
			docs: withProxyClientCert("{name: client}", true, ""),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidBackendTLS"},
			msg:  "failed to locate TLS secret for client auth: infra/client specified in EnvoyProxy infra/proxy"},
		{name: "the EnvoyProxy's client certificate Secret in another namespace",
			docs: withProxyClientCert("{name: client, namespace: app}", true, "---\napiVersion: v1\nkind: Secret\nmetadata: {name: client, namespace: app}\ntype: kubernetes.io/tls\nstringData: {tls.crt: c, tls.key: k}\n"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidBackendTLS"},
			msg:  "ClientCertificateRef Secret is not located in the same namespace as EnvoyProxy. Secret namespace: app does not match EnvoyProxy namespace: infra"},
		{name: "the EnvoyProxy's client certificate Secret exists",
			docs: withProxyClientCert("{name: client}", true, "---\napiVersion: v1\nkind: Secret\nmetadata: {name: client, namespace: infra}\ntype: kubernetes.io/tls\nstringData: {tls.crt: c, tls.key: k}\n"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		{name: "the EnvoyProxy's client certificate is not read for a backend reached without TLS",
			docs: withProxyClientCert("{name: client}", false, ""),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		// ReferenceGrant
		{name: "a backendRef to another namespace without a ReferenceGrant",
			docs: egHTTPRoute("[{name: svc, namespace: other, port: 8080}]") + "---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: other}\nspec: {ports: [{port: 8080}]}\n",
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/RefNotPermitted"},
			msg:  "Backend ref to Service other/svc not permitted by any ReferenceGrant"},
		{name: "a ReferenceGrant from the route's kind and namespace permits the backendRef",
			docs: egHTTPRoute("[{name: svc, namespace: other, port: 8080}]") + "---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: other}\nspec: {ports: [{port: 8080}]}\n" +
				"---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: other}\nspec:\n" +
				"  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: app}]\n  to: [{group: '', kind: Service}]\n",
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		{name: "a ReferenceGrant for another route kind does not permit the backendRef",
			docs: egHTTPRoute("[{name: svc, namespace: other, port: 8080}]") + "---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: other}\nspec: {ports: [{port: 8080}]}\n" +
				"---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: other}\nspec:\n" +
				"  from: [{group: gateway.networking.k8s.io, kind: GRPCRoute, namespace: app}]\n  to: [{group: '', kind: Service}]\n",
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/RefNotPermitted"}},
		{name: "a ReferenceGrant naming another object does not permit the backendRef",
			docs: egHTTPRoute("[{name: svc, namespace: other, port: 8080}]") + "---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: other}\nspec: {ports: [{port: 8080}]}\n" +
				"---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: other}\nspec:\n" +
				"  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: app}]\n  to: [{group: '', kind: Service, name: another}]\n",
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/RefNotPermitted"}},
		// ServiceImport
		{name: "a ServiceImport not in the input",
			docs: egHTTPRoute("[{group: multicluster.x-k8s.io, kind: ServiceImport, name: si, port: 8080}]"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/BackendNotFound"},
			msg:  "service import app/si not found"},
		{name: "a ServiceImport without the port",
			docs: egHTTPRoute("[{group: multicluster.x-k8s.io, kind: ServiceImport, name: si, port: 8080}]") +
				"---\napiVersion: multicluster.x-k8s.io/v1alpha1\nkind: ServiceImport\nmetadata: {name: si, namespace: app}\nspec: {type: ClusterSetIP, ports: [{port: 9090, protocol: TCP}]}\n",
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/PortNotFound"},
			msg:  "TCP port 8080 not found on service import app/si"},
		{name: "a ServiceImport with the port resolves",
			docs: egHTTPRoute("[{group: multicluster.x-k8s.io, kind: ServiceImport, name: si, port: 8080}]") +
				"---\napiVersion: multicluster.x-k8s.io/v1alpha1\nkind: ServiceImport\nmetadata: {name: si, namespace: app}\nspec: {type: ClusterSetIP, ports: [{port: 8080, protocol: TCP}]}\n",
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		// backendRef filters
		{name: "a backendRef URLRewrite with a path modifier",
			docs: "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra, sectionName: http}]\n" +
				"  rules:\n  - backendRefs:\n    - name: svc\n      port: 8080\n      filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /x}}}]\n",
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/UnsupportedRefValue"},
			msg:  "URLRewrite path modifier is not supported within BackendRef"},
		{name: "a backendRef URLRewrite of the hostname is served",
			docs: "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra, sectionName: http}]\n" +
				"  rules:\n  - backendRefs:\n    - name: svc\n      port: 8080\n      filters: [{type: URLRewrite, urlRewrite: {hostname: a.example.com}}]\n",
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		{name: "a backendRef RequestMirror filter on an HTTPRoute",
			docs: "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra, sectionName: http}]\n" +
				"  rules:\n  - backendRefs:\n    - name: svc\n      port: 8080\n      filters: [{type: RequestMirror, requestMirror: {backendRef: {name: svc, port: 8080}}}]\n",
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/UnsupportedRefValue"},
			msg:  "only RequestHeaderModifier, ResponseHeaderModifier, URLRewrite and gateway.envoyproxy.io/HTTPRouteFilter are supported"},
		{name: "a GRPCRoute backendRef may carry header modifiers only",
			docs: "---\napiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: g, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra, sectionName: http}]\n" +
				"  rules:\n  - backendRefs:\n    - name: svc\n      port: 8080\n      filters: [{type: RequestMirror, requestMirror: {backendRef: {name: svc, port: 8080}}}]\n",
			want: map[string]string{"GRPCRoute/app/g @ Gateway/infra/gw": "Accepted=True/Accepted ResolvedRefs=False/UnsupportedRefValue"},
			msg:  "only RequestHeaderModifier and ResponseHeaderModifier are supported"},
		// Envoy Gateway Backends
		{name: "a DynamicResolver Backend with endpoints",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}]") +
				egBackend("b", "  type: DynamicResolver\n  endpoints: [{fqdn: {hostname: a.example.com, port: 443}}]\n"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidBackendRef"},
			msg:  "DynamicResolver type cannot have endpoints specified"},
		{name: "a DynamicResolver Backend beside another backendRef",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}, {name: svc, port: 8080}]") +
				egBackend("b", "  type: DynamicResolver\n"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidBackendRef"},
			msg:  "dynamic resolver is not supported for multiple backendRefs"},
		{name: "a DynamicResolver Backend alone is served",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}]") + egBackend("b", "  type: DynamicResolver\n"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		{name: "a Backend with TLS that verifies and no CA",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}]") +
				egBackend("b", "  endpoints: [{fqdn: {hostname: a.example.com, port: 443}}]\n  tls: {sni: a.example.com}\n"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidBackendRef"},
			msg:  "must specify either CACertificateRefs or WellKnownCACertificates"},
		{name: "a Backend with TLS that skips verification needs no CA",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}]") +
				egBackend("b", "  endpoints: [{fqdn: {hostname: a.example.com, port: 443}}]\n  tls: {insecureSkipVerify: true}\n"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		{name: "a Backend with TLS takes its CA from a BackendTLSPolicy on the whole Backend",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}]") +
				egBackend("b", "  endpoints: [{fqdn: {hostname: a.example.com, port: 443}}]\n  tls: {sni: a.example.com}\n") +
				egBTLS("whole", "{group: gateway.envoyproxy.io, kind: Backend, name: b}"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		{name: "a Backend with TLS is covered by one BackendTLSPolicy per endpoint port",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b, port: 443}]") +
				egBackend("b", "  endpoints: [{fqdn: {hostname: a.example.com, port: 443}}, {fqdn: {hostname: b.example.com, port: 8443}}]\n  tls: {sni: a.example.com}\n") +
				egBTLS("p443", "{group: gateway.envoyproxy.io, kind: Backend, name: b, sectionName: '443'}") +
				egBTLS("p8443", "{group: gateway.envoyproxy.io, kind: Backend, name: b, sectionName: '8443'}"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		// The Backend's validation counts the per-port policies, but a
		// backendRef without a port meets none of them when its
		// destination is built: no CA (applyBackendTLSSetting).
		{name: "a Backend covered per endpoint port, reached by a backendRef without a port",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}]") +
				egBackend("b", "  endpoints: [{fqdn: {hostname: a.example.com, port: 443}}, {fqdn: {hostname: b.example.com, port: 8443}}]\n  tls: {sni: a.example.com}\n") +
				egBTLS("p443", "{group: gateway.envoyproxy.io, kind: Backend, name: b, sectionName: '443'}") +
				egBTLS("p8443", "{group: gateway.envoyproxy.io, kind: Backend, name: b, sectionName: '8443'}"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidBackendTLS"},
			msg:  "Failed to process route rule 0 backendRef 0: CACertificate must be specified when InsecureSkipVerify is false."},
		{name: "a BackendTLSPolicy on the Service whose CA ConfigMap is not in the input",
			docs: egHTTPRoute("[{name: svc, port: 8080}]") +
				"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: app}\nspec: {ports: [{name: http, port: 8080}]}\n" +
				"---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: p, namespace: app}\nspec:\n" +
				"  targetRefs: [{group: '', kind: Service, name: svc}]\n  validation: {hostname: a.example.com, caCertificateRefs: [{group: '', kind: ConfigMap, name: nope}]}\n",
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidBackendTLS"},
			msg:  "Failed to process route rule 0 backendRef 0: configmap nope not found in namespace app."},
		{name: "a Backend with TLS and a BackendTLSPolicy on one of its two ports",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}]") +
				egBackend("b", "  endpoints: [{fqdn: {hostname: a.example.com, port: 443}}, {fqdn: {hostname: b.example.com, port: 8443}}]\n  tls: {sni: a.example.com}\n") +
				egBTLS("p443", "{group: gateway.envoyproxy.io, kind: Backend, name: b, sectionName: '443'}"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidBackendRef"}},
		{name: "a Backend's client certificate in another namespace",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}]") +
				egBackend("b", "  endpoints: [{fqdn: {hostname: a.example.com, port: 443}}]\n  tls:\n    insecureSkipVerify: true\n    clientCertificateRef: {name: client, namespace: other}\n"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidBackendRef"},
			msg:  "clientCertificateRef Secret is not located in the same namespace as Backend"},
		{name: "a Backend FQDN that is an IP address",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}]") +
				egBackend("b", "  endpoints: [{fqdn: {hostname: 10.1.2.3, port: 443}}]\n"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidAddress"},
			msg:  "hostname 10.1.2.3 is an IP address"},
		{name: "a Backend FQDN of one label",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}]") +
				egBackend("b", "  endpoints: [{fqdn: {hostname: backend, port: 443}}]\n"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidAddress"},
			msg:  "should be a domain with at least two segments"},
		{name: "a Backend endpoint hostname is checked like an FQDN",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}]") +
				egBackend("b", "  endpoints: [{hostname: backend, ip: {address: 10.0.0.1, port: 443}}]\n"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidAddress"}},
		{name: "a Backend IP in the loopback range",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}]") +
				egBackend("b", "  endpoints: [{ip: {address: 127.0.0.1, port: 443}}]\n"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/InvalidAddress"},
			msg:  "in the loopback range is only supported when using the Host infrastructure"},
		{name: "a Backend Unix socket",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}]") +
				egBackend("b", "  endpoints: [{unix: {path: /var/run/x.sock}}]\n"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/UnsupportedAddressType"}},
		{name: "a Backend not in the input",
			docs: egHTTPRoute("[{group: gateway.envoyproxy.io, kind: Backend, name: b}]"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/BackendNotFound"}},
		// TCPRoute and UDPRoute
		{name: "a TCPRoute of two rules is not accepted",
			docs: "---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TCPRoute\nmetadata: {name: t, namespace: app}\nspec:\n" +
				"  parentRefs: [{name: gw, namespace: infra, sectionName: tcp}]\n  rules: [{backendRefs: [{name: svc, port: 8080}]}, {backendRefs: [{name: svc, port: 8080}]}]\n",
			want: map[string]string{"TCPRoute/app/t @ Gateway/infra/gw": "Accepted=False/InvalidRule"},
			msg:  "One and only one rule is supported"},
		{name: "a TCPRoute of one rule is accepted",
			docs: "---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TCPRoute\nmetadata: {name: t, namespace: app}\nspec:\n" +
				"  parentRefs: [{name: gw, namespace: infra, sectionName: tcp}]\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n",
			want: map[string]string{"TCPRoute/app/t @ Gateway/infra/gw": "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		{name: "a UDPRoute of two rules is not accepted",
			docs: "---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: UDPRoute\nmetadata: {name: u, namespace: app}\nspec:\n" +
				"  parentRefs: [{name: gw, namespace: infra, sectionName: udp}]\n  rules: [{backendRefs: [{name: svc, port: 53}]}, {backendRefs: [{name: svc, port: 53}]}]\n",
			want: map[string]string{"UDPRoute/app/u @ Gateway/infra/gw": "Accepted=False/InvalidRule"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, msgs := egStatuses(compileWithBackend(t, egRoutesBase+tc.docs))
			for key, want := range tc.want {
				if got[key] != want {
					t.Errorf("%s:\n got  %s\n want %s", key, got[key], want)
				}
			}
			if tc.msg != "" && !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, tc.msg) }) {
				t.Errorf("no condition message contains %q; messages:\n%s", tc.msg, strings.Join(msgs, "\n"))
			}
		})
	}
}

// compileWithBackend is compile in an Envoy Gateway deployment that
// enables its Backend kind (extensionApis.enableBackend, off by default).
func compileWithBackend(t *testing.T, docs string) *status.Report {
	t.Helper()
	return compileWithSettings(t, docs, map[string]any{"envoyGateway.enableBackend": true})
}

// compileWithSettings is compile with the given deployment settings.
func compileWithSettings(t *testing.T, docs string, settings map[string]any) *status.Report {
	t.Helper()
	objs, err := manifest.Parse("test.yaml", []byte(docs), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &pipeline.Config{Namespace: "default", Settings: settings}
	return status.Compute(families.Compile(&manifest.Set{Objects: objs}, cfg).Result, status.Options{})
}

// TestEnvoyGatewaySDSSecretRef: with extensionApis.enableSDSSecretRef a
// listener may name an SDS reference Secret, which needs a secretName and
// a unix:// url (ir.NewSDSConfig).
func TestEnvoyGatewaySDSSecretRef(t *testing.T) {
	sds := func(data string) string {
		return egRoutesBase + egGateway("  - {name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: sds}]}}\n") +
			"---\napiVersion: v1\nkind: Secret\nmetadata: {name: sds, namespace: infra}\ntype: gateway.envoyproxy.io/sds\nstringData: " + data + "\n"
	}
	on := map[string]any{"envoyGateway.extensionApis.enableSDSSecretRef": true}
	for _, tc := range []struct{ name, data, want, msg string }{
		{"valid", "{secretName: web, url: 'unix:///var/run/sds.sock'}", "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs", ""},
		{"no url", "{secretName: web}", "Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=False/InvalidCertificateRef", "no url found in SDS reference secret infra/sds"},
		{"an https url", "{secretName: web, url: 'https://sds.example.com'}", "Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=False/InvalidCertificateRef", "unsupported URL scheme: https"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, msgs := egStatuses(compileWithSettings(t, sds(tc.data), on))
			if got["Gateway/infra/g#a"] != tc.want {
				t.Errorf("got %s, want %s", got["Gateway/infra/g#a"], tc.want)
			}
			if tc.msg != "" && !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, tc.msg) }) {
				t.Errorf("no condition message contains %q; messages:\n%s", tc.msg, strings.Join(msgs, "\n"))
			}
		})
	}
}

// egBTLS is a BackendTLSPolicy app/NAME on target with a well-known CA.
func egBTLS(name, target string) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: " + name + ", namespace: app}\nspec:\n" +
		"  targetRefs: [" + target + "]\n  validation: {wellKnownCACertificates: System, hostname: a.example.com}\n"
}

// egGateway is Gateway infra/g of Envoy Gateway's class with the given
// listeners (a YAML block at two spaces' indent).
func egGateway(listeners string) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: g, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners:\n" + listeners
}

// egRouteTo is HTTPRoute app/r with the given parentRef and hostnames.
func egRouteTo(parentRef, hostnames string) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n  parentRefs: [" + parentRef + "]\n" +
		"  hostnames: " + hostnames + "\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n"
}

const routeOnG = "HTTPRoute/app/r @ Gateway/infra/g"

// TestEnvoyGatewayListenerChecks: the listener checks of Envoy Gateway
// v1.9.0 (listener.go: validateListenerSpec, ProcessListeners; validate.go:
// validateListenerConditions, validateAllowedRoutes, validateTLSConfiguration,
// the conflict checks) and how a route's parentRef selects and is allowed
// by listeners (route.go: processAllowedListenersForParentRefs; helpers.go:
// GetReferencedListeners, computeHosts), with the conditions Envoy Gateway
// writes.
func TestEnvoyGatewayListenerChecks(t *testing.T) {
	secret := "---\napiVersion: v1\nkind: Secret\nmetadata: {name: cert, namespace: infra}\ntype: kubernetes.io/tls\ndata: " + testTLS + "\n"
	tests := []struct {
		name, docs string
		want       map[string]string
		msg        string
	}{
		{name: "a listener Envoy Gateway translates",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80}\n"),
			want: map[string]string{"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs"}},
		{name: "a protocol Envoy Gateway does not serve",
			docs: egGateway("  - {name: a, protocol: FOO, port: 80}\n"),
			want: map[string]string{"Gateway/infra/g#a": "Accepted=False/UnsupportedProtocol Programmed=False/Invalid ResolvedRefs=True/ResolvedRefs"}},
		{name: "an allowedRoutes kind of another group",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, allowedRoutes: {kinds: [{group: example.com, kind: HTTPRoute}]}}\n"),
			want: map[string]string{"Gateway/infra/g#a": "Programmed=False/Invalid ResolvedRefs=False/InvalidRouteKinds"},
			msg:  "Group is not supported, group must be gateway.networking.k8s.io"},
		{name: "an allowedRoutes kind the protocol does not carry",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, allowedRoutes: {kinds: [{kind: TCPRoute}]}}\n"),
			want: map[string]string{"Gateway/infra/g#a": "Programmed=False/Invalid ResolvedRefs=False/InvalidRouteKinds"},
			msg:  "TCPRoute is not supported, kind must be one of [HTTPRoute GRPCRoute]"},
		{name: "a certificate Secret not in the input",
			docs: egGateway("  - {name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: missing}]}}\n"),
			want: map[string]string{"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=False/InvalidCertificateRef"},
			msg:  "No valid secrets exist: certificate refs 0: Secret infra/missing does not exist."},
		{name: "a certificate Secret in another namespace without a ReferenceGrant",
			docs: egGateway("  - {name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert, namespace: other}]}}\n") +
				"---\napiVersion: v1\nkind: Secret\nmetadata: {name: cert, namespace: other}\ntype: kubernetes.io/tls\ndata: " + testTLS + "\n",
			want: map[string]string{"Gateway/infra/g#a": "Programmed=False/Invalid ResolvedRefs=False/RefNotPermitted"},
			msg:  "certificate refs 0: Certificate ref to secret other/cert not permitted by any ReferenceGrant."},
		{name: "a certificate Secret with a ReferenceGrant to the Gateway",
			docs: egGateway("  - {name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert, namespace: other}]}}\n") +
				"---\napiVersion: v1\nkind: Secret\nmetadata: {name: cert, namespace: other}\ntype: kubernetes.io/tls\ndata: " + testTLS + "\n" +
				"---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: other}\nspec:\n" +
				"  from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: infra}]\n  to: [{group: '', kind: Secret}]\n",
			want: map[string]string{"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs"}},
		{name: "two listeners of different protocols on one port",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80}\n  - {name: b, protocol: TCP, port: 80}\n"),
			want: map[string]string{"Gateway/infra/g#a": "Conflicted=True/ProtocolConflict Programmed=False/Invalid ResolvedRefs=True/ResolvedRefs", "Gateway/infra/g#b": "Conflicted=True/ProtocolConflict Programmed=False/Invalid ResolvedRefs=True/ResolvedRefs"},
			msg:  "All listeners for a given port must use a compatible protocol, conflicting listeners: infra/g/a, infra/g/b"},
		{name: "an allowedRoutes namespace selector that does not parse",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: Selector, selector: {matchExpressions: [{key: team, operator: In, values: []}]}}}}\n"),
			want: map[string]string{"Gateway/infra/g#a": "Programmed=False/Invalid ResolvedRefs=True/ResolvedRefs"},
			msg:  "The allowedRoutes.namespaces.selector could not be parsed: "},
		{name: "an allowedRoutes namespace selector that parses",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: Selector, selector: {matchExpressions: [{key: team, operator: Exists}]}}}}\n"),
			want: map[string]string{"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs"}},
		{name: "a UDP listener is served",
			docs: egGateway("  - {name: a, protocol: UDP, port: 53}\n"),
			want: map[string]string{"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs"}},
		{name: "a certificate Secret that is not of type kubernetes.io/tls",
			docs: egGateway("  - {name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: opaque}]}}\n") +
				"---\napiVersion: v1\nkind: Secret\nmetadata: {name: opaque, namespace: infra}\ndata: {tls.crt: eA==, tls.key: eA==}\n",
			want: map[string]string{"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=False/InvalidCertificateRef"},
			msg:  "must be of type kubernetes.io/tls"},
		{name: "a certificate Secret without tls.key",
			docs: egGateway("  - {name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: half}]}}\n") +
				"---\napiVersion: v1\nkind: Secret\nmetadata: {name: half, namespace: infra}\ntype: kubernetes.io/tls\ndata: {tls.crt: eA==}\n",
			want: map[string]string{"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=False/InvalidCertificateRef"},
			msg:  "must contain tls.crt and tls.key"},
		// the certificates' content (tls.go: parseCertsFromTLSSecretsData)
		{name: "an expired certificate",
			docs: egGateway("  - {name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: old}]}}\n") +
				"---\napiVersion: v1\nkind: Secret\nmetadata: {name: old, namespace: infra}\ntype: kubernetes.io/tls\ndata: " + testExpiredTLS + "\n",
			want: map[string]string{"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=False/InvalidCertificateRef"},
			msg:  "infra/old must contain valid tls.crt and tls.key, unable to validate certificate in tls.crt: the certificate in PEM block 1 has expired since"},
		{name: "a key that is not the certificate's",
			docs: egGateway("  - {name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: mixed}]}}\n") +
				"---\napiVersion: v1\nkind: Secret\nmetadata: {name: mixed, namespace: infra}\ntype: kubernetes.io/tls\ndata: " + testMismatchedTLS + "\n",
			want: map[string]string{"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=False/InvalidCertificateRef"},
			msg:  "the private key in tls.key does not match the certificate in tls.crt"},
		{name: "an expired certificate beside a valid one",
			docs: egGateway("  - {name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert}, {name: old}]}}\n") + secret +
				"---\napiVersion: v1\nkind: Secret\nmetadata: {name: old, namespace: infra}\ntype: kubernetes.io/tls\ndata: " + testExpiredTLS + "\n",
			want: map[string]string{"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=False/PartiallyInvalidCertificateRef"}},
		{name: "two certificates of one algorithm for one domain",
			docs: egGateway("  - {name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert}, {name: again}]}}\n") + secret +
				"---\napiVersion: v1\nkind: Secret\nmetadata: {name: again, namespace: infra}\ntype: kubernetes.io/tls\ndata: " + testTLS + "\n",
			want: map[string]string{"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=False/PartiallyInvalidCertificateRef"},
			msg:  "infra/again public key algorithm must be unique, a certificate domain of it has a conflicting algorithm [ECDSA]"},
		{name: "an SDS reference Secret, which the deployment does not enable",
			docs: egGateway("  - {name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: sds}]}}\n") +
				"---\napiVersion: v1\nkind: Secret\nmetadata: {name: sds, namespace: infra}\ntype: gateway.envoyproxy.io/sds\nstringData: {secretName: web, url: 'unix:///var/run/sds.sock'}\n",
			want: map[string]string{"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=False/InvalidCertificateRef"},
			msg:  "SDS Secret infra/sds cannot be used because SDS Secret references are not enabled in EnvoyGateway configuration"},
		{name: "one certificate of two resolves",
			docs: egGateway("  - {name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert}, {name: missing}]}}\n"),
			want: map[string]string{"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=False/PartiallyInvalidCertificateRef"},
			msg:  "Some secrets are invalid: certificate refs 1: Secret infra/missing does not exist."},
		{name: "HTTPS and TLS listeners share a port",
			docs: egGateway("  - {name: a, protocol: HTTPS, port: 443, hostname: a.example.com, tls: {certificateRefs: [{name: cert}]}}\n  - {name: b, protocol: TLS, port: 443, hostname: b.example.com, tls: {mode: Passthrough}}\n"),
			want: map[string]string{
				"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs",
				"Gateway/infra/g#b": "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs"}},
		{name: "a UDP listener shares a port with a TCP listener",
			docs: egGateway("  - {name: a, protocol: TCP, port: 53}\n  - {name: b, protocol: UDP, port: 53}\n"),
			want: map[string]string{
				"Gateway/infra/g#a": "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs",
				"Gateway/infra/g#b": "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs"}},
		// how a parentRef selects listeners and they allow the route
		{name: "a parentRef sectionName that names no listener",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80}\n") + egRouteTo("{name: g, namespace: infra, sectionName: nope}", "[]"),
			want: map[string]string{routeOnG: "Accepted=False/NoMatchingParent ResolvedRefs=True/ResolvedRefs"},
			msg:  "No listeners match this parent ref"},
		{name: "a parentRef port that no listener has",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}\n") + egRouteTo("{name: g, namespace: infra, port: 81}", "[]"),
			want: map[string]string{routeOnG: "Accepted=False/NoMatchingParent ResolvedRefs=True/ResolvedRefs"}},
		{name: "a route from another namespace on a listener allowing its own",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80}\n") + egRouteTo("{name: g, namespace: infra}", "[]"),
			want: map[string]string{routeOnG: "Accepted=False/NotAllowedByListeners ResolvedRefs=True/ResolvedRefs"},
			msg:  "No listeners included by this parent ref allowed this attachment."},
		{name: "a route kind the listener does not allow",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}, kinds: [{kind: GRPCRoute}]}}\n") + egRouteTo("{name: g, namespace: infra}", "[]"),
			want: map[string]string{routeOnG: "Accepted=False/NotAllowedByListeners ResolvedRefs=True/ResolvedRefs"}},
		{name: "a route in a namespace the selector picks",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {team: a}}}}}\n") +
				egRouteTo("{name: g, namespace: infra}", "[]") + "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: app, labels: {team: a}}\n",
			want: map[string]string{routeOnG: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		{name: "route hostnames that intersect no listener hostname",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, hostname: a.example.com, allowedRoutes: {namespaces: {from: All}}}\n") + egRouteTo("{name: g, namespace: infra}", "[b.example.com]"),
			want: map[string]string{routeOnG: "Accepted=False/NoMatchingListenerHostname ResolvedRefs=True/ResolvedRefs"},
			msg:  "There were no hostname intersections between the HTTPRoute and this parent ref's Listener(s)."},
		{name: "a wildcard listener hostname takes a route hostname one label or more below it",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, hostname: '*.example.com', allowedRoutes: {namespaces: {from: All}}}\n") + egRouteTo("{name: g, namespace: infra}", "[a.b.example.com]"),
			want: map[string]string{routeOnG: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		{name: "a wildcard listener hostname does not take its own apex",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, hostname: '*.example.com', allowedRoutes: {namespaces: {from: All}}}\n") + egRouteTo("{name: g, namespace: infra}", "[example.com]"),
			want: map[string]string{routeOnG: "Accepted=False/NoMatchingListenerHostname ResolvedRefs=True/ResolvedRefs"}},
		{name: "a wildcard route hostname takes a listener hostname below it",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, hostname: a.example.com, allowedRoutes: {namespaces: {from: All}}}\n") + egRouteTo("{name: g, namespace: infra}", "['*.example.com']"),
			want: map[string]string{routeOnG: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, msgs := egStatuses(compile(t, egRoutesBase+secret+tc.docs))
			for key, want := range tc.want {
				if got[key] != want {
					t.Errorf("%s:\n got  %s\n want %s", key, got[key], want)
				}
			}
			if tc.msg != "" && !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, tc.msg) }) {
				t.Errorf("no condition message contains %q; messages:\n%s", tc.msg, strings.Join(msgs, "\n"))
			}
		})
	}
}

// TestClientTrafficPolicyHTTP10DefaultHost: a ClientTrafficPolicy's
// http1.http10.useDefaultHost needs a default host on every HTTP listener
// it covers: the listener's own hostname unless it is a wildcard, else the
// one route (per hostname, rule and match, as Envoy Gateway's IR counts
// them) with a hostname that is not (clienttrafficpolicy.go:
// translateHTTP1Settings). It depends on the routes attached, so the
// status run decides it, per target.
func TestClientTrafficPolicyHTTP10DefaultHost(t *testing.T) {
	const policyOn = "ClientTrafficPolicy/infra/p @ Gateway/infra/g"
	ctp := func(section, extra string) string {
		ref := "{group: gateway.networking.k8s.io, kind: Gateway, name: g"
		if section != "" {
			ref += ", sectionName: " + section
		}
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: p, namespace: infra}\nspec:\n" +
			"  targetRefs: [" + ref + "}]\n  http1: {http10: {useDefaultHost: true}}\n" + extra
	}
	route := func(name, hostnames, rules string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: app}\nspec:\n" +
			"  parentRefs: [{name: g, namespace: infra}]\n  hostnames: " + hostnames + "\n  rules: " + rules + "\n"
	}
	const oneRule = "[{backendRefs: [{name: svc, port: 8080}]}]"
	const twoRules = "[{matches: [{path: {value: /a}}], backendRefs: [{name: svc, port: 8080}]}, {matches: [{path: {value: /b}}], backendRefs: [{name: svc, port: 8080}]}]"
	const open = "allowedRoutes: {namespaces: {from: All}}"
	const only = "HTTP1: cannot set http10 default host on listener with only wildcard hostnames."
	const several = "HTTP1: cannot set http10 default host on listener with only wildcard hostnames and more than one possible default route."
	tests := []struct {
		name, docs, want, msg string
	}{
		{name: "a listener hostname without a wildcard is the default host",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, hostname: a.example.com, "+open+"}\n") + ctp("", ""),
			want: "Accepted=True/Accepted"},
		{name: "a listener without a hostname and no route",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, "+open+"}\n") + ctp("", ""),
			want: "Accepted=False/Invalid", msg: only},
		{name: "a wildcard listener with one route of one hostname and one rule",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, hostname: '*.example.com', "+open+"}\n") + ctp("", "") + route("r", "[a.example.com]", oneRule),
			want: "Accepted=True/Accepted"},
		{name: "one route whose two rules are two possible default routes",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, "+open+"}\n") + ctp("", "") + route("r", "[a.example.com]", twoRules),
			want: "Accepted=False/Invalid", msg: several},
		{name: "two routes with hostnames",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, "+open+"}\n") + ctp("", "") + route("r", "[a.example.com]", oneRule) + route("s", "[b.example.com]", oneRule),
			want: "Accepted=False/Invalid", msg: several},
		{name: "a route with a wildcard hostname only",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, "+open+"}\n") + ctp("", "") + route("r", "['*.example.com']", oneRule),
			want: "Accepted=False/Invalid", msg: only},
		{name: "a Gateway-wide policy is refused for its wildcard-only listener",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, hostname: a.example.com, "+open+"}\n  - {name: b, protocol: HTTP, port: 8080, "+open+"}\n") + ctp("", ""),
			want: "Accepted=False/Invalid", msg: only},
		{name: "a TCP listener needs no default host",
			docs: egGateway("  - {name: a, protocol: TCP, port: 9000, "+open+"}\n") + ctp("", ""),
			want: "Accepted=True/Accepted"},
		{name: "the builders before HTTP1 report first",
			docs: egGateway("  - {name: a, protocol: HTTP, port: 80, "+open+"}\n") + ctp("", "  timeout: {tcp: {idleTimeout: x}}\n"),
			want: "Accepted=False/Invalid", msg: "Timeout: invalid TCP IdleTimeout value x\n" + only},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, msgs := egStatuses(compile(t, egRoutesBase+tc.docs))
			if got[policyOn] != tc.want {
				t.Errorf("%s:\n got  %s\n want %s", policyOn, got[policyOn], tc.want)
			}
			if tc.msg != "" && !slices.Contains(msgs, tc.msg) {
				t.Errorf("no condition message is %q; messages:\n%s", tc.msg, strings.Join(msgs, "\n"))
			}
		})
	}
}

// TestEnvoyGatewayBackendTLSPolicyStatus: on an Envoy Gateway Gateway a
// BackendTLSPolicy's status is Envoy Gateway's (processBackendTLSPolicy):
// its CA certificates judged by getCaCertsFromCARefs — a ConfigMap's CA
// may be its tls.crt or its only entry, a ClusterTrustBundle is read, a
// reference of another kind alone is InvalidKind — with its messages.
func TestEnvoyGatewayBackendTLSPolicyStatus(t *testing.T) {
	btlsp := func(refs string) string {
		return egHTTPRoute("[{name: svc, port: 8080}]") +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: tls, namespace: app}\nspec:\n" +
			"  targetRefs: [{group: '', kind: Service, name: svc}]\n  validation: {hostname: svc.example.com, caCertificateRefs: " + refs + "}\n"
	}
	// reported against the route's parentRef, its sectionName kept
	const policyOnGW = "BackendTLSPolicy/app/tls @ Gateway/infra/gw#http"
	der, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(testCA, "{ca.crt: "), "}"))
	if err != nil {
		t.Fatal(err)
	}
	testPEM := strconv.Quote(string(der)) // a YAML double-quoted string
	for _, tc := range []struct {
		name, docs, want, msg string
	}{
		{name: "a ConfigMap whose CA is its only entry, of another name",
			docs: btlsp("[{group: '', kind: ConfigMap, name: ca}]") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca, namespace: app}\ndata: {root.pem: " + testPEM + "}\n",
			want: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs", msg: "Resolved all the Object references."},
		{name: "a ClusterTrustBundle",
			docs: btlsp("[{group: certificates.k8s.io, kind: ClusterTrustBundle, name: roots}]") +
				"---\napiVersion: certificates.k8s.io/v1beta1\nkind: ClusterTrustBundle\nmetadata: {name: roots}\nspec: {trustBundle: " + testPEM + "}\n",
			want: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"},
		{name: "a ConfigMap that is not in the input",
			docs: btlsp("[{group: '', kind: ConfigMap, name: nowhere}]"),
			want: "Accepted=False/NoValidCACertificate ResolvedRefs=False/InvalidCACertificateRef", msg: "Configmap nowhere not found in namespace app."},
		{name: "only a kind it does not read",
			docs: btlsp("[{group: example.com, kind: Vault, name: v}]"),
			want: "Accepted=False/NoValidCACertificate ResolvedRefs=False/InvalidKind", msg: "Unsupported reference kind, supported kinds are ConfigMap, Secret, and ClusterTrustBundle in caCertificateRefs."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, msgs := egStatuses(compile(t, egRoutesBase+tc.docs))
			if got[policyOnGW] != tc.want {
				t.Errorf("%s: %q, want %q (all: %v)", policyOnGW, got[policyOnGW], tc.want, got)
			}
			if tc.msg != "" && !slices.Contains(msgs, tc.msg) {
				t.Errorf("no message %q in %q", tc.msg, msgs)
			}
		})
	}
}

// TestEnvoyGatewayBackendTLSPolicyConflicted: a BackendTLSPolicy on the
// target an earlier one has is never built by Envoy Gateway
// (getBackendTLSPolicy takes the first that matches), so its ancestor
// says only Accepted=False/Conflicted, naming the earlier policy
// (ProcessBackendTLSPolicyStatus), with no ResolvedRefs.
func TestEnvoyGatewayBackendTLSPolicyConflicted(t *testing.T) {
	pol := func(name string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: " + name + ", namespace: app}\nspec:\n" +
			"  targetRefs: [{group: '', kind: Service, name: svc}]\n  validation: {hostname: svc.example.com, caCertificateRefs: [{group: '', kind: ConfigMap, name: ca}]}\n"
	}
	docs := egRoutesBase + egHTTPRoute("[{name: svc, port: 8080}]") +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca, namespace: app}\ndata: {ca.crt: x}\n" + pol("first") + pol("second")
	got, msgs := egStatuses(compile(t, docs))
	for key, want := range map[string]string{
		"BackendTLSPolicy/app/second @ Gateway/infra/gw#http": "Accepted=False/Conflicted",
		"BackendTLSPolicy/app/first @ Gateway/infra/gw#http":  "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs",
	} {
		if got[key] != want {
			t.Errorf("%s: %q, want %q (all: %v)", key, got[key], want, got)
		}
	}
	if want := "Policy conflicts with BackendTLSPolicy app/first."; !slices.Contains(msgs, want) {
		t.Errorf("no message %q in %q", want, msgs)
	}
}

// TestEnvoyGatewayCollectedReasons: a rule's filter problems are
// collected apart (ProcessHTTPFilters, ProcessGRPCFilters: a
// TypedErrorCollector of their own, one error per condition type with the
// distinct reasons sorted and joined), and the route's collector joins
// that reason with its other problems' as one reason (MultiStatusError.
// Reason), for HTTPRoutes and GRPCRoutes alike.
func TestEnvoyGatewayCollectedReasons(t *testing.T) {
	mirror := func(name string) string {
		return "    - {type: RequestMirror, requestMirror: {backendRef: {name: " + name + ", port: 8080}}}\n"
	}
	extRef := "    - {type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: missing-filter}}\n"
	rule := func(filters, backend string) string {
		return "  - filters:\n" + filters + "    backendRefs: [{name: " + backend + ", port: 8080}]\n"
	}
	for _, tc := range []struct {
		name, rules, want string
	}{
		{"a filter group of two reasons beside a backendRef of one of them", rule(mirror("missing-mirror")+extRef, "missing"), "BackendNotFound,BackendNotFound,UnsupportedValue"},
		{"the filter group alone", rule(mirror("missing-mirror")+extRef, "svc"), "BackendNotFound,UnsupportedValue"},
		{"a filter group of one reason is that reason", rule(mirror("missing-mirror")+mirror("missing-mirror-2"), "missing"), "BackendNotFound"},
		{"two rules' equal groups count once", rule(mirror("missing-mirror")+extRef, "missing") + rule(mirror("missing-mirror")+extRef, "missing-2"), "BackendNotFound,BackendNotFound,UnsupportedValue"},
	} {
		for _, kind := range []string{"HTTPRoute", "GRPCRoute"} {
			t.Run(kind+": "+tc.name, func(t *testing.T) {
				route := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: r, namespace: app}\nspec:\n" +
					"  parentRefs: [{name: gw, namespace: infra, sectionName: http}]\n  rules:\n" + tc.rules
				lines, _ := egStatuses(compile(t, egRoutesBase+route))
				key := kind + "/app/r @ Gateway/infra/gw"
				if want := "Accepted=True/Accepted ResolvedRefs=False/" + tc.want; lines[key] != want {
					t.Errorf("%s: %q, want %q", key, lines[key], want)
				}
			})
		}
	}
}
