package topology

import (
	"testing"

	"github.com/gwpol/gwpol/internal/model"
)

// TestBackendGrantBeforeLookup: under a controller whose grant rule
// checks before the lookup (GrantRule.BeforeLookup), a route backendRef
// that is both ungranted and unresolvable — a Service missing, or without
// the port, a kind that defines its own port named with one, a kind not
// supported — is refused for the grant (RefNotPermitted); a controller
// looking up first refuses it for the lookup. A granted ref fails the
// lookup alike under both, and a kind defining its own port refuses a
// port before it looks the object up.
func TestBackendGrantBeforeLookup(t *testing.T) {
	gateway := func(name, class string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: " + name + ", namespace: edge}\nspec:\n  gatewayClassName: " + class +
			"\n  listeners: [{name: web, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}]"
	}
	docs := []string{
		"apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: early}\nspec: {controllerName: example.com/early}",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: late}\nspec: {controllerName: example.com/late}",
		gateway("e", "early"), gateway("l", "late"),
		"apiVersion: v1\nkind: Service\nmetadata: {name: ledger, namespace: money}\nspec: {ports: [{port: 7000}]}",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: ReferenceGrant\nmetadata: {name: routes, namespace: granted}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}]\n  to: [{group: \"\", kind: Service}, {group: gateway.kgateway.dev, kind: Backend}, {group: example.com, kind: Thing}]",
	}
	tests := []struct {
		name, ref   string
		early, late string // backend reason under each controller
	}{
		{"Service missing, not granted", "{name: gone, namespace: nowhere, port: 80}", "RefNotPermitted", "BackendNotFound"},
		{"Service without the port, not granted", "{name: ledger, namespace: money, port: 81}", "RefNotPermitted", "BackendNotFound"},
		{"Service without a port, not granted", "{name: ledger, namespace: money}", "RefNotPermitted", "UnsupportedValue"},
		{"portless kind missing, with a port, not granted", "{group: gateway.kgateway.dev, kind: Backend, name: gone, namespace: nowhere, port: 80}", "RefNotPermitted", "BackendNotFound"},
		{"unsupported kind, not granted", "{group: example.com, kind: Thing, name: x, namespace: nowhere}", "RefNotPermitted", "InvalidKind"},
		{"Service missing, granted", "{name: gone, namespace: granted, port: 80}", "BackendNotFound", "BackendNotFound"},
		{"portless kind missing, with a port, granted", "{group: gateway.kgateway.dev, kind: Backend, name: gone, namespace: granted, port: 80}", "BackendNotFound", "BackendNotFound"},
		{"unsupported kind, granted", "{group: example.com, kind: Thing, name: x, namespace: granted}", "InvalidKind", "InvalidKind"},
		{"Service missing in the route's namespace", "{name: ledger, namespace: shop, port: 7000}", "BackendNotFound", "BackendNotFound"},
	}
	for i, tt := range tests {
		for _, gw := range []string{"e", "l"} {
			docs = append(docs, httpRoute("shop", gw+string(rune('a'+i)), "  parentRefs: [{name: "+gw+", namespace: edge}]\n  rules: [{backendRefs: ["+tt.ref+"]}]\n"))
		}
	}
	backend := model.GroupKind{Group: "gateway.kgateway.dev", Kind: "Backend"}
	g := graph(t, Options{Controller: "example.com/late",
		BackendKinds: map[model.GroupKind]bool{backend: true}, PortlessBackendKinds: map[model.GroupKind]bool{backend: true},
		Controllers: map[string]Controller{"example.com/early": {Grants: model.GrantRule{BeforeLookup: true}}, "example.com/late": {}}}, docs...)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for gw, want := range map[string]string{"e": tt.early, "l": tt.late} {
				b := route(t, g, "HTTPRoute/shop/"+gw+string(rune('a'+i))).Rules[0].Backends[0]
				if b.Resolved || b.Reason != want {
					t.Errorf("under %s: resolved=%v reason %q (%s), want %q", gw, b.Resolved, b.Reason, b.Message, want)
				}
			}
		})
	}
}
