package status_test

import (
	"slices"
	"strings"
	"testing"
)

// egRule is HTTPRoute app/r on the HTTP listener with one rule of the
// given YAML flow sequences of filters and backendRefs, and a second rule
// without problems when twoRules.
func egRule(filters, backendRefs string, twoRules bool) string {
	out := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n" +
		"  parentRefs: [{name: gw, namespace: infra, sectionName: http}]\n  rules:\n" +
		"  - matches: [{path: {type: PathPrefix, value: /a}}]\n    filters: " + filters + "\n    backendRefs: " + backendRefs + "\n"
	if twoRules {
		out += "  - backendRefs: [{name: svc, port: 8080}]\n"
	}
	return out
}

// egFilter is Envoy Gateway HTTPRouteFilter app/NAME with the given spec.
func egFilter(name, spec string) string {
	return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: HTTPRouteFilter\nmetadata: {name: " + name + ", namespace: app}\nspec: " + spec + "\n"
}

// egStream is a route of kind (TCPRoute, TLSRoute, UDPRoute) app/s on
// the Gateway's listener section, with one rule of the given backendRefs.
func egStream(kind, section, hostnames, backendRefs string) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: " + kind + "\nmetadata: {name: s, namespace: app}\nspec:\n" +
		"  parentRefs: [{name: gw, namespace: infra, sectionName: " + section + "}]\n" + hostnames +
		"  rules: [{backendRefs: " + backendRefs + "}]\n"
}

// idleService is Service app/idle whose EndpointSlice lists an address
// for another port only: its port 8080 has no endpoint.
const idleService = `---
apiVersion: v1
kind: Service
metadata: {name: idle, namespace: app}
spec: {ports: [{name: http, port: 8080}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: idle-1, namespace: app, labels: {kubernetes.io/service-name: idle}}
addressType: IPv4
ports: [{name: other, port: 9090, protocol: TCP}]
endpoints: [{addresses: [10.0.0.9]}]
`

// TestEnvoyGatewayRouteFilterOrder holds Envoy Gateway's processing of a
// rule (route.go: processHTTPRouteRules; filters.go: ProcessHTTPFilters)
// in its general form: every filter is processed until one configures a
// direct response, a filter problem does not stop the backendRefs from
// being resolved, a match problem does, a rule dropped for several
// problems counts once, and the stream routes' destination problems are
// all ResolvedRefs ones.
func TestEnvoyGatewayRouteFilterOrder(t *testing.T) {
	const routeOnGW = "HTTPRoute/app/r @ Gateway/infra/gw"
	mirror := "{type: RequestMirror, requestMirror: {backendRef: {name: svc, port: 8080}}}"
	tests := []struct {
		name, docs string
		want       map[string]string
		msgs       []string
	}{
		{name: "a filter problem does not stop the backendRefs from being resolved",
			docs: egRule("[{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: Host, value: a.example.com}]}}]", "[{name: nosuch, port: 8080}]", false),
			want: map[string]string{routeOnGW: "Accepted=False/UnsupportedValue ResolvedRefs=False/BackendNotFound"},
			msgs: []string{"RequestHeaderModifier Filter did not provide valid configuration to add/set/remove any headers.", "Failed to process route rule 0 backendRef 0: service app/nosuch not found."}},
		{name: "a match problem stops them: the rule has no route",
			docs: strings.Replace(egRule("[{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: Host, value: a.example.com}]}}]", "[{name: nosuch, port: 8080}]", false),
				"{path: {type: PathPrefix, value: /a}}", "{path: {type: PathPrefix, value: /a}, headers: [{name: x-a, type: RegularExpression, value: '('}]}", 1),
			want: map[string]string{routeOnGW: "Accepted=False/UnsupportedValue ResolvedRefs=True/ResolvedRefs"},
			msgs: []string{"RequestHeaderModifier Filter did not provide valid configuration to add/set/remove any headers.\nFailed to process route rule 0: regex \"(\" is invalid"}},
		{name: "every filter's problem is said, the rule counted once",
			docs: egRule("[{type: RequestHeaderModifier, requestHeaderModifier: {remove: [Host]}}, {type: ResponseHeaderModifier, responseHeaderModifier: {add: [{name: host, value: a}]}}]", "[{name: svc, port: 8080}]", true),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted PartiallyInvalid=True/UnsupportedValue ResolvedRefs=True/ResolvedRefs"},
			msgs: []string{"Dropped Rule(s) [0]: RequestHeaderModifier Filter did not provide valid configuration to add/set/remove any headers.\nResponseHeaderModifier Filter did not provide valid configuration to add/remove any headers."}},
		{name: "a filter after an HTTPRouteFilter's direct response is not processed: no mirror to conflict with it",
			docs: egRule("[{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: deny}}, "+mirror+"]", "[{name: svc, port: 8080}]", false) +
				egFilter("deny", "{directResponse: {statusCode: 403}}"),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		{name: "a mirror before an HTTPRouteFilter's direct response conflicts with it",
			docs: egRule("["+mirror+", {type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: deny}}]", "[{name: svc, port: 8080}]", false) +
				egFilter("deny", "{directResponse: {statusCode: 403}}"),
			want: map[string]string{routeOnGW: "Accepted=False/IncompatibleFilters ResolvedRefs=True/ResolvedRefs"}},
		{name: "the 500 of an HTTPRouteFilter not found is a direct response a mirror before it conflicts with",
			docs: egRule("["+mirror+", {type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: nosuch}}]", "[{name: svc, port: 8080}]", false),
			want: map[string]string{routeOnGW: "Accepted=False/IncompatibleFilters ResolvedRefs=False/UnsupportedValue"},
			msgs: []string{"Unable to translate HTTPRouteFilter: app/nosuch."}},
		{name: "a mirror whose backend does not resolve configures no mirror: no conflict with a redirect",
			docs: egRule("[{type: RequestMirror, requestMirror: {backendRef: {name: nosuch, port: 8080}}}, {type: RequestRedirect, requestRedirect: {scheme: https}}]", "[]", false),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted ResolvedRefs=False/BackendNotFound"}},
		{name: "a rewrite hostname that is an IP address",
			docs: egRule("[{type: URLRewrite, urlRewrite: {hostname: 10.0.0.1}}]", "[{name: svc, port: 8080}]", true),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted PartiallyInvalid=True/UnsupportedValue ResolvedRefs=True/ResolvedRefs"},
			msgs: []string{"Dropped Rule(s) [0]: Hostname: \"10.0.0.1\" cannot be an ip address."}},
		{name: "a redirect hostname with a label over 63 characters",
			docs: egRule("[{type: RequestRedirect, requestRedirect: {hostname: "+strings.Repeat("a", 64)+".example.com}}]", "[]", false),
			want: map[string]string{routeOnGW: "Accepted=False/UnsupportedValue ResolvedRefs=True/ResolvedRefs"}},
		{name: "a TCPRoute's backend without endpoints is a ResolvedRefs problem",
			docs: idleService + egStream("TCPRoute", "tcp", "", "[{name: idle, port: 8080}]"),
			want: map[string]string{"TCPRoute/app/s @ Gateway/infra/gw": "Accepted=True/Accepted ResolvedRefs=False/EndpointsNotFound"},
			msgs: []string{"no ready endpoints for the related Service app/idle"}},
		{name: "an HTTPRoute's is BackendsAvailable",
			docs: idleService + egRule("[]", "[{name: idle, port: 8080}]", false),
			want: map[string]string{routeOnGW: "Accepted=True/Accepted BackendsAvailable=False/EndpointsNotFound ResolvedRefs=True/ResolvedRefs"}},
		{name: "a UDPRoute of three rules writes no ResolvedRefs, whatever its backends",
			docs: "---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: UDPRoute\nmetadata: {name: u, namespace: app}\nspec:\n" +
				"  parentRefs: [{name: gw, namespace: infra, sectionName: udp}]\n  rules: [{backendRefs: [{name: nosuch, port: 53}]}, {backendRefs: [{name: svc, port: 53}]}, {backendRefs: [{name: svc, port: 53}]}]\n",
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
			for _, m := range tc.msgs {
				if !slices.ContainsFunc(msgs, func(s string) bool { return strings.Contains(s, m) }) {
					t.Errorf("no condition message contains %q; messages:\n%s", m, strings.Join(msgs, "\n"))
				}
			}
		})
	}
}

// TestEnvoyGatewayExclusiveListenerHostnames holds helpers.go:
// computeHosts: a route hostname that another listener of the same port
// has as its own is served by that listener only, on a Gateway's own
// listeners as on a ListenerSet's; a listener of another port, and a
// route without hostnames, are not affected.
func TestEnvoyGatewayExclusiveListenerHostnames(t *testing.T) {
	gw := egPlatform("infra", "  allowedListeners: {namespaces: {from: Same}}\n  listeners:\n  - {name: wild, protocol: HTTP, port: 80, hostname: \"*.example.com\", allowedRoutes: {namespaces: {from: All}}}\n  - {name: api, protocol: HTTP, port: 80, hostname: api.example.com, allowedRoutes: {namespaces: {from: All}}}\n  - {name: alt, protocol: HTTP, port: 8080, hostname: \"*.example.com\", allowedRoutes: {namespaces: {from: All}}}\n  - {name: any, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}\n") + `
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: set, namespace: infra}
spec:
  parentRef: {name: gw}
  listeners:
  - {name: web, protocol: HTTP, port: 80, hostname: web.example.com, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec: {ports: [{name: http, port: 8080}]}
`
	route := func(name, section, hostnames string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: app}\nspec:\n" +
			"  parentRefs: [{name: gw, namespace: infra, sectionName: " + section + "}]\n  hostnames: " + hostnames + "\n" +
			"  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n"
	}
	const key = "HTTPRoute/app/r @ Gateway/infra/gw"
	tests := []struct{ name, docs, want string }{
		{"a hostname another listener of the port has is not the wildcard listener's", route("r", "wild", "[api.example.com]"),
			"Accepted=False/NoMatchingListenerHostname ResolvedRefs=True/ResolvedRefs"},
		{"nor the listener without a hostname's", route("r", "any", "[api.example.com]"),
			"Accepted=False/NoMatchingListenerHostname ResolvedRefs=True/ResolvedRefs"},
		{"it is the listener's own", route("r", "api", "[api.example.com]"),
			"Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"},
		{"another hostname of the route still attaches", route("r", "wild", "[api.example.com, www.example.com]"),
			"Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"},
		{"a ListenerSet's listener of the port takes its hostname from the Gateway's", route("r", "wild", "[web.example.com]"),
			"Accepted=False/NoMatchingListenerHostname ResolvedRefs=True/ResolvedRefs"},
		{"a listener of another port is not affected", route("r", "alt", "[api.example.com]"),
			"Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"},
		{"a route without hostnames takes the wildcard listener's", route("r", "wild", "[]"),
			"Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := egStatuses(compileWithBackend(t, gw+tc.docs))
			if got[key] != tc.want {
				t.Errorf("%s:\n got  %s\n want %s", key, got[key], tc.want)
			}
		})
	}
}

// TestEnvoyGatewayAcceptedAfterRules holds what processHTTPRouteParentRefs
// and processGRPCRouteParentRefs write on a parent the route does not
// attach to, whose rules they still judge: some rules dropped is
// Accepted True (beside PartiallyInvalid) over NotAllowedByListeners;
// every rule dropped is the rules' reason, except on an HTTPRoute whose
// hostnames meet no listener's, whose hostname check comes last.
func TestEnvoyGatewayAcceptedAfterRules(t *testing.T) {
	gw := egPlatform("infra", "  listeners: [{name: http, protocol: HTTP, port: 80, hostname: only.example.com}]\n") + `
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec: {ports: [{name: http, port: 8080}]}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: infra}
spec: {ports: [{name: http, port: 8080}]}
`
	route := func(kind, ns, hostnames string, rules int) string {
		out := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: r, namespace: " + ns + "}\nspec:\n" +
			"  parentRefs: [{name: gw, namespace: infra}]\n  hostnames: " + hostnames + "\n  rules:\n" +
			"  - matches: [{headers: [{name: a, type: RegularExpression, value: '('}]}]\n    backendRefs: [{name: svc, port: 8080}]\n"
		for range rules - 1 {
			out += "  - backendRefs: [{name: svc, port: 8080}]\n"
		}
		return out
	}
	tests := []struct{ name, docs, key, want string }{
		{"some rules dropped on a parent whose listeners do not allow the namespace", route("HTTPRoute", "app", "[]", 2),
			"HTTPRoute/app/r @ Gateway/infra/gw", "Accepted=True/Accepted PartiallyInvalid=True/UnsupportedValue ResolvedRefs=True/ResolvedRefs"},
		{"every rule dropped there: the rules' reason", route("GRPCRoute", "app", "[]", 1),
			"GRPCRoute/app/r @ Gateway/infra/gw", "Accepted=False/UnsupportedValue ResolvedRefs=True/ResolvedRefs"},
		{"every rule of an HTTPRoute dropped where no hostname meets: the hostname check comes last", route("HTTPRoute", "infra", "[other.example.com]", 1),
			"HTTPRoute/infra/r @ Gateway/infra/gw", "Accepted=False/NoMatchingListenerHostname ResolvedRefs=True/ResolvedRefs"},
		{"a GRPCRoute's skips it", route("GRPCRoute", "infra", "[other.example.com]", 1),
			"GRPCRoute/infra/r @ Gateway/infra/gw", "Accepted=False/UnsupportedValue ResolvedRefs=True/ResolvedRefs"},
		{"some rules dropped where no hostname meets: the hostname check comes last", route("HTTPRoute", "infra", "[other.example.com]", 2),
			"HTTPRoute/infra/r @ Gateway/infra/gw", "Accepted=False/NoMatchingListenerHostname PartiallyInvalid=True/UnsupportedValue ResolvedRefs=True/ResolvedRefs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := egStatuses(compileWithBackend(t, gw+tc.docs))
			if got[tc.key] != tc.want {
				t.Errorf("%s:\n got  %s\n want %s", tc.key, got[tc.key], tc.want)
			}
		})
	}
}

// TestEnvoyGatewayTLSRouteDynamicResolver holds processTLSRouteParentRefs'
// check on each listener a TLSRoute attaches to: a DynamicResolver
// Backend forwards by the SNI, which a listener that terminates TLS has
// decrypted; on a passthrough listener it is served.
func TestEnvoyGatewayTLSRouteDynamicResolver(t *testing.T) {
	gw := egPlatform("infra", "  listeners:\n  - {name: pass, protocol: TLS, port: 443, tls: {mode: Passthrough}, allowedRoutes: {namespaces: {from: All}}}\n  - {name: term, protocol: TLS, port: 8443, tls: {mode: Terminate, certificateRefs: [{name: cert}]}, allowedRoutes: {namespaces: {from: All}}}\n") + `
---
apiVersion: v1
kind: Secret
metadata: {name: cert, namespace: infra}
type: kubernetes.io/tls
data: ` + testTLS + `
` + egBackend("dyn", "  type: DynamicResolver\n")
	tests := []struct{ name, section, want string }{
		{"on a listener that terminates TLS", "term", "Accepted=True/Accepted ResolvedRefs=False/UnsupportedValue"},
		{"on a passthrough listener", "pass", "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs := gw + egStream("TLSRoute", tc.section, "  hostnames: [www.example.com]\n", "[{group: gateway.envoyproxy.io, kind: Backend, name: dyn}]")
			got, msgs := egStatuses(compileWithBackend(t, docs))
			if key := "TLSRoute/app/s @ Gateway/infra/gw"; got[key] != tc.want {
				t.Errorf("%s:\n got  %s\n want %s\n%s", key, got[key], tc.want, strings.Join(msgs, "\n"))
			}
		})
	}
}
