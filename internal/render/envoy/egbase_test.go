package envoy_test

import "strings"

// The Envoy Gateway preamble of this package's tests, written once: its
// GatewayClass, a Gateway of that class and the Service and route most
// cases forward through. Each test adds what it is about.

// egClass is Envoy Gateway's GatewayClass, eg.
const egClass = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n"

// egHTTP80 is a listener line: plain HTTP, http, on port 80.
const egHTTP80 = "  - {name: http, protocol: HTTP, port: 80}\n"

// egGateway is the Gateway ns/gw of class eg with the listener lines
// given ("  - {…}\n" each), as a document of its own ("---" first).
func egGateway(ns string, listeners ...string) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: " + ns + "}\nspec:\n  gatewayClassName: eg\n  listeners:\n" + strings.Join(listeners, "")
}

// egService is the Service ns/name with the ports given (a flow list's
// items, "{port: 80}"), as a document of its own.
func egService(ns, name string, ports ...string) string {
	return "---\napiVersion: v1\nkind: Service\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec: {ports: [" + strings.Join(ports, ", ") + "]}\n"
}

// egRoute is Service ns/svc (port 8080, named http) and HTTPRoute ns/r,
// whose one rule forwards every request to it through gw.
func egRoute(ns string) string {
	return egService(ns, "svc", "{name: http, port: 8080}") +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: " + ns + "}\nspec:\n  parentRefs: [{name: gw}]\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n"
}

// egShop is the route kind infra/shop through gw, its spec lines given
// before its one rule, which forwards to Service web's port 80.
func egShop(kind string, spec ...string) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: shop, namespace: infra}\nspec:\n  parentRefs: [{name: gw}]\n" + strings.Join(spec, "") + "  rules:\n  - backendRefs: [{name: web, port: 80}]\n"
}
