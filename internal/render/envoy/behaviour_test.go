package envoy_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	extprocv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_proc/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tracingv3 "github.com/envoyproxy/go-control-plane/envoy/type/tracing/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// These tests read the rendered config the way Envoy runs it: which HTTP
// filters act on a route, given the chain, the per-filter configs of the
// route, its virtual host and its RouteConfiguration, and the disable
// markers (set_metadata filters) that run before a filter guarded by them.

// behaviourBase is a Gateway with two HTTP listeners sharing port 80 (so
// their virtual hosts share one RouteConfiguration) and a route with two
// named rules on both, plus the backends and extensions every family
// needs.
const behaviourBase = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners:
  - {name: a, protocol: HTTP, port: 80, hostname: a.example.com}
  - {name: b, protocol: HTTP, port: 80, hostname: b.example.com}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: ext, namespace: infra}
spec: {ports: [{port: 9000}, {port: 9001}]}
---
apiVersion: v1
kind: Secret
metadata: {name: keys, namespace: infra}
immutable: true
data: {client-a: a2V5LWE=}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: authz, namespace: infra}
spec:
  extAuth: {grpcService: {backendRef: {name: ext, port: 9000}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: processor, namespace: infra}
spec:
  extProc: {grpcService: {backendRef: {name: ext, port: 9001}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: jwks, namespace: infra}
spec:
  jwt:
    providers:
    - {name: corp, issuer: https://corp.example.com, jwks: {local: {inline: '{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}'}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - name: r0
    matches: [{path: {type: PathPrefix, value: /r0}}]
    backendRefs: [{name: web, port: 80}]
  - name: r1
    matches: [{path: {type: PathPrefix, value: /r1}}]
    backendRefs: [{name: web, port: 80}]
`

// family is a TrafficPolicy field that can be switched off: the spec
// that turns it on, the one that disables it ("" for `{disable: {}}`),
// and the Envoy filter type that does its work.
type family struct {
	field, on, off, envoyType string
	auth                      bool // authenticates: kgateway's auth metadata follows it
}

func (f family) disable() string {
	if f.off == "" {
		return "{disable: {}}"
	}
	return f.off
}

var families = []family{
	{"extAuth", "{extensionRef: {name: authz}}", "", "envoy.extensions.filters.http.ext_authz.v3.ExtAuthz", true},
	{"extProc", "{extensionRef: {name: processor}}", "", "envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor", false},
	{"jwtAuth", "{extensionRef: {name: jwks}}", "", "envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication", true},
	{"basicAuth", "{users: [\"user:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\"]}", "", "envoy.extensions.filters.http.basic_auth.v3.BasicAuth", true},
	{"apiKeyAuth", "{secretRef: {name: keys}}", "", "envoy.extensions.filters.http.api_key_auth.v3.ApiKeyAuth", true},
	{"cors", "{allowOrigins: [https://a.example.com]}", "", "envoy.extensions.filters.http.cors.v3.Cors", false},
	{"buffer", "{maxRequestSize: 1024}", "", "envoy.extensions.filters.http.buffer.v3.Buffer", false},
	{"faultInjection", "{abort: {httpStatus: 503, percentage: 50}}", "", "envoy.extensions.filters.http.fault.v3.HTTPFault", false},
	{"compression", "{responseCompression: {}}", "{responseCompression: {disable: {}}}", "envoy.extensions.filters.http.compressor.v3.Compressor", false},
	{"compression", "{requestDecompression: {}}", "{requestDecompression: {disable: {}}}", "envoy.extensions.filters.http.decompressor.v3.Decompressor", false},
}

// familyCapability is the render capability each family's filter needs:
// the targets without it fail such routes closed (GWP404), which the
// target-conformance test covers.
var familyCapability = map[string]string{
	"envoy.extensions.filters.http.ext_authz.v3.ExtAuthz":          "ext_authz",
	"envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor":  "ext_proc",
	"envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication": "jwt_authn",
	"envoy.extensions.filters.http.basic_auth.v3.BasicAuth":        "basic_auth",
	"envoy.extensions.filters.http.api_key_auth.v3.ApiKeyAuth":     "api_key_auth",
	"envoy.extensions.filters.http.cors.v3.Cors":                   "cors",
	"envoy.extensions.filters.http.buffer.v3.Buffer":               "buffer",
	"envoy.extensions.filters.http.fault.v3.HTTPFault":             "fault",
	"envoy.extensions.filters.http.compressor.v3.Compressor":       "compressor",
	"envoy.extensions.filters.http.decompressor.v3.Decompressor":   "decompressor",
}

// targetsWith are the render targets that have a capability.
func targetsWith(capability string) []string {
	var out []string
	for _, name := range envoy.Registry().TargetNames() {
		if envoy.Registry().Targets()[name].Has(capability) {
			out = append(out, name)
		}
	}
	return out
}

// envoyTargets are the targets with all of upstream Envoy's filters (envoy,
// kgateway), whose renderings of one field these tests compare; the
// targets with fewer fail the field closed instead (target_test.go).
func envoyTargets() []string {
	full := envoy.Registry().Targets()["envoy"].List()
	var out []string
	for _, name := range envoy.Registry().TargetNames() {
		if !slices.ContainsFunc(full, func(c string) bool { return !envoy.Registry().Targets()[name].Has(c) }) {
			out = append(out, name)
		}
	}
	return out
}

func trafficPolicy(name, target, field, value string, weight int) string {
	return fmt.Sprintf(`---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: %s, namespace: infra, annotations: {kgateway.dev/policy-weight: "%d"}}
spec:
  targetRefs: [%s]
  %s: %s
`, name, weight, target, field, value)
}

const (
	gatewayRef  = "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}"
	listenerRef = "{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: a}"
	ruleRef     = "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop, sectionName: r0}"
)

// TestDisableSwitchesTheFilterOff: for every filter family, a policy that
// disables it at a rule, a listener or the whole Gateway stops the filter
// a less specific (or lower-weight) policy turns on from acting on the
// routes it covers, and only on those, on every render target. With
// enableAuthMetadata, auth_succeeded is recorded exactly where an
// authentication family acts.
func TestDisableSwitchesTheFilterOff(t *testing.T) {
	levels := []struct {
		name, target string
		weight       int
		off          func(route string) bool // routes the disable covers
	}{
		{"rule", ruleRef, 0, func(r string) bool { return strings.Contains(r, "-r0-") }},
		{"listener", listenerRef, 0, func(r string) bool { return strings.HasPrefix(r, "listener~80~a_example_com") }},
		{"gateway", gatewayRef, 1, func(string) bool { return true }},
	}
	for _, f := range families {
		for _, lv := range levels {
			input := behaviourBase + trafficPolicy("on", gatewayRef, f.field, f.on, 0) +
				trafficPolicy("off", lv.target, f.field, f.disable(), lv.weight)
			for _, target := range targetsWith(familyCapability[f.envoyType]) {
				t.Run(f.envoyType[strings.LastIndex(f.envoyType, ".")+1:]+"/"+lv.name+"/"+target, func(t *testing.T) {
					gw := renderInline(t, input, target, withAuthMetadata)
					routes := 0
					for route, acting := range actingFilters(t, gw) {
						routes++
						want := !lv.off(route)
						if got := slices.Contains(acting, f.envoyType); got != want {
							t.Errorf("route %s: %s acts = %v, want %v (acting: %v)", route, f.envoyType, got, want, acting)
						}
						if got := slices.Contains(acting, authRecorded); got != (want && f.auth) {
							t.Errorf("route %s: auth_succeeded recorded = %v, want %v (acting: %v)", route, got, want && f.auth, acting)
						}
					}
					if routes != 4 {
						t.Fatalf("%d routes rendered, want 4 (2 rules × 2 listeners)", routes)
					}
				})
			}
		}
	}
}

// TestExtProcProcessingModeEnums: every value Envoy defines for a
// processing mode, spelled as kgateway's API spells it (Envoy's enum name)
// or in CamelCase, reaches the ext_proc filter and its per-route override
// as that enum value.
func TestExtProcProcessingModeEnums(t *testing.T) {
	type mode struct{ field, value string }
	var modes []mode
	for name := range extprocv3.ProcessingMode_HeaderSendMode_value {
		for _, f := range []string{"requestHeaderMode", "responseHeaderMode", "requestTrailerMode", "responseTrailerMode"} {
			modes = append(modes, mode{f, name})
		}
	}
	for name := range extprocv3.ProcessingMode_BodySendMode_value {
		for _, f := range []string{"requestBodyMode", "responseBodyMode"} {
			modes = append(modes, mode{f, name})
		}
	}
	slices.SortFunc(modes, func(a, b mode) int { return strings.Compare(a.field+a.value, b.field+b.value) })
	for _, m := range modes {
		for _, spelling := range []string{m.value, camelCase(m.value)} {
			t.Run(m.field+"="+spelling, func(t *testing.T) {
				input := behaviourBase + fmt.Sprintf(`---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: moded, namespace: infra}
spec:
  extProc: {grpcService: {backendRef: {name: ext, port: 9001}}, processingMode: {%[1]s: %[2]s}}
`, m.field, spelling) + trafficPolicy("p", ruleRef, "extProc", fmt.Sprintf("{extensionRef: {name: moded}, processingMode: {%s: %s}}", m.field, spelling), 0)
				gw := renderInline(t, input, "kgateway")
				want := m.value
				if m.value == "DEFAULT" || m.value == "NONE" {
					want = "" // the zero value: protojson leaves it out
				}
				filter := findFilterConfig(t, gw, "envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor")
				if got := jsonPath(filter, "processingMode", m.field); got != want {
					t.Errorf("filter processingMode.%s = %q, want %q", m.field, got, want)
				}
				per := findPerRoute(t, gw, "envoy.extensions.filters.http.ext_proc.v3.ExtProcPerRoute")
				if got := jsonPath(per, "overrides", "processingMode", m.field); got != want {
					t.Errorf("per-route processingMode.%s = %q, want %q", m.field, got, want)
				}
			})
		}
	}
}

// camelCase turns BUFFERED_PARTIAL into BufferedPartial.
func camelCase(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.ToLower(s), "_") {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// withAuthMetadata turns kgateway's enableAuthMetadata setting on.
func withAuthMetadata(c *policy.Config) {
	if c.Values == nil {
		c.Values = map[string]any{}
	}
	c.Values["enableAuthMetadata"] = true
}

// compileInline parses a manifest and compiles it under cfg.
func compileInline(t *testing.T, input string, cfg policy.Config) *merge.Result {
	t.Helper()
	objs, err := manifest.Parse("inline.yaml", []byte(input), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return compile(t, &manifest.Set{Objects: objs}, cfg)
}

// clusterNames are the names of a Gateway's clusters, in output order.
func clusterNames(gw *envoy.Gateway) []string {
	var out []string
	for _, cl := range gw.Clusters {
		out = append(out, cl.GetName())
	}
	return out
}

// renderInline compiles and renders a manifest; any render diagnostic
// fails the test (the inputs here are valid).
func renderInline(t *testing.T, input, target string, settings ...func(*policy.Config)) *envoy.Gateway {
	t.Helper()
	cfg := policy.Config{}
	for _, s := range settings {
		s(&cfg)
	}
	res := compileInline(t, input, cfg)
	out := render(t, res, envoy.Options{Target: target, MergeKeyCompat: target == "kgateway", Config: cfg})
	if d := diagText(out.Diagnostics); d != "" {
		t.Fatalf("render diagnostics:\n%s", d)
	}
	if len(out.Gateways) != 1 {
		t.Fatalf("%d gateways rendered, want 1", len(out.Gateways))
	}
	return out.Gateways[0]
}

// actingFilters lists, per route name, the Envoy types of the HTTP filters
// that act on it.
func actingFilters(t *testing.T, gw *envoy.Gateway) map[string][]string {
	t.Helper()
	chains := map[string][]*hcmv3.HttpFilter{} // by route configuration name
	for _, l := range gw.Listeners {
		for _, fc := range l.FilterChains {
			if hcm := hcmOf(t, fc); hcm != nil {
				chains[hcm.GetRds().GetRouteConfigName()] = hcm.HttpFilters
			}
		}
	}
	out := map[string][]string{}
	for _, rc := range gw.RouteConfigurations {
		chain, ok := chains[rc.Name]
		if !ok {
			t.Fatalf("route configuration %s: no listener uses it", rc.Name)
		}
		for _, vh := range rc.VirtualHosts {
			for _, r := range vh.Routes {
				out[r.Name] = actingOn(t, chain, r, vh, rc)
			}
		}
	}
	return out
}

func hcmOf(t *testing.T, fc *listenerv3.FilterChain) *hcmv3.HttpConnectionManager {
	for _, f := range fc.Filters {
		hcm := &hcmv3.HttpConnectionManager{}
		if tc := f.GetTypedConfig(); tc != nil && tc.MessageIs(hcm) {
			if err := tc.UnmarshalTo(hcm); err != nil {
				t.Fatal(err)
			}
			return hcm
		}
	}
	return nil
}

// authRecorded stands in the acting list for a filter that records
// kgateway's auth_succeeded metadata on the route.
const authRecorded = "auth_succeeded"

// actingOn walks the chain in order: a filter runs when it is enabled in
// the chain and not switched off by its most specific per-filter config,
// or disabled in the chain and switched on by one; a running set_metadata
// filter writes its namespaces; a filter guarded by a namespace (a
// Composite matcher or ext_authz filter_enabled_metadata) acts only when
// no earlier running filter wrote that namespace's disable. A running
// filter whose effective config (its per-filter config unless that only
// toggles it) writes auth_succeeded records it.
func actingOn(t *testing.T, chain []*hcmv3.HttpFilter, r *routev3.Route, vh *routev3.VirtualHost, rc *routev3.RouteConfiguration) []string {
	written := map[string]bool{}
	var acting []string
	for _, f := range chain {
		cfg := toJSON(t, f.GetTypedConfig())
		per := r.TypedPerFilterConfig[f.Name]
		if per == nil {
			per = vh.TypedPerFilterConfig[f.Name]
		}
		if per == nil {
			per = rc.TypedPerFilterConfig[f.Name]
		}
		running := !f.Disabled
		if per != nil {
			pj := toJSON(t, per)
			running = jsonPath(pj, "disabled") != "true" && !doesNothing(pj)
		}
		if !running {
			continue
		}
		for _, md := range asList(cfg["metadata"]) {
			if ns, ok := md["metadataNamespace"].(string); ok {
				written[ns] = true
			}
		}
		if guard := guardOf(cfg); guard != "" && written[guard] {
			continue
		}
		acting = append(acting, innerType(cfg))
		effective := toJSON(t, per)
		if effective == nil || innerType(effective) == "envoy.config.route.v3.FilterConfig" {
			effective = cfg
		}
		if b, _ := json.Marshal(effective); strings.Contains(string(b), authRecorded) {
			acting = append(acting, authRecorded)
		}
	}
	return acting
}

// doesNothing: a per-route config that leaves its filter nothing to do on the
// route, kgateway's forms of a disable — a CorsPolicy enabled for no
// request (filterEnabled 0%), an HTTPFault injecting no fault.
func doesNothing(per map[string]any) bool {
	switch innerType(per) {
	case "envoy.extensions.filters.http.cors.v3.CorsPolicy":
		n := jsonPath(per, "filterEnabled", "defaultValue", "numerator")
		return jsonAny(per, "filterEnabled") != nil && (n == "" || n == "0")
	case "envoy.extensions.filters.http.fault.v3.HTTPFault":
		return per["delay"] == nil && per["abort"] == nil && per["responseRateLimit"] == nil
	}
	return false
}

// guardOf is the disable namespace a filter honours, "" for none.
func guardOf(cfg map[string]any) string {
	if ns := jsonPath(cfg, "filterEnabledMetadata", "filter"); ns != "" {
		return ns
	}
	for _, m := range asList(jsonAny(cfg, "xdsMatcher", "matcherList", "matchers")) {
		if ns := jsonPath(m, "predicate", "singlePredicate", "input", "typedConfig", "filter"); ns != "" {
			return ns
		}
	}
	return ""
}

// innerType is the filter's Envoy type, looking through a Composite
// wrapper to the filter it runs.
func innerType(cfg map[string]any) string {
	for _, m := range asList(jsonAny(cfg, "xdsMatcher", "matcherList", "matchers")) {
		if typ := jsonPath(m, "onMatch", "action", "typedConfig", "typedConfig", "typedConfig", "@type"); typ != "" {
			return strings.TrimPrefix(typ, "type.googleapis.com/")
		}
	}
	typ, _ := cfg["@type"].(string)
	return strings.TrimPrefix(typ, "type.googleapis.com/")
}

func findFilterConfig(t *testing.T, gw *envoy.Gateway, typ string) map[string]any {
	t.Helper()
	for _, l := range gw.Listeners {
		for _, fc := range l.FilterChains {
			for _, f := range hcmOf(t, fc).GetHttpFilters() {
				cfg := toJSON(t, f.GetTypedConfig())
				if innerType(cfg) != typ {
					continue
				}
				for _, m := range asList(jsonAny(cfg, "xdsMatcher", "matcherList", "matchers")) {
					if inner, ok := jsonAny(m, "onMatch", "action", "typedConfig", "typedConfig", "typedConfig").(map[string]any); ok {
						return inner
					}
				}
				return cfg
			}
		}
	}
	t.Fatalf("no %s filter rendered", typ)
	return nil
}

func findPerRoute(t *testing.T, gw *envoy.Gateway, typ string) map[string]any {
	t.Helper()
	for _, rc := range gw.RouteConfigurations {
		for _, vh := range rc.VirtualHosts {
			for _, r := range vh.Routes {
				for _, a := range r.TypedPerFilterConfig {
					if cfg := toJSON(t, a); innerType(cfg) == typ {
						return cfg
					}
				}
			}
		}
	}
	t.Fatalf("no route has a %s", typ)
	return nil
}

func toJSON(t *testing.T, a *anypb.Any) map[string]any {
	t.Helper()
	if a == nil {
		return nil
	}
	b, err := protojson.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func jsonAny(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// jsonPath is a scalar at path as text, "" when absent.
func jsonPath(v any, path ...string) string {
	switch x := jsonAny(v, path...).(type) {
	case nil:
		return ""
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}

func asList(v any) []map[string]any {
	l, _ := v.([]any)
	var out []map[string]any
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// TestRateLimitFilterOrder: local and global rate limits share kgateway's
// rate-limit stage, where filters run in name order — a global limit from
// namespace "infra" (ratelimit/infra/…) before the local one
// (ratelimit/local), one from namespace "zone" after it — on every target.
func TestRateLimitFilterOrder(t *testing.T) {
	for _, ns := range []string{"infra", "zone"} {
		for _, target := range envoyTargets() {
			t.Run(ns+"/"+target, func(t *testing.T) {
				input := behaviourBase + fmt.Sprintf(`---
apiVersion: v1
kind: Namespace
metadata: {name: zone}
---
apiVersion: v1
kind: Service
metadata: {name: limiter, namespace: %[1]s}
spec: {ports: [{port: 8081}]}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: limits, namespace: %[1]s}
spec:
  rateLimit: {domain: shop, grpcService: {backendRef: {name: limiter, port: 8081}}}
`, ns) + trafficPolicy("limits", gatewayRef, "rateLimit", fmt.Sprintf(`
    local: {tokenBucket: {maxTokens: 10, fillInterval: 1s}}
    global: {extensionRef: {name: limits, namespace: %s}, descriptors: [{entries: [{type: RemoteAddress}]}]}`, ns), 0)
				gw := renderInline(t, input, target)
				var names []string
				for _, f := range hcmOf(t, gw.Listeners[0].FilterChains[0]).GetHttpFilters() {
					if strings.HasPrefix(f.Name, "ratelimit/") {
						names = append(names, f.Name)
					}
				}
				global := "ratelimit/" + ns + "/limits"
				want := []string{global, "ratelimit/local"}
				if global > "ratelimit/local" {
					want = []string{"ratelimit/local", global}
				}
				if !slices.Equal(names, want) {
					t.Errorf("rate limit filters in the chain: %v, want %v", names, want)
				}
			})
		}
	}
}

// TestServiceClusterProtocol: under kgateway a Service cluster speaks
// HTTP/2 exactly when its port's protocol says so — its appProtocol, or
// without one its name — as kgateway decides it; under envoy and
// envoygateway (Envoy Gateway's translator gives a GRPCRoute's backends
// HTTP/2) a GRPCRoute backend speaks HTTP/2 whatever its Service says —
// but under envoygateway a WebSocket appProtocol, which Envoy Gateway
// forces to HTTP/1.1 (shouldForceHTTP1Upstream, GRPCRoutes too).
func TestServiceClusterProtocol(t *testing.T) {
	http2 := []string{"kubernetes.io/h2c", "grpc", "http2", "grpc-web"}
	type portCase struct{ name, appProtocol string }
	var cases []portCase
	for _, ap := range []string{"", "kubernetes.io/h2c", "grpc", "http2", "grpc-web", "kubernetes.io/ws"} {
		cases = append(cases, portCase{appProtocol: ap})
	}
	// kgateway reads a port's name only when it has no appProtocol.
	cases = append(cases, portCase{name: "grpc"}, portCase{name: "http2"}, portCase{name: "grpc-web"},
		portCase{name: "web"}, portCase{name: "grpc", appProtocol: "http"}, portCase{name: "web", appProtocol: "grpc"})
	// kgateway lower-cases an appProtocol before reading it
	// (pluginsdk/ir/backend.go: ParseAppProtocol); the Service API lets
	// one hold upper case.
	cases = append(cases, portCase{appProtocol: "GRPC"}, portCase{appProtocol: "kubernetes.io/H2C"},
		portCase{name: "web", appProtocol: "Http2"}, portCase{appProtocol: "Grpc-Web"}, portCase{appProtocol: "HTTP"},
		portCase{name: "grpc", appProtocol: "HTTP"})
	for _, pc := range cases {
		for _, target := range envoyTargets() {
			t.Run(target+"/"+pc.name+"/"+pc.appProtocol, func(t *testing.T) {
				port := "port: 9090"
				if pc.name != "" {
					port += fmt.Sprintf(", name: %q", pc.name)
				}
				if pc.appProtocol != "" {
					port += fmt.Sprintf(", appProtocol: %q", pc.appProtocol)
				}
				port = "{" + port + "}"
				protocol := pc.appProtocol
				if protocol == "" && target == "kgateway" {
					protocol = pc.name
				}
				input := behaviourBase + fmt.Sprintf(`---
apiVersion: v1
kind: Service
metadata: {name: grpc, namespace: infra}
spec: {ports: [%s]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: rpc, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: grpc, port: 9090}]}]
`, port)
				gw := renderInline(t, input, target)
				want := slices.Contains(http2, protocol) || target == "envoy" ||
					target == "envoygateway" && pc.appProtocol != "kubernetes.io/ws" || // a WebSocket port is forced to HTTP/1.1 (TestServiceUpstreamProtocol)
					target == "kgateway" && slices.Contains(http2, strings.ToLower(protocol))
				for _, c := range gw.Clusters {
					if c.Name != "kube_infra_grpc_9090" {
						continue
					}
					_, got := c.TypedExtensionProtocolOptions["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]
					if got != want {
						t.Errorf("HTTP/2 protocol options present = %v, want %v", got, want)
					}
					return
				}
				t.Fatal("no cluster kube_infra_grpc_9090")
			})
		}
	}
}

// TestHTTPSListenerWithoutCertificates: an HTTPS listener terminates TLS
// (a TLS context on its chain, require_tls on its virtual hosts) only
// when it has certificates; without any kgateway serves it in plain text,
// and gwpol renders the same on every target.
func TestHTTPSListenerWithoutCertificates(t *testing.T) {
	for _, certs := range []bool{false, true} {
		for _, target := range envoyTargets() {
			t.Run(fmt.Sprintf("%s/certificates=%v", target, certs), func(t *testing.T) {
				tls := ""
				if certs {
					tls = ", tls: {certificateRefs: [{name: cert}]}"
				}
				input := fmt.Sprintf(`
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners: [{name: https, protocol: HTTPS, port: 443%s}]
---
apiVersion: v1
kind: Secret
metadata: {name: cert, namespace: infra}
type: kubernetes.io/tls
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
`, tls)
				gw := renderInline(t, input, target)
				chain := gw.Listeners[0].FilterChains[0]
				if got := chain.TransportSocket != nil; got != certs {
					t.Errorf("TLS context on the chain = %v, want %v", got, certs)
				}
				for _, vh := range gw.RouteConfigurations[0].VirtualHosts {
					if got := vh.RequireTls == routev3.VirtualHost_ALL; got != certs {
						t.Errorf("virtual host %s require_tls ALL = %v, want %v", vh.Name, got, certs)
					}
				}
			})
		}
	}
}

// TestStatPrefixTemplate: a route stat prefix naming route variables is
// filled in per route, as kgateway does, even when one policy reaches
// several routes.
func TestStatPrefixTemplate(t *testing.T) {
	input := behaviourBase + trafficPolicy("stats", "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}", "statPrefix",
		`"{{ route_namespace }}.{{route_name}}.{{ rule_name }}"`, 0)
	for _, target := range envoyTargets() {
		gw := renderInline(t, input, target)
		n := 0
		for _, vh := range gw.RouteConfigurations[0].VirtualHosts {
			for _, r := range vh.Routes {
				n++
				rule := "r0"
				if strings.Contains(r.Name, "-r1-") {
					rule = "r1"
				}
				if want := "infra.shop." + rule; r.StatPrefix != want {
					t.Errorf("%s: route %s stat_prefix %q, want %q", target, r.Name, r.StatPrefix, want)
				}
			}
		}
		if n != 4 {
			t.Errorf("%s: %d routes, want 4", target, n)
		}
	}
}

// TestRequestMirrorTuning: a TrafficPolicy requestMirror tunes every
// mirror the route's RequestMirror filters make, the most specific level
// winning (a rule's false over the Gateway's true), and adds none where
// the route mirrors nothing.
func TestRequestMirrorTuning(t *testing.T) {
	input := strings.Replace(behaviourBase, `  - name: r0
    matches: [{path: {type: PathPrefix, value: /r0}}]
`, `  - name: r0
    matches: [{path: {type: PathPrefix, value: /r0}}]
    filters:
    - {type: RequestMirror, requestMirror: {backendRef: {name: web, port: 80}}}
    - {type: RequestMirror, requestMirror: {backendRef: {name: ext, port: 9000}}}
`, 1) + trafficPolicy("gw-mirror", gatewayRef, "requestMirror", "{disableShadowHostSuffixAppend: true, hostRewriteLiteral: shadow.example}", 0) +
		trafficPolicy("rule-mirror", "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop, sectionName: r0}", "requestMirror", "{disableShadowHostSuffixAppend: false}", 0)
	for _, target := range envoyTargets() {
		gw := renderInline(t, input, target)
		for _, vh := range gw.RouteConfigurations[0].VirtualHosts {
			for _, r := range vh.Routes {
				mirrors := r.GetRoute().GetRequestMirrorPolicies()
				if !strings.Contains(r.Name, "-r0-") {
					if len(mirrors) != 0 {
						t.Errorf("%s: route %s mirrors %d times, want none", target, r.Name, len(mirrors))
					}
					continue
				}
				if len(mirrors) != 2 {
					t.Fatalf("%s: route %s mirrors %d times, want 2", target, r.Name, len(mirrors))
				}
				// Envoy Gateway's data plane keeps every mirrored Host
				// (Target.MirrorsKeepHost): a tuning's false adds nothing
				// to it, while the rule's policy still drops the
				// Gateway's rewrite.
				keep := target == "envoygateway"
				for _, m := range mirrors {
					if m.DisableShadowHostSuffixAppend != keep || m.HostRewriteLiteral != "" {
						t.Errorf("%s: route %s mirror %s: the rule's policy (suffix as the target keeps it, no rewrite) should win, got %v", target, r.Name, m.Cluster, m)
					}
				}
			}
		}
	}
	// Without the rule's policy, the Gateway's applies to both mirrors.
	input, _, found := strings.Cut(input, "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: rule-mirror")
	if !found {
		t.Fatal("the rule's policy is not in the input")
	}
	gw := renderInline(t, input, "kgateway")
	for _, vh := range gw.RouteConfigurations[0].VirtualHosts {
		for _, r := range vh.Routes {
			for _, m := range r.GetRoute().GetRequestMirrorPolicies() {
				if !m.DisableShadowHostSuffixAppend || m.HostRewriteLiteral != "shadow.example" {
					t.Errorf("route %s mirror %s: want the Gateway's tuning, got %v", r.Name, m.Cluster, m)
				}
			}
		}
	}
}

// TestRequestMirrorPortMissing: a RequestMirror whose Service does not
// expose the port mirrors nothing — kgateway's convertMirrorIR finds no
// backend for it (BackendIndex keys a Service's backends by port) — while
// the route's other mirror, and its traffic, stay.
func TestRequestMirrorPortMissing(t *testing.T) {
	input := strings.Replace(behaviourBase, `  - name: r0
    matches: [{path: {type: PathPrefix, value: /r0}}]
`, `  - name: r0
    matches: [{path: {type: PathPrefix, value: /r0}}]
    filters:
    - {type: RequestMirror, requestMirror: {backendRef: {name: web, port: 81}}}
    - {type: RequestMirror, requestMirror: {backendRef: {name: web, port: 80}}}
`, 1)
	for _, target := range envoyTargets() {
		gw := renderInline(t, input, target)
		found := false
		for _, vh := range gw.RouteConfigurations[0].VirtualHosts {
			for _, r := range vh.Routes {
				if !strings.Contains(r.Name, "-r0-") {
					continue
				}
				found = true
				mirrors := r.GetRoute().GetRequestMirrorPolicies()
				if len(mirrors) != 1 || !strings.Contains(mirrors[0].Cluster, "80") {
					t.Errorf("%s: route %s mirrors %v, want the port-80 mirror alone", target, r.Name, mirrors)
				}
			}
		}
		if !found {
			t.Errorf("%s: rule r0 not rendered", target)
		}
	}
}

// TestExtensionFilterPrecedence: filters that call extensions run within
// their stage by the extension's weight, higher first, then by name, as
// kgateway orders them: an ext_auth extension's kgateway.dev/policy-weight
// annotation, an ext_proc extension's filterStage.weight.
func TestExtensionFilterPrecedence(t *testing.T) {
	weights := map[string]int{"alpha": -1, "bravo": 0, "charlie": 2, "delta": 0}
	for _, fam := range []struct{ field, prefix, spec string }{
		{"extAuth", "ext_auth/", "metadata: {name: %[1]s, namespace: infra, annotations: {kgateway.dev/policy-weight: \"%[2]d\"}}\nspec: {extAuth: {grpcService: {backendRef: {name: ext, port: 9000}}}}"},
		{"extProc", "ext_proc/", "metadata: {name: %[1]s, namespace: infra}\nspec: {extProc: {grpcService: {backendRef: {name: ext, port: 9001}}, filterStage: {stage: AuthZ, predicate: After, weight: %[2]d}}}"},
	} {
		input := behaviourBase
		var want []string
		for _, name := range slices.Sorted(maps.Keys(weights)) {
			input += "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: GatewayExtension\n" + fmt.Sprintf(fam.spec, name, weights[name]) + "\n"
			input += trafficPolicy("p-"+name, gatewayRef, fam.field, "{extensionRef: {name: "+name+"}}", 0)
			want = append(want, fam.prefix+"infra/"+name)
		}
		slices.SortStableFunc(want, func(a, b string) int {
			return cmp.Compare(weights[strings.TrimPrefix(b, fam.prefix+"infra/")], weights[strings.TrimPrefix(a, fam.prefix+"infra/")])
		})
		for _, target := range envoyTargets() {
			gw := renderInline(t, input, target, func(c *policy.Config) {
				*c = c.WithSetting("policyMerge", map[string]any{"trafficPolicy": map[string]any{fam.field: "DeepMerge"}})
			})
			var got []string
			for _, f := range hcmOf(t, gw.Listeners[0].FilterChains[0]).GetHttpFilters() {
				if strings.HasPrefix(f.Name, fam.prefix) {
					got = append(got, f.Name)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s %s filters: %v, want %v", target, fam.field, got, want)
			}
		}
	}
}

// enumCase renders one enum value: extra objects, the policy field and
// value, and what the Envoy config must then hold.
type enumCase struct {
	name, extra, field, value string
	check                     func(t *testing.T, gw *envoy.Gateway)
}

// TestEnumFieldsRender: every value kgateway's API allows for the other
// enum-valued TrafficPolicy fields gwpol renders reaches Envoy as the
// matching setting, with no diagnostic, on every target.
func TestEnumFieldsRender(t *testing.T) {
	limiter := `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: limits, namespace: infra}
spec:
  rateLimit: {domain: shop, grpcService: {backendRef: {name: ext, port: 9000}}%s}
`
	var cases []enumCase
	for _, kind := range []string{"Request", "Route", "Cluster", "Host"} {
		cases = append(cases, enumCase{"tracing metadata kind " + kind, "", "tracing",
			fmt.Sprintf("{attributes: [{name: tag, metadata: {kind: %s, metadataKey: {key: k, path: [{key: p}]}}}]}", kind),
			func(t *testing.T, gw *envoy.Gateway) {
				var tag []*tracingv3.CustomTag
				for _, r := range gw.RouteConfigurations[0].VirtualHosts[0].Routes {
					if strings.Contains(r.Name, "-r0-") {
						tag = r.GetTracing().GetCustomTags()
					}
				}
				if len(tag) != 1 || tag[0].GetMetadata().GetKind() == nil {
					t.Fatalf("custom tags %v, want one metadata tag", tag)
				}
				got := tag[0].GetMetadata().GetKind().ProtoReflect().WhichOneof(tag[0].GetMetadata().GetKind().ProtoReflect().Descriptor().Oneofs().Get(0))
				if got == nil || string(got.Name()) != strings.ToLower(kind) {
					t.Errorf("metadata kind %v, want %s", got, strings.ToLower(kind))
				}
			}})
	}
	for _, lib := range []string{"Gzip", "Brotli", "Zstd"} {
		cases = append(cases, enumCase{"compression library " + lib, "", "compression", fmt.Sprintf("{responseCompression: {libraries: [%s]}, requestDecompression: {libraries: [%s]}}", lib, lib),
			func(t *testing.T, gw *envoy.Gateway) {
				for _, typ := range []string{"envoy.extensions.filters.http.compressor.v3.Compressor", "envoy.extensions.filters.http.decompressor.v3.Decompressor"} {
					cfg := findFilterConfig(t, gw, typ)
					libType := jsonPath(cfg, "compressorLibrary", "typedConfig", "@type") + jsonPath(cfg, "decompressorLibrary", "typedConfig", "@type")
					if !strings.Contains(libType, "."+strings.ToLower(lib)+".") {
						t.Errorf("%s library %q, want the %s extension", typ, libType, lib)
					}
				}
			}})
	}
	for _, h := range []string{"Off", "DraftVersion03"} {
		cases = append(cases, enumCase{"xRateLimitHeaders " + h, fmt.Sprintf(limiter, ", xRateLimitHeaders: "+h), "rateLimit",
			"{global: {extensionRef: {name: limits}, descriptors: [{entries: [{type: RemoteAddress}]}]}}",
			func(t *testing.T, gw *envoy.Gateway) {
				got := jsonPath(findFilterConfig(t, gw, "envoy.extensions.filters.http.ratelimit.v3.RateLimit"), "enableXRatelimitHeaders")
				want := map[string]string{"Off": "", "DraftVersion03": "DRAFT_VERSION_03"}[h]
				if got != want {
					t.Errorf("enable_x_ratelimit_headers %q, want %q", got, want)
				}
			}})
	}
	for _, mode := range []string{"Strict", "AllowMissing"} {
		cases = append(cases, enumCase{"jwt validationMode " + mode, `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: moded-jwks, namespace: infra}
spec:
  jwt:
    validationMode: ` + mode + `
    providers:
    - {name: corp, issuer: https://corp.example.com, jwks: {local: {inline: '{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}'}}}
`, "jwtAuth", "{extensionRef: {name: moded-jwks}}",
			func(t *testing.T, gw *envoy.Gateway) {
				b, _ := json.Marshal(findFilterConfig(t, gw, "envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication"))
				if got := strings.Contains(string(b), "allowMissing"); got != (mode == "AllowMissing") {
					t.Errorf("requirement allows a missing token = %v, want %v", got, mode == "AllowMissing")
				}
			}})
	}
	for _, tc := range cases {
		for _, target := range envoyTargets() {
			t.Run(tc.name+"/"+target, func(t *testing.T) {
				tc.check(t, renderInline(t, behaviourBase+tc.extra+trafficPolicy("p", ruleRef, tc.field, tc.value, 0), target))
			})
		}
	}
}

// TestExtProcUnknownProcessingMode: a processing mode that is not one of
// Envoy's values is reported with the field and the values allowed, and
// its routes fail closed.
func TestExtProcUnknownProcessingMode(t *testing.T) {
	input := behaviourBase + trafficPolicy("p", ruleRef, "extProc", "{extensionRef: {name: processor}, processingMode: {requestBodyMode: SOMETIMES}}", 0)
	objs, err := manifest.Parse("inline.yaml", []byte(input), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := policy.Config{}
	res := compile(t, &manifest.Set{Objects: objs}, cfg)
	for _, target := range envoyTargets() {
		out := render(t, res, envoy.Options{Target: target, Config: cfg})
		d := diagText(out.Diagnostics)
		if !strings.Contains(d, "GWP401") || !strings.Contains(d, `requestBodyMode: "SOMETIMES" is not one of`) || !strings.Contains(d, "BUFFERED_PARTIAL") {
			t.Errorf("%s: diagnostics %q, want a GWP401 naming requestBodyMode and the allowed values", target, d)
		}
		for _, vh := range out.Gateways[0].RouteConfigurations[0].VirtualHosts {
			for _, r := range vh.Routes {
				if strings.Contains(r.Name, "-r0-") && r.GetDirectResponse().GetStatus() != 503 {
					t.Errorf("%s: route %s does not fail closed", target, r.Name)
				}
			}
		}
	}
}

// TestRulesKgatewayCannotTranslate: a rule status reports as dropped
// (an empty regular expression path, which the CRD accepts and Envoy's schema refuses) has no
// Envoy route, and the routes after it keep their positions; a rule status reports
// as replaced (a prefix rewrite with a dot segment, which kgateway's route
// check refuses) answers 500 with kgateway's
// body. Render never fails on either.
func TestRulesKgatewayCannotTranslate(t *testing.T) {
	input := `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches: [{path: {type: RegularExpression, value: ""}}]
    backendRefs: [{name: web, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /old}}]
    filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: "/a/../b"}}}]
    backendRefs: [{name: web, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /}}]
    backendRefs: [{name: web, port: 80}]
`
	for _, target := range envoy.Registry().TargetNames() {
		tg, _ := envoy.Registry().Target(target)
		gw := renderInline(t, input, target)
		got := map[string]string{}
		for _, rc := range gw.RouteConfigurations {
			for _, vh := range rc.VirtualHosts {
				for _, r := range vh.Routes {
					what := "forwards"
					if dr := r.GetDirectResponse(); dr != nil {
						what = fmt.Sprintf("%d %s", dr.GetStatus(), dr.GetBody().GetInlineString())
					}
					got[r.Name[strings.Index(r.Name, "-route-")+1:]] = what
				}
			}
		}
		want := map[string]string{
			// position 0 (precedence order) was the dropped rule's
			"route-1-httproute-r-infra-1-0-matcher-0": "500 " + tg.Names.InvalidBody,
			"route-2-httproute-r-infra-2-0-matcher-0": "forwards",
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: routes %v, want %v", target, got, want)
		}
	}
}
