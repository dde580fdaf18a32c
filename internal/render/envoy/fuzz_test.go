package envoy

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/policytest"
	"github.com/gwpol/gwpol/internal/render/xdsjson/xdsjsontest"
)

// fuzzPlatform is the shared base of the one-feature fixtures the seeds
// come from: their policies target its route and Services (infra/shop),
// so that without it most seeds would attach to nothing and render
// none of their fields. Its objects are added to fuzzBase's, those
// fuzzBase already holds (the Gateway) left out.
const fuzzPlatform = "../../../testdata/base/platform.yaml"

// fuzzConfig turns on every optional API and service of the families
// (Envoy Gateway's Backend, Lua, SDS Secret references and rate limit
// service; HAPTIC's shared rate limit, cache tier and self-service WAF
// catalogs, which its chart leaves off), so that the renderers behind
// them are fuzzed too and not only the refusals that say they are off.
var fuzzConfig = policy.Config{Values: map[string]any{
	"envoyGateway.enableBackend":                    true,
	"envoyGateway.extensionApis.enableLua":          true,
	"envoyGateway.extensionApis.enableSDSSecretRef": true,
	"envoyGateway.rateLimit.enabled":                true,
	"haptic.rateLimit":                              map[string]any{"shared": map[string]any{"enabled": true}},
	"haptic.cache":                                  map[string]any{"varnish": map[string]any{"enabled": true}},
	"haptic.waf":                                    map[string]any{"policies": map[string]any{"selfService": map[string]any{"enabled": true}}},
}}

// fuzzBase is what the fuzzed policy documents attach to: a Gateway with
// an HTTP listener, routes with a named and an unnamed rule, a gRPC
// route, their Services and an immutable Secret.
const fuzzBase = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  hostnames: [app.example.com]
  rules:
  - name: main
    matches: [{path: {type: PathPrefix, value: /api}}]
    backendRefs: [{name: svc, port: 80, weight: 3}, {name: svc2, port: 8080, weight: 1}]
    filters:
    - {type: ExtensionRef, extensionRef: {group: gateway.kgateway.dev, kind: TrafficPolicy, name: tp}}
  - backendRefs: [{name: svc, port: 80}]
    filters:
    - {type: ExtensionRef, extensionRef: {group: haproxy-haptic.org, kind: HAProxyRoutePolicy, name: hp}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: grpc, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules:
  - backendRefs: [{name: svc2, port: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: svc2, namespace: app}
spec: {ports: [{port: 8080, appProtocol: kubernetes.io/h2c}]}
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: app}
immutable: true
`

// FuzzRender: arbitrary policy documents, added to fuzzBase, either
// render to config every resource of which passes ValidateAll (packed
// configs included) and whose YAML parses back to the JSON, or are
// refused with findings — never a panic, an internal error or
// unparseable output.
func FuzzRender(f *testing.F) {
	policytest.AddSeeds(f, "../../../testdata/examples/60-policies.yaml", "../../../testdata/examples/70-haproxy.yaml",
		"../../../testdata/render/*/input.yaml", "../../../testdata/render/*/*/input.yaml", "../../../testdata/haptic/*/input.yaml", "../../../testdata/wso2/platform/policies.yaml", "../../../testdata/wso2/operator/routes.yaml",
		"../../../testdata/explain/extensionref-other-controller/input.yaml",
		// two families' fields on one listener's or backend's setting
		// (merge.PathOverride, merge.ClusterOverride): render's tests fail
		// on any second writer of a listener's setting (onewriter_test.go)
		"../../../testdata/explain/listener-overridden-across-families/input.yaml", "../../../testdata/explain/cluster-overridden-across-families/input.yaml")
	f.Add([]byte("apiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: tp, namespace: app}\nspec:\n  headerModifiers: {request: {set: [{name: x-a, value: \"a\\u0091b\"}]}}\n  timeouts: {request: 5s}\n"))
	// A kgateway Backend whose static host is empty, routed to: refused,
	// not written as an endpoint Envoy rejects (found by this target).
	f.Add([]byte("apiVersion: gateway.kgateway.dev/v1alpha1\nkind: Backend\nmetadata: {name: b, namespace: app}\nspec:\n  static: {hosts: [{host: '', port: 443}]}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra}]\n" +
		"  rules: [{backendRefs: [{group: gateway.kgateway.dev, kind: Backend, name: b}]}]\n"))
	// An Envoy Gateway JWT provider whose JWKS URI names no host, on the
	// platform's route: refused at the provider, not written as a JWKS
	// cluster whose endpoint Envoy rejects (found by this target once its
	// base held the route the fixtures' policies target).
	f.Add([]byte("apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: sp, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]\n" +
		"  jwt: {providers: [{name: corp, remoteJWKS: {uri: 'https:///jwks.json'}}]}\n"))
	// An endpoint override with no source (its CRD requires one; the
	// object is kept, as the translators' own tests keep such objects):
	// the field's finding, not a rule cluster Envoy refuses (found by this
	// target in CI: a rule cluster's packed configs were not checked).
	f.Add([]byte("apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: bt, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]\n  loadBalancer: {type: RoundRobin, endpointOverride: {extractFrom: []}}\n"))
	// A gRPC method match whose service holds a query character (the
	// CRD's CEL rule on the match refuses it): the route is left out, as a
	// cluster never holds it, not written as a path prefix Envoy refuses
	// (found by mutating the examples' values: the match's fields were
	// not among those the model carries as written).
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: g, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra}]\n" +
		"  rules: [{matches: [{method: {service: 'a?b'}}], backendRefs: [{name: svc2, port: 8080}]}]\n"))
	// The same method match in a route whose backendRef has no name (a
	// required field: the API server runs no CEL rule after it, and the
	// method's characters are a CEL rule's): left out all the same (found
	// by this target: the rule that judges a carried value never ran).
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: g, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra}]\n" +
		"  rules: [{matches: [{method: {service: 'a?b'}}], backendRefs: [{name:\"svc2, port: 8080}]}]\n"))
	// Header names to remove that are empty, on a rule and on a
	// backendRef (the Gateway API schema bounds none): the rule is
	// replaced, not written as config Envoy refuses (found by mutating the
	// examples' values: only a rule's own header values were checked).
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: rm, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra}]\n" +
		"  rules: [{filters: [{type: RequestHeaderModifier, requestHeaderModifier: {remove: [x-a, '']}}], backendRefs: [{name: svc, port: 80}]}," +
		" {backendRefs: [{name: svc2, port: 8080, filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {remove: ['']}}]}]}]\n"))
	// A CORS filter on a HAPTIC Gateway's route: the haptic target
	// renders it (Envoy's cors filter, ahead of HAProxyRoutePolicy's
	// authentication), so its values reach Envoy's validation there too.
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: haptic}\nspec: {controllerName: haproxy-haptic.org/controller}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: hgw, namespace: infra}\nspec:\n  gatewayClassName: haptic\n" +
		"  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: hc, namespace: app}\nspec:\n  parentRefs: [{name: hgw, namespace: infra}]\n" +
		"  rules: [{filters: [{type: CORS, cors: {allowOrigins: ['https://*.example.com', 'http://a.example.com:8080'], allowCredentials: true, allowHeaders: [X-A], maxAge: 5}}]," +
		" backendRefs: [{name: svc, port: 80}]}]\n"))
	// A BackendTLSPolicy hostname longer than an SNI may be (its CRD
	// refuses it; the policy is kept): the field's finding, not an
	// UpstreamTlsContext Envoy refuses (found by this target's campaign:
	// a cluster's transport socket was not checked per field).
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: long, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: '', kind: Service, name: svc}]\n  validation: {hostname: " + strings.Repeat("a", 60) + "." + strings.Repeat("b", 60) + "." +
		strings.Repeat("c", 60) + "." + strings.Repeat("d", 60) + "." + strings.Repeat("e", 60) + ".com, wellKnownCACertificates: System}\n"))
	// kg37's shapes: BackendTLSPolicies on a Service and on its port
	// (kgateway ranks them by age alone, policy.Controller.BackendRank), a
	// Service whose disable-istio-auto-mtls annotation is no boolean (no
	// cluster, ObjectVerdict.Dropped), an empty earlyRequestHeaderModifier.
	f.Add([]byte("apiVersion: v1\nkind: Service\nmetadata: {name: tls, namespace: app, annotations: {kgateway.dev/disable-istio-auto-mtls: maybe}}\nspec: {ports: [{port: 443, name: https}, {port: 8443, name: admin}]}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: tlsr, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra}]\n" +
		"  rules: [{backendRefs: [{name: tls, port: 443}]}, {backendRefs: [{name: svc, port: 80}]}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: whole, namespace: app, creationTimestamp: '2024-01-01T00:00:00Z'}\nspec:\n" +
		"  targetRefs: [{group: '', kind: Service, name: svc}, {group: '', kind: Service, name: tls}]\n  validation: {hostname: whole.example, wellKnownCACertificates: System}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: port, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: '', kind: Service, name: tls, sectionName: https}]\n  validation: {hostname: port.example, wellKnownCACertificates: System}\n" +
		"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: ListenerPolicy\nmetadata: {name: early, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  default: {httpSettings: {earlyRequestHeaderModifier: {add: []}}}\n"))
	// An HTTP/2 window smaller than Envoy's least (its CRD refuses it;
	// the policy is kept) in a backend policy's protocol options: the
	// field's finding, not a cluster Envoy refuses (an internal error:
	// protocol options are rendered in part, and were checked only with
	// the built cluster).
	f.Add([]byte("apiVersion: gateway.kgateway.dev/v1alpha1\nkind: BackendConfigPolicy\nmetadata: {name: h2, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: '', kind: Service, name: svc2}]\n  http2ProtocolOptions: {initialStreamWindowSize: 1}\n"))
	// Values Envoy refuses in the parts of resources a field sets (found
	// by mutating the fixtures' values): a connection manager setting, a
	// route's direct response status, a network filter's limit. Each is
	// the field's finding, not an internal error about the Gateway.
	f.Add([]byte("apiVersion: gateway.kgateway.dev/v1alpha1\nkind: ListenerPolicy\nmetadata: {name: lp, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  default: {httpSettings: {maxRequestHeadersKb: -1}}\n"))
	f.Add([]byte("apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: HTTPRouteFilter\nmetadata: {name: dr, namespace: infra}\nspec:\n  directResponse: {statusCode: -1}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: closed, namespace: infra}\nspec:\n  parentRefs: [{name: gw}]\n" +
		"  rules: [{filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: dr}}]}]\n"))
	f.Add([]byte("apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: ctp, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  connection: {connectionLimit: {value: 0}}\n"))
	// Envoy Gateway's extensions: Lua (inline, a ConfigMap's), external
	// processors (one failing open) and the BackendTLSPolicy of their
	// backend.
	f.Add([]byte("apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyExtensionPolicy\nmetadata: {name: eep, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}]\n" +
		"  lua: [{type: Inline, inline: \"function envoy_on_request(h) end\", filterContext: {k: v}}, {type: ValueRef, valueRef: {name: lua, kind: ConfigMap, group: v1}}]\n" +
		"  extProc: [{backendRefs: [{name: svc2, port: 8080}], processingMode: {request: {body: Streamed}}, messageTimeout: 1s}, {failOpen: true, backendRefs: [{name: gone, port: 1}]}]\n" +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: lua, namespace: app}\ndata: {script: x}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: tls, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: '', kind: Service, name: svc2}]\n  validation: {hostname: svc2, caCertificateRefs: [{group: '', kind: ConfigMap, name: lua}]}\n"))
	// A delegating kgateway rule whose URLRewrite prefix holds a line
	// break, and one whose header RegularExpression is empty over a child
	// inheriting its matcher: each child entry is judged as served (the
	// rewrite or match it inherits), replaced or left out, not written as
	// a route Envoy refuses (found by fuzz31's campaign: the rule check
	// judged the delegating rule's own filters, not what its children
	// inherit).
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: top, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra}]\n" +
		"  hostnames: [top.example.com]\n  rules:\n  - matches: [{path: {type: PathPrefix, value: /t}}]\n" +
		"    filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: \"/a\\nb\"}}}]\n" +
		"    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: kid}]\n" +
		"  - matches: [{path: {type: PathPrefix, value: /u}, headers: [{type: RegularExpression, name: x-a, value: ''}]}]\n" +
		"    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: kid}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: kid, namespace: app, annotations: {delegation.kgateway.dev/inherit-parent-matcher: 'true'}}\n" +
		"spec:\n  rules: [{matches: [{path: {type: PathPrefix, value: /k}}], backendRefs: [{name: svc, port: 80}]}]\n"))
	// An Envoy Gateway route mirroring to its Backends (one named
	// without its group, a DynamicResolver, one of a Unix socket it
	// refuses) and forwarding to a Backend in the multicluster group.
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: egw, namespace: app}\nspec:\n  gatewayClassName: eg\n  listeners: [{name: http, protocol: HTTP, port: 8081}]\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: ext, namespace: app}\nspec: {endpoints: [{fqdn: {hostname: mirror.example.com, port: 443}}]}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: dyn, namespace: app}\nspec: {type: DynamicResolver}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: uds, namespace: app}\nspec: {endpoints: [{unix: {path: /run/b.sock}}]}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: mirrored, namespace: app}\nspec:\n  parentRefs: [{name: egw}]\n  rules:\n" +
		"  - filters: [{type: RequestMirror, requestMirror: {backendRef: {kind: Backend, name: ext, port: 9}, percent: 5}}, {type: RequestMirror, requestMirror: {backendRef: {group: gateway.envoyproxy.io, kind: Backend, name: dyn}}}]\n" +
		"    backendRefs: [{group: multicluster.x-k8s.io, kind: Backend, name: ext}]\n" +
		"  - filters: [{type: RequestMirror, requestMirror: {backendRef: {group: gateway.envoyproxy.io, kind: Backend, name: uds}}}]\n    backendRefs: [{name: svc, port: 80}]\n"))
	// A route on two controllers' Gateways: the base's (no GatewayClass in
	// the input, so it takes every family's kinds) and an Envoy Gateway
	// one beside a kgateway one, with each family's policy on the route and
	// on the other's Gateway (attached only where its own controller
	// serves, GWP224 elsewhere).
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: kg}\nspec: {controllerName: kgateway.dev/kgateway}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: kgw, namespace: app}\nspec:\n  gatewayClassName: kg\n  listeners: [{name: http, protocol: HTTP, port: 8082}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: egw, namespace: app}\nspec:\n  gatewayClassName: eg\n  listeners: [{name: http, protocol: HTTP, port: 8083}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: both, namespace: app}\nspec:\n  parentRefs: [{name: kgw}, {name: egw}, {name: gw, namespace: infra}]\n" +
		"  rules: [{matches: [{path: {type: PathPrefix, value: /b}}], backendRefs: [{name: svc, port: 80}]}]\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: bt, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: both}, {group: gateway.networking.k8s.io, kind: Gateway, name: kgw}]\n  timeout: {http: {requestTimeout: 7s}}\n" +
		"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: tp2, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: both}, {group: gateway.networking.k8s.io, kind: Gateway, name: egw}]\n  timeouts: {request: 9s}\n"))
	// Backend policies on Services Gateways of two controllers route to:
	// a kgateway BackendConfigPolicy on the route's Service and on one
	// only the base's route uses (shaping kgateway's clusters alone, and
	// the kgateway target's unrouted clusters not shared with Envoy
	// Gateway's), an Envoy Gateway BackendTrafficPolicy's circuit breaker
	// on the route, and the Gateway API's BackendTLSPolicy every
	// controller reads.
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: kg}\nspec: {controllerName: kgateway.dev/kgateway}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: egw, namespace: app}\nspec:\n  gatewayClassName: eg\n  listeners: [{name: http, protocol: HTTP, port: 8083}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: kgw, namespace: app}\nspec:\n  gatewayClassName: kg\n  listeners: [{name: http, protocol: HTTP, port: 8082}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: both, namespace: app}\nspec:\n  parentRefs: [{name: kgw}, {name: egw}]\n" +
		"  rules: [{matches: [{path: {type: PathPrefix, value: /b}}], backendRefs: [{name: svc, port: 80}]}]\n" +
		"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: BackendConfigPolicy\nmetadata: {name: bcp, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: '', kind: Service, name: svc}, {group: '', kind: Service, name: svc2}]\n  connectTimeout: 3s\n  outlierDetection: {consecutive5xx: 3}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: bt, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: both}]\n  circuitBreaker: {maxConnections: 7}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: tls, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: '', kind: Service, name: svc}]\n  validation: {wellKnownCACertificates: System, hostname: svc.example}\n"))
	// kg36's shapes: a kgateway Gateway whose port two wildcard listeners
	// share (the longer owns a.foo.example.com), a redirect naming the
	// listener scheme's well-known port, a header both added and set, a
	// Service port whose appProtocol is upper case, an access log runtime
	// filter, and BackendConfigPolicies on a Service and on its port.
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: wild, namespace: app}\nspec:\n  gatewayClassName: kgateway\n" +
		"  listeners: [{name: short, protocol: HTTP, port: 8084, hostname: '*.example.com'}, {name: long, protocol: HTTP, port: 8084, hostname: '*.foo.example.com'}]\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: up, namespace: app}\nspec: {ports: [{port: 9000, name: rpc, appProtocol: GRPC}]}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: w1, namespace: app}\nspec:\n  parentRefs: [{name: wild, sectionName: short}]\n  hostnames: [a.foo.example.com]\n" +
		"  rules:\n  - matches: [{path: {type: PathPrefix, value: /r}}]\n    filters: [{type: RequestRedirect, requestRedirect: {port: 80}}, {type: RequestHeaderModifier, requestHeaderModifier: {add: [{name: x-b, value: a}], set: [{name: x-b, value: s}]}}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: w2, namespace: app}\nspec:\n  parentRefs: [{name: wild, sectionName: long}]\n  hostnames: [a.foo.example.com]\n" +
		"  rules: [{backendRefs: [{name: up, port: 9000}]}]\n" +
		"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: ListenerPolicy\nmetadata: {name: rt, namespace: app}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: wild}]\n" +
		"  default: {httpSettings: {accessLog: [{fileSink: {path: /dev/stdout, stringFormat: x}, filter: {runtimeFilter: {runtimeKey: k, percentSampled: {numerator: 3, denominator: MILLION}}}}]}}\n" +
		"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: BackendConfigPolicy\nmetadata: {name: up-port, namespace: app}\nspec:\n  targetRefs: [{group: '', kind: Service, name: up, sectionName: rpc}]\n  connectTimeout: 1s\n" +
		"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: BackendConfigPolicy\nmetadata: {name: up-whole, namespace: app}\nspec:\n  targetRefs: [{group: '', kind: Service, name: up}]\n  connectTimeout: 2s\n"))
	// Mirror shares and fault percentages as fractions of a million: an
	// Envoy Gateway route mirroring a third, 20/21 and 0 %, with a
	// BackendTrafficPolicy's fault at 0.0007 % and 0.0101 % (float32
	// products truncated), and a kgateway route mirroring 7/1000 beside an
	// access log runtime filter out of ten thousand.
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: egf, namespace: app}\nspec:\n  gatewayClassName: eg\n  listeners: [{name: http, protocol: HTTP, port: 8085}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: fm, namespace: app}\nspec:\n  parentRefs: [{name: egf}]\n  rules:\n" +
		"  - filters: [{type: RequestMirror, requestMirror: {backendRef: {name: svc2, port: 8080}, fraction: {numerator: 1, denominator: 3}}}, {type: RequestMirror, requestMirror: {backendRef: {name: svc, port: 80}, percent: 0}}]\n" +
		"    backendRefs: [{name: svc, port: 80}]\n" +
		"  - filters: [{type: RequestMirror, requestMirror: {backendRef: {name: svc, port: 80}, fraction: {numerator: 20, denominator: 21}}}]\n    backendRefs: [{name: svc2, port: 8080}]\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: fi, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: fm}]\n  faultInjection: {delay: {fixedDelay: 1s, percentage: 0.0007}, abort: {httpStatus: 503, percentage: 0.0101}}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: km, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra}]\n  hostnames: [km.example.com]\n" +
		"  rules: [{filters: [{type: RequestMirror, requestMirror: {backendRef: {name: svc2, port: 8080}, fraction: {numerator: 7, denominator: 1000}}}], backendRefs: [{name: svc, port: 80}]}]\n" +
		"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: ListenerPolicy\nmetadata: {name: rt10k, namespace: infra}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n" +
		"  default: {httpSettings: {accessLog: [{fileSink: {path: /dev/stdout, stringFormat: x}, filter: {runtimeFilter: {runtimeKey: k, percentSampled: {numerator: 3, denominator: TEN_THOUSAND}, useIndependentRandomness: true}}}]}}\n"))
	reg := fuzzRegistry()
	base := fuzzBaseObjects(f)
	f.Fuzz(func(t *testing.T, docs []byte) { checkRender(t, reg, base, docs) })
}

// fuzzRegistry is gwpol's registry (Registry): every family's kinds and
// what each family does as a whole — Envoy Gateway's route validation
// (verdicts that leave rules out, answer them or refuse backendRefs) on
// the routes of the seeds with an Envoy Gateway GatewayClass;
// BackendTLSPolicy's CA checks of its extensions' backends.
func fuzzRegistry() *policy.Registry { return Registry() }

// checkRender compiles base and docs and renders them for every target:
// docs are refused with findings, or their config passes ValidateAll
// (packed configs included) and its YAML parses back to its JSON. One
// input in four is compiled and rendered again from a fresh parse: the
// JSON must be the same bytes (a render that depends on map order or
// on what an earlier run left in shared state is a defect CI's short
// random runs meet as a flaky golden).
func checkRender(t testing.TB, reg *policy.Registry, base func(testing.TB) []*manifest.Object, docs []byte) {
	first := renderChecked(t, reg, base, docs, true)
	if first == nil || len(docs)%4 != 0 {
		return
	}
	again := renderChecked(t, reg, base, docs, false)
	for _, target := range reg.TargetNames() {
		if !bytes.Equal(first[target], again[target]) {
			t.Fatalf("%s: a second render of the same input differs:\n%s\n---\n%s", target, first[target], again[target])
		}
	}
}

// renderChecked renders base and docs for every target, checking the
// config when check is set; it returns each target's JSON, or nil when
// docs do not parse.
func renderChecked(t testing.TB, reg *policy.Registry, base func(testing.TB) []*manifest.Object, docs []byte, check bool) map[string][]byte {
	extra, err := manifest.Parse(policytest.FuzzFile, docs, manifest.Limits{MaxDepth: 32, MaxAliasNodes: 1000})
	if err != nil {
		return nil // unparseable input stops gwpol before render
	}
	set := &manifest.Set{Objects: append(base(t), extra...)}
	for i, o := range set.Objects {
		o.Seq = i
	}
	cfg := fuzzConfig
	res := Stages(reg, set, cfg)
	written := map[string][]byte{}
	for _, target := range reg.TargetNames() {
		out, err := Render(res, Options{Target: target, Config: cfg})
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		js, err := out.Marshal("json", TypeAll)
		if err != nil {
			t.Fatalf("%s: json: %v", target, err)
		}
		written[target] = js
		if !check {
			continue
		}
		for _, gw := range out.Gateways {
			var all []proto.Message
			for _, l := range gw.Listeners {
				all = append(all, l)
			}
			for _, rc := range gw.RouteConfigurations {
				all = append(all, rc)
			}
			for _, c := range gw.Clusters {
				all = append(all, c)
			}
			for _, r := range all {
				if err := validateDeep(r); err != nil {
					t.Fatalf("%s: rendered config is not valid Envoy config: %v", target, err)
				}
			}
		}
		ym, err := out.Marshal("yaml", TypeAll)
		if err != nil {
			t.Fatalf("%s: yaml: %v", target, err)
		}
		xdsjsontest.SameData(t, target, js, ym)
	}
	return written
}

// fuzzBaseObjects reads fuzzBase and fuzzPlatform once and returns a
// function that parses them afresh for each input (the pipeline's stages
// may annotate objects, so inputs share none).
func fuzzBaseObjects(f testing.TB) func(testing.TB) []*manifest.Object {
	platform, err := os.ReadFile(fuzzPlatform)
	if err != nil {
		f.Fatal(err)
	}
	return func(t testing.TB) []*manifest.Object {
		objs, err := manifest.Parse("base.yaml", []byte(fuzzBase), manifest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		more, err := manifest.Parse("platform.yaml", platform, manifest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		held := map[string]bool{}
		for _, o := range objs {
			held[o.Kind+"/"+o.Namespace+"/"+o.Name] = true
		}
		for _, o := range more {
			if !held[o.Kind+"/"+o.Namespace+"/"+o.Name] {
				objs = append(objs, o)
			}
		}
		return objs
	}
}
