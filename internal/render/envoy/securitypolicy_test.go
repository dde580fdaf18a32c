package envoy_test

import (
	"slices"
	"strings"
	"testing"

	corsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"
	geoipv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/geoip/v3"
	maxmindv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/geoip_providers/maxmind/v3"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// egGeoBase: an Envoy Gateway Gateway whose class's EnvoyProxy
// configures a MaxMind provider and whose listener detects the client IP
// from X-Forwarded-For (two trusted hops).
var egGeoBase = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
  parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: geo, namespace: infra}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyProxy
metadata: {name: geo, namespace: infra}
spec:
  geoIP: {provider: {type: MaxMind, maxMind: {cityDbSource: {local: {path: /db/city.mmdb}}, asnDbSource: {local: {path: /db/asn.mmdb}}}}}
` + egJWTBase + `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: ip, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  clientIPDetection: {xForwardedFor: {numTrustedHops: 2}}
`

func egGeoRoute(name, location string) string {
	return `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ` + name + `, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{matches: [{path: {type: PathPrefix, value: /` + name + `}}], backendRefs: [{name: web, port: 80}]}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: ` + name + `-geo, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ` + name + `}]
  authorization: {rules: [{action: Allow, principal: {clientIPGeoLocations: [` + location + `]}}]}
`
}

// TestGeoIPFilter: the geolocation filter's chain configuration looks up
// what any route's policy matches on (each route brings its fields, and
// the provider settings packed in an Any merge), from the EnvoyProxy's
// databases and the listener's client IP detection; each route removes
// the internal headers of the fields any route's policy uses from its
// requests, whatever its own policies.
func TestGeoIPFilter(t *testing.T) {
	plain := `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: c, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{matches: [{path: {type: PathPrefix, value: /c}}], backendRefs: [{name: web, port: 80}]}]
`
	gw := renderInline(t, egGeoBase+egGeoRoute("a", "{city: Paris}")+egGeoRoute("b", "{asn: 64500}")+plain, "envoygateway")
	hcm := hcmOf(t, gw.Listeners[0].FilterChains[0])
	var names []string
	cfg := &geoipv3.Geoip{}
	for _, f := range hcm.GetHttpFilters() {
		names = append(names, f.Name)
		if f.Name == "envoy.filters.http.geoip" {
			if f.Disabled {
				t.Error("geoip filter is off in the chain")
			}
			if err := f.GetTypedConfig().UnmarshalTo(cfg); err != nil {
				t.Fatal(err)
			}
		}
	}
	if want := []string{"envoy.filters.http.geoip", "envoy.filters.http.rbac", "envoy.filters.http.router"}; !slices.Equal(names, want) {
		t.Fatalf("chain %v, want %v", names, want)
	}
	if cfg.GetXffConfig().GetXffNumTrustedHops() != 1 {
		t.Errorf("xff config %v, want 1 hop (two trusted hops, the last of them Envoy)", cfg.GetXffConfig())
	}
	mm := &maxmindv3.MaxMindConfig{}
	if err := cfg.GetProvider().GetTypedConfig().UnmarshalTo(mm); err != nil {
		t.Fatal(err)
	}
	keys := mm.GetCommonProviderConfig().GetGeoFieldKeys()
	if mm.CityDbPath != "/db/city.mmdb" || mm.AsnDbPath != "/db/asn.mmdb" || keys.GetCity() != "x-eg-internal-geoip-city" || keys.GetAsn() != "x-eg-internal-geoip-asn" || keys.GetCountry() != "" {
		t.Errorf("provider %v, want both routes' fields (city, asn) from the EnvoyProxy's databases", mm)
	}
	removed := map[string][]string{}
	for _, r := range gw.RouteConfigurations[0].VirtualHosts[0].Routes {
		removed[r.Name[strings.LastIndex(r.Name, "-httproute-")+len("-httproute-"):][:1]] = r.RequestHeadersToRemove
	}
	want := []string{"x-eg-internal-geoip-city", "x-eg-internal-geoip-asn"}
	for _, route := range []string{"a", "b", "c"} {
		if !slices.Equal(removed[route], want) {
			t.Errorf("route %s removes %v, want %v: every route of the chain removes every internal header it looks up", route, removed[route], want)
		}
	}
}

// TestPoliciesOnUnroutedRoute: Envoy Gateway keeps the policies of a rule
// none of whose backends resolves beside its 500: the route carries their
// per-filter configuration and merge metadata, the chain their filters.
func TestPoliciesOnUnroutedRoute(t *testing.T) {
	input := egJWTBase + `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: lost, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: missing, port: 80}]}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: lost-cors, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: lost}]
  cors: {allowOrigins: [https://a.example.com]}
`
	objs, err := manifest.Parse("inline.yaml", []byte(input), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	res := compile(t, &manifest.Set{Objects: objs}, policy.Config{}.WithSetting("referenceGrantMode", "Strict"))
	out := render(t, res, envoy.Options{Target: "envoygateway"})
	if len(out.Gateways) != 1 {
		t.Fatalf("%d gateways rendered, want 1", len(out.Gateways))
	}
	gw := out.Gateways[0]
	r := gw.RouteConfigurations[0].VirtualHosts[0].Routes[0]
	if r.GetDirectResponse().GetStatus() != 500 {
		t.Fatalf("route %v, want a 500 direct response", r.Action)
	}
	if err := r.TypedPerFilterConfig["envoy.filters.http.cors"].UnmarshalTo(&corsv3.CorsPolicy{}); err != nil {
		t.Errorf("route lacks its CORS policy: %v", err)
	}
	if r.GetMetadata().GetFilterMetadata()["merge.gateway.envoyproxy.io/SecurityPolicy"] == nil {
		t.Errorf("route lacks the merge metadata naming its policy: %v", r.GetMetadata())
	}
	var names []string
	for _, f := range hcmOf(t, gw.Listeners[0].FilterChains[0]).GetHttpFilters() {
		names = append(names, f.Name)
	}
	if !slices.Contains(names, "envoy.filters.http.cors") {
		t.Errorf("chain %v lacks the CORS filter", names)
	}
}

// TestUnsupportedReason: a kind's reason for a capability no target has
// is in the finding and in the body of the 503 the route answers, so
// lint, render and explain say the same.
func TestUnsupportedReason(t *testing.T) {
	input := egJWTBase + `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: keyed, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: keyed, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: keyed}]
  jwt: {providers: [{name: p, remoteJWKS: {uri: 'https://idp.example.com/jwks', backendRefs: [{name: web, port: 80}, {name: web, port: 80}]}}]}
`
	objs, err := manifest.Parse("inline.yaml", []byte(input), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	res := compile(t, &manifest.Set{Objects: objs}, policy.Config{}.WithSetting("referenceGrantMode", "Strict"))
	out := render(t, res, envoy.Options{Target: "envoygateway"})
	const why = "gwpol does not build that cluster yet"
	var found bool
	for _, d := range out.Diagnostics {
		found = found || (d.Code == "GWP404" && strings.Contains(d.Message, why))
	}
	if !found {
		t.Errorf("no GWP404 saying %q: %v", why, out.Diagnostics)
	}
	dr := out.Gateways[0].RouteConfigurations[0].VirtualHosts[0].Routes[0].GetDirectResponse()
	if dr.GetStatus() != 503 || !strings.Contains(dr.GetBody().GetInlineString(), why) {
		t.Errorf("route answers %v, want 503 saying %q", dr, why)
	}
}

// TestInvalidPolicyKeepsItsFeatures: a SecurityPolicy that fails only the
// geolocation check (no client IP detection on the listener) fails its
// route with 500, and Envoy Gateway keeps its authorization there: the
// RBAC filter in the chain and per route, the internal headers removed,
// but no geolocation filter, since no provider is configured.
func TestInvalidPolicyKeepsItsFeatures(t *testing.T) {
	input := strings.Replace(egGeoBase, "clientIPDetection: {xForwardedFor: {numTrustedHops: 2}}", "timeout: {http: {idleTimeout: 5s}}", 1) + egGeoRoute("a", "{city: Paris}")
	objs, err := manifest.Parse("inline.yaml", []byte(input), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	res := compile(t, &manifest.Set{Objects: objs}, policy.Config{}.WithSetting("referenceGrantMode", "Strict"))
	out := render(t, res, envoy.Options{Target: "envoygateway"})
	if len(out.Gateways) != 1 {
		t.Fatalf("%d gateways rendered, want 1", len(out.Gateways))
	}
	gw := out.Gateways[0]
	r := gw.RouteConfigurations[0].VirtualHosts[0].Routes[0]
	if r.GetDirectResponse().GetStatus() != 500 {
		t.Fatalf("route %v, want the invalid policy's 500", r.Action)
	}
	if _, ok := r.TypedPerFilterConfig["envoy.filters.http.rbac"]; !ok {
		t.Errorf("route lacks the kept authorization: %v", r.TypedPerFilterConfig)
	}
	if !slices.Equal(r.RequestHeadersToRemove, []string{"x-eg-internal-geoip-city"}) {
		t.Errorf("route removes %v, want the internal city header", r.RequestHeadersToRemove)
	}
	var names []string
	for _, f := range hcmOf(t, gw.Listeners[0].FilterChains[0]).GetHttpFilters() {
		names = append(names, f.Name)
	}
	if want := []string{"envoy.filters.http.rbac", "envoy.filters.http.router"}; !slices.Equal(names, want) {
		t.Errorf("chain %v, want %v", names, want)
	}
}
