package explain_test

// Envoy Gateway's class and a Gateway of it, which this package's EG
// tests begin with; each adds the listeners, routes and policies it is
// about.

// egClass is the GatewayClass eg, Envoy Gateway's controller.
const egClass = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n"

// egGateway is egClass and the Gateway ns/name of class eg, its spec
// going on with the lines given.
func egGateway(ns, name, spec string) string {
	return egClass + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec:\n  gatewayClassName: eg\n" + spec
}
