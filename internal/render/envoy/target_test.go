package envoy_test

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// capabilityBase is what every capability fixture shares: a Gateway, a
// route and the objects policies reference.
const capabilityBase = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners:
  - {name: http, protocol: HTTP, port: 80}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}, {port: 9000}]}
---
apiVersion: v1
kind: Secret
metadata: {name: keys, namespace: infra}
immutable: true
data: {client: a2V5}
---
apiVersion: v1
kind: Secret
metadata: {name: oauth, namespace: infra}
data: {client-secret: c2VjcmV0}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: ext, namespace: infra}
spec:
  extAuth: {grpcService: {backendRef: {name: web, port: 9000}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: proc, namespace: infra}
spec:
  extProc: {grpcService: {backendRef: {name: web, port: 9000}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: rl, namespace: infra}
spec:
  rateLimit: {domain: d, grpcService: {backendRef: {name: web, port: 9000}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: jwt, namespace: infra}
spec:
  jwt: {providers: [{name: p, issuer: https://issuer, jwks: {local: {inline: '{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}'}}}]}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: sso, namespace: infra}
spec:
  oauth2:
    backendRef: {name: web, port: 80}
    tokenEndpoint: https://idp/token
    authorizationEndpoint: https://idp/auth
    credentials: {clientID: c, clientSecretRef: {name: oauth}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: app, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  hostnames: [app.example.com]
  rules:
  - name: guarded
    backendRefs: [{name: web, port: 80}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: fixture, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: app, sectionName: guarded}]
`

// capabilityFixture is one policy field that needs one capability: a
// TrafficPolicy field (spec, appended to the base's policy), or with docs
// another kind's policy named fixture, which the route's rule references
// (HAProxyRoutePolicy) or which targets the route itself.
type capabilityFixture struct {
	capability, field, spec string
	docs                    string
}

// source is the fixture's input: the base, the TrafficPolicy's fields, and
// for another kind its documents, with the rule referencing the one named
// fixture when its kind is a rule filter (HAProxyRoutePolicy,
// HTTPRouteFilter); a policy of another kind targets the route itself.
func (f capabilityFixture) source() string {
	src := capabilityBase + f.spec
	if f.docs == "" {
		return src
	}
	if m := fixtureFilter.FindStringSubmatch(f.docs); m != nil {
		src = strings.Replace(src, "  - name: guarded\n", "  - name: guarded\n    filters: [{type: ExtensionRef, extensionRef: {group: "+m[1]+", kind: "+m[2]+", name: fixture}}]\n", 1)
	}
	return src + f.docs
}

// fixtureFilter finds the rule filter named fixture among a fixture's
// documents: its API group and kind.
var fixtureFilter = regexp.MustCompile(`apiVersion: ([^/\s]+)/\S+\nkind: (HAProxyRoutePolicy|HTTPRouteFilter)\nmetadata: \{name: fixture,`)

var capabilityFixtures = []capabilityFixture{
	{"route", "timeouts", "  timeouts: {request: 5s}\n", ""},
	{"tracing", "tracing", "  tracing: {randomSampling: 50}\n", ""},
	{"local_ratelimit", "rateLimit.local", "  rateLimit: {local: {tokenBucket: {maxTokens: 5, fillInterval: 1s}}}\n", ""},
	{"ratelimit", "rateLimit.global", "  rateLimit: {global: {extensionRef: {name: rl}, descriptors: [{entries: [{type: RemoteAddress}]}]}}\n", ""},
	{"cors", "cors", "  cors: {allowOrigins: [https://a.example.com]}\n", ""},
	{"csrf", "csrf", "  csrf: {percentageEnabled: 100}\n", ""},
	{"header_mutation", "headerModifiers", "  headerModifiers: {request: {set: [{name: x-a, value: b}]}}\n", ""},
	{"buffer", "buffer", "  buffer: {maxRequestSize: 1Mi}\n", ""},
	{"fault", "faultInjection", "  faultInjection: {abort: {httpStatus: 503, percentage: 10}}\n", ""},
	{"jwt_authn", "jwt", "  jwtAuth: {extensionRef: {name: jwt}}\n", ""},
	{"ext_authz", "extAuth", "  extAuth: {extensionRef: {name: ext}}\n", ""},
	{"ext_proc", "extProc", "  extProc: {extensionRef: {name: proc}}\n", ""},
	{"rbac", "rbac", "  rbac: {policy: {allowedCIDRs: [10.0.0.0/8]}}\n", ""},
	{"basic_auth", "basicAuth", "  basicAuth: {users: [\"u:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\"]}\n", ""},
	{"api_key_auth", "apiKeyAuth", "  apiKeyAuth: {secretRef: {name: keys}}\n", ""},
	{"oauth2", "oidc", "  oauth2: {extensionRef: {name: sso}}\n", ""},
	{"compressor", "compression", "  compression: {responseCompression: {libraries: [Gzip]}}\n", ""},
	{"decompressor", "decompression", "  compression: {requestDecompression: {libraries: [Gzip]}}\n", ""},
	{"transformation", "transformation", "  transformation: {response: {set: [{name: x-a, value: b}]}}\n", ""},
	{"acl", "httpACL", "  acl: {defaultAction: deny, rules: [{cidrs: [10.0.0.0/8], action: allow}]}\n", ""},
	{"credential_injector", "credentialInjection", "", "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: HTTPRouteFilter\nmetadata: {name: fixture, namespace: infra}\n" +
		"spec:\n  credentialInjection: {credential: {valueRef: {name: token}}}\n" +
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: token, namespace: infra}\ndata: {credential: dG9rZW4=}\n"},
	{"geoip", "authorization", "", "---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: kgateway}\n" +
		"spec:\n  controllerName: gateway.envoyproxy.io/gatewayclass-controller\n  parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: geo, namespace: infra}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: geo, namespace: infra}\n" +
		"spec:\n  geoIP: {provider: {type: MaxMind, maxMind: {cityDbSource: {local: {path: /db/city.mmdb}}}}}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: ip, namespace: infra}\n" +
		"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  clientIPDetection: {directSourceIP: {}}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: fixture, namespace: infra}\n" +
		"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: app}]\n" +
		"  authorization: {defaultAction: Deny, rules: [{action: Allow, principal: {clientIPGeoLocations: [{country: US}]}}]}\n"},
	{"lua", "lua", "", "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyExtensionPolicy\nmetadata: {name: fixture, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: app}]\n  lua: [{type: Inline, inline: \"function envoy_on_request(h) end\"}]\n"},
	{"custom_response", "responseOverride", "", "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: fixture, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: app}]\n  responseOverride: [{match: {statusCodes: [{value: 404}]}, response: {body: {inline: gone}}}]\n"},
	{"response_cache", "cache", "", "---\napiVersion: haproxy-haptic.org/v1alpha1\nkind: HAProxyRoutePolicy\nmetadata: {name: fixture, namespace: infra}\nspec:\n  cache: {ttlSeconds: 30}\n"},
	{"waf", "waf", "", "---\napiVersion: haproxy-haptic.org/v1alpha1\nkind: HAProxyRoutePolicy\nmetadata: {name: fixture, namespace: infra}\nspec:\n  waf: {policy: strict, catalogRef: {name: waf}}\n" +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: waf, namespace: infra}\nimmutable: true\ndata:\n  policies.yaml: \"strict: {requestBody: {mode: none}}\"\n"},
}

// TestTargetConformance runs every render target through the same
// capability-aware fixtures: where the target has the capability the
// field renders (and validates: Render checks every resource); where it
// lacks it, the field is reported unsupported(required_capability: X)
// (GWP404) and the route answers 503 naming the policy and field, with
// nothing of the field emitted.
func TestTargetConformance(t *testing.T) {
	covered := map[string]bool{}
	for _, f := range capabilityFixtures {
		covered[f.capability] = true
	}
	for _, name := range envoy.Registry().TargetNames() {
		for _, c := range envoy.Registry().Targets()[name].List() {
			if !covered[c] {
				t.Errorf("target %s has capability %s but no fixture exercises it", name, c)
			}
		}
	}
	for _, f := range capabilityFixtures {
		objs, err := manifest.Parse("fixture.yaml", []byte(f.source()), manifest.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", f.capability, err)
		}
		cfg := policy.Config{Values: deployedSettings()}.WithSetting("referenceGrantMode", "Strict")
		res := compile(t, &manifest.Set{Objects: objs}, cfg)
		for _, p := range res.Policies.Policies {
			if !p.IsValid() {
				t.Fatalf("%s: fixture policy %s is invalid: %v", f.capability, p.ID(), p.Invalid)
			}
		}
		for _, name := range envoy.Registry().TargetNames() {
			target := envoy.Registry().Targets()[name]
			t.Run(f.capability+"/"+name, func(t *testing.T) {
				out := render(t, res, envoy.Options{Target: name})
				route, hcm := fixtureRoute(t, out)
				var unsupported []string
				for _, d := range out.Diagnostics {
					if d.Code == "GWP404" {
						unsupported = append(unsupported, d.Message)
					} else {
						t.Errorf("unexpected diagnostic %s: %s", d.Code, d.Message)
					}
				}
				filters := slices.Collect(func(yield func(string) bool) {
					for _, hf := range hcm.HttpFilters {
						if hf.Name != "envoy.filters.http.router" && !yield(hf.Name) {
							return
						}
					}
				})
				if target.Has(f.capability) {
					if len(unsupported) > 0 {
						t.Errorf("target has %s but reported %v", f.capability, unsupported)
					}
					if dr := route.GetDirectResponse(); dr != nil {
						t.Errorf("supported field failed the route closed: %d %s", dr.Status, dr.GetBody().GetInlineString())
					}
					if route.GetMetadata() == nil {
						t.Error("route lacks merge metadata")
					}
					return
				}
				want := "unsupported(required_capability: " + f.capability + ")"
				if len(unsupported) != 1 || !strings.Contains(unsupported[0], want) {
					t.Errorf("want one GWP404 %q, got %v", want, unsupported)
				}
				dr := route.GetDirectResponse()
				if dr == nil || dr.Status != 503 {
					t.Fatalf("route not failed closed with 503: %v", route.Action)
				}
				body := dr.GetBody().GetInlineString()
				if !strings.Contains(body, "infra/fixture") || !strings.Contains(body, f.field) {
					t.Errorf("503 body %q does not name the policy and field %s", body, f.field)
				}
				if route.Metadata != nil || len(route.TypedPerFilterConfig) > 0 || len(filters) > 0 {
					t.Errorf("partial output: metadata %v, per-filter %v, filters %v",
						route.Metadata, slices.Sorted(maps.Keys(route.TypedPerFilterConfig)), filters)
				}
			})
		}
	}
}

// fixtureRoute finds the fixture's one route and the HCM serving it.
func fixtureRoute(t *testing.T, out *envoy.Output) (*routev3.Route, *hcmv3.HttpConnectionManager) {
	t.Helper()
	if len(out.Gateways) != 1 || len(out.Gateways[0].RouteConfigurations) != 1 || len(out.Gateways[0].Listeners) != 1 {
		t.Fatalf("unexpected output shape")
	}
	g := out.Gateways[0]
	vhs := g.RouteConfigurations[0].VirtualHosts
	if len(vhs) != 1 || len(vhs[0].Routes) != 1 {
		t.Fatalf("want one virtual host with one route")
	}
	hcm := &hcmv3.HttpConnectionManager{}
	if err := g.Listeners[0].FilterChains[0].Filters[0].GetTypedConfig().UnmarshalTo(hcm); err != nil {
		t.Fatal(err)
	}
	return vhs[0].Routes[0], hcm
}
