package kgateway_test

import (
	"strings"
	"testing"

	statefulsessionv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/stateful_session/v3"
	cookiev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/stateful_session/cookie/v3"
	headerv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/stateful_session/header/v3"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/kgateway"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestSessionNames: kgateway writes a rule's sessionName through its
// sanitizers (utils.SanitizeCookieName, SanitizeHeaderName, called by
// krtcollections/builtin.go: convertSessionPersistence): its default
// stands for a name left out only, an empty name is "cookie" or "header",
// and the characters a cookie name or a header name cannot hold are
// replaced ("_" in a cookie's, "-" in a header's). The Gateway API bounds
// only the name's length.
func TestSessionNames(t *testing.T) {
	for _, tt := range []struct {
		name, session string // session: the sessionPersistence flow mapping
		want          string // the cookie's or the header's name
		header        bool
	}{
		{"cookie name left out", `{type: Cookie}`, "sessionPersistence", false},
		{"empty cookie name", `{sessionName: "", type: Cookie}`, "cookie", false},
		{"cookie name with separators and a space", `{sessionName: "cart session/v1=a", type: Cookie}`, "cart_session_v1_a", false},
		{"cookie name beyond ASCII and with a tab", `{sessionName: "caf\u00e9\tid", type: Cookie}`, "caf__id", false},
		{"cookie name of token characters kept", `{sessionName: "Cart-Session_1.x~", type: Cookie}`, "Cart-Session_1.x~", false},
		{"header name left out", `{type: Header}`, "x-session-persistence", true},
		{"empty header name", `{sessionName: "", type: Header}`, "header", true},
		{"header name with a space, a colon and a slash", `{sessionName: "x session:id/v1", type: Header}`, "x-session-id-v1", true},
		{"header name beyond ASCII", `{sessionName: "x-s\u00e9ssion", type: Header}`, "x-s-ssion", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			input := httpGatewayInput + `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{name: cart, port: 80}]
    sessionPersistence: ` + tt.session + "\n"
			cfg := policy.Config{}.WithSetting(kgateway.EnableExperimentalGatewayAPIFeatures.Key, true)
			out, err := envoy.Render(compileInline(t, input, cfg), envoy.Options{Target: "kgateway", Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			r := out.Gateways[0].RouteConfigurations[0].GetVirtualHosts()[0].GetRoutes()[0]
			a := r.GetTypedPerFilterConfig()["envoy.filters.http.stateful_session"]
			if a == nil {
				t.Fatal("no stateful session on the route")
			}
			var per statefulsessionv3.StatefulSessionPerRoute
			if err := a.UnmarshalTo(&per); err != nil {
				t.Fatal(err)
			}
			state := per.GetStatefulSession().GetSessionState()
			var got string
			if tt.header {
				var h headerv3.HeaderBasedSessionState
				if err := state.GetTypedConfig().UnmarshalTo(&h); err != nil {
					t.Fatal(err)
				}
				got = h.GetName()
			} else {
				var c cookiev3.CookieBasedSessionState
				if err := state.GetTypedConfig().UnmarshalTo(&c); err != nil {
					t.Fatal(err)
				}
				got = c.GetCookie().GetName()
			}
			if got != tt.want {
				t.Errorf("name %q, want %q", got, tt.want)
			}
			if !strings.HasPrefix(state.GetName(), "envoy.http.stateful_session.") {
				t.Errorf("session state extension %q", state.GetName())
			}
		})
	}
}

// httpGatewayInput is a kgateway Gateway with one HTTP listener and the
// Service shop/cart (port 80) a route can send to.
const httpGatewayInput = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kgw}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: kgw
  listeners: [{name: web, port: 8080, protocol: HTTP}]
---
apiVersion: v1
kind: Service
metadata: {name: cart, namespace: shop}
spec: {ports: [{port: 80}]}
`

// TestGRPCRouteSessionUnderExperimentalSwitch: kgateway turns a GRPCRoute
// rule into an HTTPRoute rule holding its sessionPersistence
// (krtcollections/grpc_route.go: convertRulesToHTTP) and builds its rule
// policy through the same RoutesIndex.NewBuiltInRuleIr, which reads
// sessionPersistence only with enableExperimentalGatewayAPIFeatures on
// (buildHTTPRouteRulePolicy): off, a GRPCRoute's route has no stateful
// session either, and the chain none.
func TestGRPCRouteSessionUnderExperimentalSwitch(t *testing.T) {
	input := httpGatewayInput + `---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: cart, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{name: cart, port: 80}]
    sessionPersistence: {sessionName: grpc-session, type: Header}
`
	for _, on := range []bool{true, false} {
		cfg := policy.Config{}.WithSetting(kgateway.EnableExperimentalGatewayAPIFeatures.Key, on)
		out, err := envoy.Render(compileInline(t, input, cfg), envoy.Options{Target: "kgateway", Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		r := out.Gateways[0].RouteConfigurations[0].GetVirtualHosts()[0].GetRoutes()[0]
		if _, session := r.GetTypedPerFilterConfig()["envoy.filters.http.stateful_session"]; session != on {
			t.Errorf("experimental %v: stateful session on the GRPCRoute's route %v, want %v", on, session, on)
		}
		if chain := out.Gateways[0].Listeners[0].String(); strings.Contains(chain, "stateful_session") != on {
			t.Errorf("experimental %v: stateful session filter in the chain: %v", on, !on)
		}
	}
}
