package envoy_test

import (
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// routeFieldsGateway is the Gateway infra/gw with one HTTP listener.
const routeFieldsGateway = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgw
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
`

// routeFieldsBase: one HTTP listener and an HTTPRoute with a named
// forwarding rule (/named), an unnamed one (/unnamed) and an unnamed
// redirect (/redirect).
const routeFieldsBase = routeFieldsGateway + `apiVersion: v1
kind: Service
metadata: {name: svc, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - name: r0
    matches: [{path: {type: PathPrefix, value: /named}}]
    backendRefs: [{name: svc, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /unnamed}}]
    backendRefs: [{name: svc, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /redirect}}]
    filters: [{type: RequestRedirect, requestRedirect: {hostname: elsewhere.example}}]
`

// routeFieldsPolicy is a TrafficPolicy NAME on TARGET with SPEC (YAML
// lines indented by two).
func routeFieldsPolicy(name, target, spec string) string {
	return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: " + name +
		", namespace: infra}\nspec:\n  targetRefs: [" + target + "]\n" + spec
}

// TestKgatewayRouteFieldForms: the edge forms of the TrafficPolicy fields
// kgateway writes on the route itself, in shapes no public case has: a
// stat prefix whose variables leave empty "."-separated segments (an
// unnamed rule's {{ rule_name }}, a doubled dot), which kgateway drops
// (stat_prefix.go: joinNonEmptyStatSegments), also on a redirect; route
// tracing, which only a forwarding route takes (handlePerRoutePolicies
// returns on a route without a RouteAction); autoHostRewrite false, which
// writes nothing yet decides the field over the Gateway's true.
func TestKgatewayRouteFieldForms(t *testing.T) {
	const (
		onRoute   = "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}"
		onGateway = "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}"
	)
	type want struct {
		stat      string
		tracing   bool
		autoHost  string // "true", "false" (written false) or "" (not written)
		forwards  bool
		checkAuto bool
	}
	for _, tc := range []struct {
		name     string
		policies string
		target   string
		want     map[string]want // by path prefix
	}{
		{"stat prefix: variables leaving empty segments", routeFieldsPolicy("tp", onRoute,
			"  statPrefix: \"{{ route_namespace }}.{{rule_name}}.{{ route_name }}.{{ rule_name }}\"\n"), "kgateway",
			map[string]want{
				"/named":    {stat: "infra.r0.web.r0", forwards: true},
				"/unnamed":  {stat: "infra.web", forwards: true},
				"/redirect": {stat: "infra.web"},
			}},
		{"stat prefix: leading, doubled and trailing dots", routeFieldsPolicy("tp", onRoute,
			"  statPrefix: \".a..{{ rule_name }}.\"\n"), "kgateway",
			map[string]want{
				"/named":    {stat: "a.r0", forwards: true},
				"/unnamed":  {stat: "a", forwards: true},
				"/redirect": {stat: "a"},
			}},
		{"stat prefix: upstream Envoy's target writes it as filled", routeFieldsPolicy("tp", onRoute,
			"  statPrefix: \"{{ route_name }}.{{ rule_name }}\"\n"), "envoy",
			map[string]want{
				"/named":   {stat: "web.r0", forwards: true},
				"/unnamed": {stat: "web.", forwards: true},
			}},
		{"tracing: forwarding routes only", routeFieldsPolicy("tp", onRoute,
			"  tracing: {randomSampling: 0, clientSampling: 50}\n"), "kgateway",
			map[string]want{
				"/named":    {tracing: true, forwards: true},
				"/unnamed":  {tracing: true, forwards: true},
				"/redirect": {},
			}},
		{"tracing: a Gateway's, forwarding routes only", routeFieldsPolicy("tp", onGateway,
			"  tracing: {disable: {}}\n"), "kgateway",
			map[string]want{
				"/named":    {tracing: true, forwards: true},
				"/redirect": {},
			}},
		{"autoHostRewrite false: nothing written", routeFieldsPolicy("tp", onRoute,
			"  autoHostRewrite: false\n"), "kgateway",
			map[string]want{"/named": {forwards: true, checkAuto: true}}},
		{"autoHostRewrite true", routeFieldsPolicy("tp", onRoute,
			"  autoHostRewrite: true\n"), "kgateway",
			map[string]want{"/named": {autoHost: "true", forwards: true, checkAuto: true}}},
		{"autoHostRewrite false on the route over the Gateway's true",
			routeFieldsPolicy("gw", onGateway, "  autoHostRewrite: true\n") + routeFieldsPolicy("tp", onRoute, "  autoHostRewrite: false\n"), "kgateway",
			map[string]want{"/named": {forwards: true, checkAuto: true}}},
		{"autoHostRewrite false on the Gateway under the route's true",
			routeFieldsPolicy("gw", onGateway, "  autoHostRewrite: false\n") + routeFieldsPolicy("tp", onRoute, "  autoHostRewrite: true\n"), "kgateway",
			map[string]want{"/named": {autoHost: "true", forwards: true, checkAuto: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("fixture.yaml", []byte(routeFieldsBase+tc.policies), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			out := render(t, compile(t, &manifest.Set{Objects: objs}, policy.Config{}), envoy.Options{Target: tc.target})
			routes := routesByPrefix(out)
			for prefix, w := range tc.want {
				r, ok := routes[prefix]
				if !ok {
					t.Fatalf("no route for %s", prefix)
				}
				if g := r.GetRoute() != nil; g != w.forwards {
					t.Fatalf("%s: forwards %v, want %v", prefix, g, w.forwards)
				}
				if r.StatPrefix != w.stat {
					t.Errorf("%s: stat prefix %q, want %q", prefix, r.StatPrefix, w.stat)
				}
				if g := r.Tracing != nil; g != w.tracing {
					t.Errorf("%s: tracing %v, want %v", prefix, r.Tracing, w.tracing)
				}
				if w.checkAuto {
					g := ""
					if ah := r.GetRoute().GetAutoHostRewrite(); ah != nil {
						g = map[bool]string{true: "true", false: "false"}[ah.GetValue()]
					}
					if g != w.autoHost {
						t.Errorf("%s: auto_host_rewrite %q, want %q", prefix, g, w.autoHost)
					}
				}
			}
		})
	}
}

// routesByPrefix are the rendered routes by the path prefix they match.
func routesByPrefix(out *envoy.Output) map[string]*routev3.Route {
	m := map[string]*routev3.Route{}
	for _, g := range out.Gateways {
		for _, rc := range g.RouteConfigurations {
			for _, vh := range rc.VirtualHosts {
				for _, r := range vh.Routes {
					p := r.GetMatch().GetPathSeparatedPrefix()
					if p == "" {
						p = r.GetMatch().GetPrefix()
					}
					m[p] = r
				}
			}
		}
	}
	return m
}

// answeredBase: an HTTPRoute rule (unnamed) answered by a DirectResponse,
// with its own request and response header modifiers, and a TrafficPolicy
// on the route with CORS, a stat prefix, tracing and timeouts.
const answeredBase = routeFieldsGateway + `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - filters:
    - {type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x-req, value: a}]}}
    - {type: ResponseHeaderModifier, responseHeaderModifier: {add: [{name: x-resp, value: b}]}}
    - {type: ExtensionRef, extensionRef: {group: gateway.kgateway.dev, kind: DirectResponse, name: teapot}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: DirectResponse
metadata: {name: teapot, namespace: infra}
spec: {status: 418, body: short and stout}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: tp, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}]
  cors: {allowOrigins: ["https://a.example"]}
  statPrefix: "{{ route_name }}.{{ rule_name }}"
  tracing: {randomSampling: 10}
  timeouts: {request: 5s}
`

// TestKgatewayAnsweredRouteKeepsPolicies: kgateway applies a
// DirectResponse in the pass that applies the rule's TrafficPolicies, and
// the DirectResponse only sets the route's action, so the answered route
// keeps the policies' per-filter configuration (the CORS filter in the
// chain, enabled there), its stat prefix and the rule's own header
// modifiers (kgateway's built-in header modifiers apply whatever the
// route's action); tracing and timeouts, which need a route action, are
// not written. Upstream Envoy's target writes the answer alone.
func TestKgatewayAnsweredRouteKeepsPolicies(t *testing.T) {
	objs, err := manifest.Parse("fixture.yaml", []byte(answeredBase), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := compile(t, &manifest.Set{Objects: objs}, policy.Config{})
	for _, tc := range []struct {
		target string
		keeps  bool
	}{{"kgateway", true}, {"envoy", false}} {
		t.Run(tc.target, func(t *testing.T) {
			out := render(t, c, envoy.Options{Target: tc.target})
			r, ok := routesByPrefix(out)["/"]
			if !ok {
				t.Fatal("no route")
			}
			if r.GetDirectResponse().GetStatus() != 418 {
				t.Fatalf("route %v does not answer 418", r)
			}
			_, cors := r.TypedPerFilterConfig["envoy.filters.http.cors"]
			if cors != tc.keeps {
				t.Errorf("cors per-filter config %v, want %v", cors, tc.keeps)
			}
			wantStat := ""
			if tc.keeps {
				wantStat = "web"
			}
			if r.StatPrefix != wantStat {
				t.Errorf("stat prefix %q, want %q", r.StatPrefix, wantStat)
			}
			if g := len(r.RequestHeadersToAdd) == 1 && len(r.ResponseHeadersToAdd) == 1; g != tc.keeps {
				t.Errorf("request headers %v, response headers %v: the rule's header modifiers kept %v, want %v",
					r.RequestHeadersToAdd, r.ResponseHeadersToAdd, g, tc.keeps)
			}
			if r.Tracing != nil || r.GetRoute() != nil {
				t.Errorf("tracing %v, route action %v: want neither", r.Tracing, r.GetRoute())
			}
			inChain := false
			for _, g := range out.Gateways {
				for _, f := range hcmOf(t, g.Listeners[0].FilterChains[0]).GetHttpFilters() {
					inChain = inChain || f.Name == "envoy.filters.http.cors"
				}
			}
			if inChain != tc.keeps {
				t.Errorf("cors filter in the chain %v, want %v", inChain, tc.keeps)
			}
		})
	}
}
