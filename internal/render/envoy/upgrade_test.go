package envoy_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// upgradeBase is a Gateway and a Service whose port speaks APPPROTOCOL
// (none when ""), for one route of KIND to forward to.
var upgradeBase = egGateway("infra", egHTTP80) + egService("infra", "web", "{port: 80APPPROTOCOL}") + egShop("KIND")

// TestRouteUpgrades: Envoy Gateway lets every HTTPRoute's forwarding
// route upgrade to WebSocket whatever its backend speaks, a GRPCRoute's
// none; a BackendTrafficPolicy's httpUpgrade replaces the default (not
// added to it), and its requestBuffer keeps upgrades off. kgateway
// upgrades only the routes to a WebSocket backend, whatever the case of
// its appProtocol.
func TestRouteUpgrades(t *testing.T) {
	btp := func(field string) string {
		return `
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: btp, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  ` + field + "\n"
	}
	for _, tc := range []struct {
		name, target, kind, appProtocol, extra string
		want                                   []string
	}{
		{name: "plain HTTP backend", target: "envoygateway", kind: "HTTPRoute", want: []string{"websocket"}},
		{name: "WebSocket backend", target: "envoygateway", kind: "HTTPRoute", appProtocol: "kubernetes.io/ws", want: []string{"websocket"}},
		{name: "GRPCRoute", target: "envoygateway", kind: "GRPCRoute"},
		{name: "policy lists the upgrades", target: "envoygateway", kind: "HTTPRoute", appProtocol: "kubernetes.io/ws",
			extra: btp("httpUpgrade: [{type: CONNECT}, {type: spdy/3.1}]"), want: []string{"CONNECT", "spdy/3.1"}},
		{name: "policy buffers requests", target: "envoygateway", kind: "HTTPRoute", extra: btp("requestBuffer: {limit: 1Mi}")},
		{name: "kgateway plain backend", target: "kgateway", kind: "HTTPRoute"},
		{name: "kgateway WebSocket backend", target: "kgateway", kind: "HTTPRoute", appProtocol: "kubernetes.io/ws", want: []string{"websocket"}},
		// kgateway lower-cases an appProtocol before reading it
		// (pluginsdk/ir/backend.go: ParseAppProtocol).
		{name: "kgateway WebSocket backend in upper case", target: "kgateway", kind: "HTTPRoute", appProtocol: "kubernetes.io/WS", want: []string{"websocket"}},
		{name: "kgateway another protocol in that case", target: "kgateway", kind: "HTTPRoute", appProtocol: "kubernetes.io/WSS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ap := ""
			if tc.appProtocol != "" {
				ap = ", appProtocol: " + tc.appProtocol
			}
			src := strings.NewReplacer("APPPROTOCOL", ap, "KIND", tc.kind).Replace(upgradeBase) + tc.extra
			objs, err := manifest.Parse("fixture.yaml", []byte(src), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			out := render(t, compile(t, &manifest.Set{Objects: objs}, policy.Config{}), envoy.Options{Target: tc.target})
			route, _ := fixtureRoute(t, out)
			ra := route.GetRoute()
			if ra == nil {
				t.Fatalf("route does not forward: %v", route.Action)
			}
			var got []string
			for _, u := range ra.UpgradeConfigs {
				got = append(got, u.UpgradeType)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("upgrades %v, want %v", got, tc.want)
			}
		})
	}
}
