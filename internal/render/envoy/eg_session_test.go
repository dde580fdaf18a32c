package envoy_test

import (
	"slices"
	"strconv"
	"testing"

	statefulsessionv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/stateful_session/v3"
	cookiev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/stateful_session/cookie/v3"
	headerv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/stateful_session/header/v3"
	"google.golang.org/protobuf/proto"
)

// TestEnvoyGatewaySessionPersistence: a route rule's sessionPersistence
// as Envoy Gateway v1.9 writes it on each of the rule's routes (each
// shape checked with egctl v1.9.0 --to xds): the session named after the
// route's rule (<kind>-<namespace>-<name>-rule-<index>) unless the rule
// names it, as written; a cookie's path the route's own path match (an
// exact path, a prefix as written, a regular expression's segments
// before the first with a "*", "/" for a match without a path); a
// lifetime only for a Permanent cookie, from absoluteTimeout; and no
// session on a GRPCRoute, whose sessionPersistence Envoy Gateway does not
// read.
func TestEnvoyGatewaySessionPersistence(t *testing.T) {
	const rules = `  rules:
  - matches: [{path: {type: Exact, value: /cart/checkout}}, {path: {type: PathPrefix, value: /cart/}}]
    backendRefs: [{name: web, port: 80}]
    sessionPersistence: {absoluteTimeout: 30m}
  - matches: [{path: {type: RegularExpression, value: "/api/v[0-9]+/items/.*/x"}}]
    backendRefs: [{name: web, port: 80}]
    sessionPersistence: {absoluteTimeout: 1h, cookieConfig: {lifetimeType: Permanent}}
  - matches: [{path: {type: PathPrefix, value: /h}}]
    backendRefs: [{name: web, port: 80}]
    sessionPersistence: {type: Header}
  - matches: [{path: {type: PathPrefix, value: /named}, headers: [{name: x, value: v}]}]
    backendRefs: [{name: web, port: 80}]
    sessionPersistence: {sessionName: "my session", absoluteTimeout: 10s}
  - matches: [{headers: [{name: only, value: header}]}]
    backendRefs: [{name: web, port: 80}]
    sessionPersistence: {sessionName: Sticky, type: Header}
`
	const grpc = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: rpc, namespace: infra}\nspec:\n  parentRefs: [{name: gw}]\n  hostnames: [grpc.example]\n" +
		"  rules:\n  - backendRefs: [{name: web, port: 80}]\n    sessionPersistence: {sessionName: g}\n"
	input := egGateway("infra", egHTTP80) + egService("infra", "web", "{port: 80}") +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: cart, namespace: infra}\nspec:\n  parentRefs: [{name: gw}]\n" + rules + grpc
	// by the route's path match (its first header's name where it has no
	// path of its own), what the stateful session carries
	want := map[string]string{
		"/cart/checkout":          "cookie httproute-infra-cart-rule-0 path /cart/checkout",
		"/cart":                   "cookie httproute-infra-cart-rule-0 path /cart/",
		"/api/v[0-9]+/items/.*/x": "cookie httproute-infra-cart-rule-1 path /api/v[0-9]+/items ttl 3600s",
		"/h":                      "header httproute-infra-cart-rule-2",
		"/named":                  "cookie my session path /named",
		"only":                    "header Sticky",
		"grpc.example":            "",
	}
	got := map[string]string{}
	gw := renderInline(t, input, "envoygateway")
	for _, rc := range gw.RouteConfigurations {
		for _, vh := range rc.GetVirtualHosts() {
			for _, r := range vh.GetRoutes() {
				m := r.GetMatch()
				key := m.GetPath() + m.GetPathSeparatedPrefix() + m.GetSafeRegex().GetRegex()
				if key == "" && len(m.GetHeaders()) > 0 {
					key = m.GetHeaders()[0].GetName()
				}
				if slices.Contains(vh.GetDomains(), "grpc.example") {
					key = "grpc.example"
				}
				got[key] = sessionOf(t, r.GetTypedPerFilterConfig()["envoy.filters.http.stateful_session"].GetValue())
			}
		}
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("route %s: session %q, want %q", k, g, w)
		}
	}
}

// sessionOf describes a marshalled StatefulSessionPerRoute: its state's
// kind, name, and a cookie's path and lifetime; "" for none.
func sessionOf(t *testing.T, b []byte) string {
	t.Helper()
	if b == nil {
		return ""
	}
	per := &statefulsessionv3.StatefulSessionPerRoute{}
	if err := proto.Unmarshal(b, per); err != nil {
		t.Fatal(err)
	}
	st := per.GetStatefulSession().GetSessionState().GetTypedConfig()
	c, h := &cookiev3.CookieBasedSessionState{}, &headerv3.HeaderBasedSessionState{}
	switch {
	case st.MessageIs(c):
		if err := st.UnmarshalTo(c); err != nil {
			t.Fatal(err)
		}
		s := "cookie " + c.GetCookie().GetName() + " path " + c.GetCookie().GetPath()
		if ttl := c.GetCookie().GetTtl(); ttl != nil {
			s += " ttl " + strconv.FormatInt(ttl.GetSeconds(), 10) + "s"
		}
		return s
	case st.MessageIs(h):
		if err := st.UnmarshalTo(h); err != nil {
			t.Fatal(err)
		}
		return "header " + h.GetName()
	}
	return "?"
}
