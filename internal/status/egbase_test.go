package status_test

// egController is Envoy Gateway's controllerName.
const egController = "gateway.envoyproxy.io/gatewayclass-controller"

// egClassDoc is Envoy Gateway's GatewayClass, eg: the one document every
// Envoy Gateway case of this package starts from.
const egClassDoc = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: " + egController + "}\n"

// kgClassDoc is kgateway's GatewayClass, kgw, for the cases that hold
// kgateway's Gateways (beside Envoy Gateway's, or alone).
const kgClassDoc = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: kgw}\nspec: {controllerName: kgateway.dev/kgateway}\n"

// egPlatform is egClassDoc and the Gateway ns/gw of class eg whose spec
// goes on with the lines given (its listeners, allowedListeners…).
func egPlatform(ns, spec string) string {
	return egClassDoc + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: " + ns + "}\nspec:\n  gatewayClassName: eg\n" + spec
}
