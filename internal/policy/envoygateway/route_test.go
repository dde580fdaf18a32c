package envoygateway

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// routeObjects are what the routes under test may reference.
const routeObjects = `
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: default}
spec: {ports: [{port: 8080}]}
---
apiVersion: v1
kind: Service
metadata: {name: ext, namespace: default}
spec: {type: ExternalName, externalName: example.com}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: uds, namespace: default}
spec: {endpoints: [{unix: {path: /var/run/b.sock}}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: loop, namespace: default}
spec: {endpoints: [{ip: {address: 127.0.0.1, port: 80}}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: local, namespace: default}
spec: {endpoints: [{fqdn: {hostname: localhost, port: 80}}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: fqdn, namespace: default}
spec: {endpoints: [{fqdn: {hostname: api.example.com, port: 80}}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: HTTPRouteFilter
metadata: {name: ok-200, namespace: default}
spec: {directResponse: {statusCode: 200}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: HTTPRouteFilter
metadata: {name: status-40, namespace: default}
spec: {directResponse: {statusCode: 40}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: HTTPRouteFilter
metadata: {name: regex, namespace: default}
spec: {urlRewrite: {path: {type: ReplaceRegexMatch, replaceRegexMatch: {pattern: "^/a", substitution: /b}}}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: HTTPRouteFilter
metadata: {name: bad-regex, namespace: default}
spec: {urlRewrite: {path: {type: ReplaceRegexMatch, replaceRegexMatch: {pattern: "(", substitution: /b}}}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: HTTPRouteFilter
metadata: {name: cred, namespace: default}
spec: {credentialInjection: {credential: {valueRef: {name: missing}}}}
---
apiVersion: v1
kind: Service
metadata: {name: idle, namespace: default}
spec: {ports: [{port: 8080}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: idle-1, namespace: default, labels: {kubernetes.io/service-name: idle}}
addressType: IPv4
ports: [{port: 8080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: svc-1, namespace: default, labels: {kubernetes.io/service-name: svc}}
addressType: IPv4
ports: [{port: 8080}]
endpoints: [{addresses: [10.0.0.1]}]
---
apiVersion: v1
kind: Service
metadata: {name: draining, namespace: default}
spec: {ports: [{port: 8080}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: draining-1, namespace: default, labels: {kubernetes.io/service-name: draining}}
addressType: IPv4
ports: [{port: 8080, protocol: TCP}]
endpoints: [{addresses: [10.0.0.2], conditions: {ready: false}}]
---
apiVersion: v1
kind: Service
metadata: {name: named, namespace: default}
spec: {ports: [{name: http, port: 8080}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: named-1, namespace: default, labels: {kubernetes.io/service-name: named}}
addressType: IPv4
ports: [{name: web, port: 8080}]
endpoints: [{addresses: [10.0.0.3]}]
---
apiVersion: v1
kind: Service
metadata: {name: mixed, namespace: default}
spec: {ports: [{port: 8080}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: mixed-ip, namespace: default, labels: {kubernetes.io/service-name: mixed}}
addressType: IPv4
ports: [{port: 8080}]
endpoints: [{addresses: [10.0.0.4]}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: mixed-fqdn, namespace: default, labels: {kubernetes.io/service-name: mixed}}
addressType: FQDN
ports: [{port: 8080}]
endpoints: [{addresses: [a.example.com]}]
---
apiVersion: v1
kind: Service
metadata: {name: bare, namespace: default}
spec: {ports: [{port: 8080}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: dyn, namespace: default}
spec: {type: DynamicResolver}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: HTTPRouteFilter
metadata: {name: host-from-path, namespace: default}
spec: {urlRewrite: {hostname: {type: PathRegex, pathRegex: {pattern: "^/([^/]+)", substitution: "\\1"}}}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: HTTPRouteFilter
metadata: {name: host-from-header, namespace: default}
spec: {urlRewrite: {hostname: {type: Header, header: x-host}}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: tls-ca-missing, namespace: default}
spec: {endpoints: [{fqdn: {hostname: api.example.com, port: 443}}], tls: {caCertificateRefs: [{group: "", kind: ConfigMap, name: nope}]}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: tls-ca-two-entries, namespace: default}
spec: {endpoints: [{fqdn: {hostname: api.example.com, port: 443}}], tls: {caCertificateRefs: [{group: "", kind: ConfigMap, name: two-entries}]}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: tls-ca-one-entry, namespace: default}
spec: {endpoints: [{fqdn: {hostname: api.example.com, port: 443}}], tls: {caCertificateRefs: [{group: "", kind: ConfigMap, name: one-entry}]}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: two-entries, namespace: default}
data: {a.pem: x, b.pem: y}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: one-entry, namespace: default}
data: {bundle.pem: x}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: HTTPRouteFilter
metadata: {name: bad-cookie, namespace: default}
spec: {matches: [{cookies: [{name: a, type: RegularExpression, value: "("}]}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: HTTPRouteFilter
metadata: {name: ok-cookie, namespace: default}
spec: {matches: [{cookies: [{name: a, type: RegularExpression, value: "^x+$"}, {name: b, value: "("}]}]}
`

// verdictOf validates the one route of kind routeKind with the rules given.
func verdictOf(t *testing.T, routeKind, rules string) *policy.RouteVerdict {
	t.Helper()
	return verdictWith(t, extensionsOn(policy.Config{}), routeKind, rules)
}

// verdictWith is verdictOf under the config given.
func verdictWith(t *testing.T, cfg policy.Config, routeKind, rules string) *policy.RouteVerdict {
	t.Helper()
	return verdictAmong(t, cfg, routeObjects, routeKind, rules)
}

// verdictAmong is verdictWith among the objects given.
func verdictAmong(t *testing.T, cfg policy.Config, objects, routeKind, rules string) *policy.RouteVerdict {
	t.Helper()
	group := "gateway.networking.k8s.io/v1"
	doc := objects + "---\napiVersion: " + group + "\nkind: " + routeKind + "\nmetadata: {name: r, namespace: default}\nspec:\n  rules:\n" + rules
	objs, err := manifest.Parse("r.yaml", []byte(doc), manifest.Limits{})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	reg := policy.NewRegistry(All()...)
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: reg.GroupKinds()})
	g := topology.Build(m, topology.Options{BackendKinds: reg.BackendKinds()})
	env := &policy.Env{Model: m, Config: cfg}
	set := reg.Decode(env)
	rt := g.Route(routeKind, "default", "r")
	if rt == nil {
		t.Fatalf("route not built: %v", m.Diagnostics)
	}
	return Family.ValidateRoute(rt, env, set)
}

// summary is "drop I REASON" per dropped rule, "refs REASON" per
// unresolved reference and "TYPE REASON" per further condition.
func summary(v *policy.RouteVerdict) string {
	var out []string
	for _, d := range v.Dropped {
		out = append(out, fmt.Sprintf("drop %d %s", d.Index, d.Reason))
	}
	for _, c := range v.Unresolved {
		out = append(out, "refs "+c.Reason)
	}
	for _, c := range v.Conditions {
		out = append(out, c.Type+" "+c.Reason)
	}
	return strings.Join(out, "; ")
}

func TestValidateRoute(t *testing.T) {
	tests := []struct {
		name, kind, rules string
		want              string
	}{
		{"valid", "HTTPRoute", "  - backendRefs: [{name: svc, port: 8080}]\n", ""},
		{"service missing", "HTTPRoute", "  - backendRefs: [{name: nope, port: 8080}]\n", "refs BackendNotFound"},
		{"service port missing", "HTTPRoute", "  - backendRefs: [{name: svc, port: 9999}]\n", "refs PortNotFound"},
		{"ExternalName service", "HTTPRoute", "  - backendRefs: [{name: ext, port: 80}]\n", "refs UnsupportedValue"},
		{"service import missing", "HTTPRoute", "  - backendRefs: [{group: multicluster.x-k8s.io, kind: ServiceImport, name: nope, port: 80}]\n", "refs BackendNotFound"},
		{"unknown backend kind", "HTTPRoute", "  - backendRefs: [{group: example.com, kind: Thing, name: x, port: 80}]\n", "refs InvalidKind"},
		{"unix socket backend", "HTTPRoute", "  - backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: uds}]\n", "refs UnsupportedAddressType"},
		{"loopback backend", "HTTPRoute", "  - backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: loop}]\n", "refs InvalidAddress"},
		{"single-label backend", "HTTPRoute", "  - backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: local}]\n", "refs InvalidAddress"},
		{"backend without its group", "GRPCRoute", "  - backendRefs: [{kind: Backend, name: fqdn, port: 80}]\n", ""},
		{"backendRef filter not supported", "HTTPRoute", "  - backendRefs: [{name: svc, port: 8080, filters: [{type: RequestMirror, requestMirror: {backendRef: {name: svc, port: 8080}}}]}]\n", "refs UnsupportedRefValue"},
		{"header value with a line break", "HTTPRoute", "  - filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: a, value: \"x\\ny\"}], add: [{name: b, value: ok}]}}]\n", "drop 0 UnsupportedValue"},
		{"redirect scheme", "HTTPRoute", "  - filters: [{type: RequestRedirect, requestRedirect: {scheme: ftp}}]\n", "drop 0 UnsupportedValue"},
		{"rewrite prefix missing", "HTTPRoute", "  - filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch}}}]\n", "drop 0 UnsupportedValue"},
		{"two rewrites", "HTTPRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: regex}}, {type: URLRewrite, urlRewrite: {path: {type: ReplaceFullPath, replaceFullPath: /x}}}]\n", "drop 0 UnsupportedValue"},
		{"rewrite regex invalid", "HTTPRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: bad-regex}}]\n", "drop 0 UnsupportedValue"},
		{"HTTPRouteFilter missing", "HTTPRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: nope}}]\n", "refs UnsupportedValue"},
		{"unknown ExtensionRef kind", "HTTPRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: example.com, kind: Thing, name: x}}]\n  - backendRefs: [{name: svc, port: 8080}]\n", "drop 0 UnsupportedValue"},
		{"credential Secret missing", "HTTPRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: cred}}]\n", "drop 0 UnsupportedValue"},
		{"mirror to a Service with no ready endpoint", "GRPCRoute", "  - filters: [{type: RequestMirror, requestMirror: {backendRef: {name: idle, port: 8080}}}]\n", "BackendsAvailable EndpointsNotFound"},
		{"mirror to a Service with endpoints", "HTTPRoute", "  - filters: [{type: RequestMirror, requestMirror: {backendRef: {name: svc, port: 8080}}}]\n", ""},
		{"mirror without port", "HTTPRoute", "  - filters: [{type: RequestMirror, requestMirror: {backendRef: {name: svc}}}]\n", "refs PortNotSpecified"},
		{"mirror and direct response", "GRPCRoute", "  - filters: [{type: RequestMirror, requestMirror: {backendRef: {name: svc, port: 8080}}}, {type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: ok-200}}]\n", "drop 0 IncompatibleFilters"},
		{"mirror and redirect", "HTTPRoute", "  - filters: [{type: RequestMirror, requestMirror: {backendRef: {name: svc, port: 8080}}}, {type: RequestRedirect, requestRedirect: {statusCode: 301}}]\n", "drop 0 IncompatibleFilters"},
		{"direct response status Envoy cannot answer", "HTTPRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: status-40}}]\n", "drop 0 UnsupportedValue"},
		{"gRPC direct response 2xx", "GRPCRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: ok-200}}]\n", "drop 0 UnsupportedValue"},
		{"backendRef to a Service whose EndpointSlices have no address for its port", "HTTPRoute", "  - backendRefs: [{name: idle, port: 8080}]\n", "BackendsAvailable EndpointsNotFound"},
		{"an endpoint that is not ready still counts", "HTTPRoute", "  - backendRefs: [{name: draining, port: 8080}]\n", ""},
		{"EndpointSlice ports are matched by the Service port's name", "HTTPRoute", "  - backendRefs: [{name: named, port: 8080}]\n", "BackendsAvailable EndpointsNotFound"},
		{"a Service whose EndpointSlices mix FQDN and IP address types", "HTTPRoute", "  - backendRefs: [{name: mixed, port: 8080}]\n", "refs UnsupportedAddressType"},
		{"a Service with no EndpointSlice in the input is not judged", "HTTPRoute", "  - backendRefs: [{name: bare, port: 8080}]\n", ""},
		{"a backendRef of weight 0 is not judged for endpoints", "HTTPRoute", "  - backendRefs: [{name: svc, port: 8080}, {name: idle, port: 8080, weight: 0}]\n", ""},
		{"host rewrite from the path to a dynamic resolver", "HTTPRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: host-from-path}}]\n    backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: dyn}]\n", "refs UnsupportedValue"},
		{"a dynamic resolver beside a refused backendRef is still one of several", "HTTPRoute", "  - backendRefs: [{name: nope, port: 8080}, {group: gateway.envoyproxy.io, kind: Backend, name: dyn}]\n", "refs BackendNotFound; refs InvalidBackendRef"},
		{"a refused dynamic resolver beside another backendRef is not judged as one", "HTTPRoute", "  - backendRefs: [{name: svc, port: 8080}, {group: gateway.envoyproxy.io, kind: Backend, name: dyn, namespace: other}]\n", "refs RefNotPermitted"},
		{"a filter type Envoy Gateway does not translate", "GRPCRoute", "  - filters: [{type: URLRewrite}, {type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: nope}}]\n", "drop 0 UnsupportedValue"},
		{"an HTTPRoute filter type Envoy Gateway does not translate", "HTTPRoute", "  - filters: [{type: ExternalAuth}]\n", "drop 0 UnsupportedValue"},
		{"rewrite full path with a prefix value", "HTTPRoute", "  - filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplaceFullPath, replaceFullPath: /x, replacePrefixMatch: /y}}}]\n", "drop 0 UnsupportedValue"},
		{"redirect full path without its value keeps the path", "HTTPRoute", "  - filters: [{type: RequestRedirect, requestRedirect: {path: {type: ReplaceFullPath}}}]\n", ""},
		{"host rewrite from a header to a dynamic resolver", "HTTPRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: host-from-header}}]\n    backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: dyn}]\n", ""},
		{"cookie match regex that does not compile", "HTTPRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: bad-cookie}}]\n    backendRefs: [{name: svc, port: 8080}]\n", "drop 0 UnsupportedValue"},
		{"cookie match regex on a GRPCRoute", "GRPCRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: bad-cookie}}]\n    backendRefs: [{name: svc, port: 8080}]\n", "drop 0 UnsupportedValue"},
		{"an exact cookie match is no regex", "HTTPRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: ok-cookie}}]\n    backendRefs: [{name: svc, port: 8080}]\n", ""},
		{"a Backend's own CA ConfigMap not in the input", "HTTPRoute", "  - backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: tls-ca-missing}]\n", "refs InvalidBackendTLS"},
		{"a Backend's own CA ConfigMap of two entries, neither ca.crt nor tls.crt", "HTTPRoute", "  - backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: tls-ca-two-entries}]\n", "refs InvalidBackendTLS"},
		{"a Backend's own CA ConfigMap of a single entry", "HTTPRoute", "  - backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: tls-ca-one-entry}]\n", ""},
		{"regex that does not compile", "HTTPRoute", "  - backendRefs: [{name: svc, port: 8080}]\n  - matches: [{path: {type: RegularExpression, value: \"*x*\"}}]\n", "drop 1 UnsupportedValue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summary(verdictOf(t, tt.kind, tt.rules)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestValidateRouteOnHost: running on the host (envoyGateway.runningOnHost),
// Envoy Gateway lets a Backend name a loopback address or a single-label
// hostname; a Unix socket stays refused.
func TestValidateRouteOnHost(t *testing.T) {
	onHost := extensionsOn(policy.Config{Values: map[string]any{RunningOnHost.Key: true}})
	tests := []struct{ backend, want string }{
		{"loop", ""},
		{"local", ""},
		{"uds", "refs UnsupportedAddressType"},
	}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			rules := "  - backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: " + tt.backend + "}]\n"
			if got := summary(verdictWith(t, onHost, "HTTPRoute", rules)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestValidateRouteBackendDisabled: with Envoy Gateway's Backend kind
// disabled (envoyGateway.enableBackend: false), a backendRef to a Backend
// does not resolve, whatever the Backend; Services are unaffected.
func TestValidateRouteBackendDisabled(t *testing.T) {
	off := policy.Config{Values: map[string]any{EnableBackend.Key: false}}
	tests := []struct{ ref, want string }{
		{"{group: gateway.envoyproxy.io, kind: Backend, name: fqdn, port: 80}", "refs UnsupportedValue"},
		{"{name: svc, port: 8080}", ""},
		// the ReferenceGrant is judged before the Backend kind's switch
		{"{group: gateway.envoyproxy.io, kind: Backend, name: fqdn, namespace: other}", "refs RefNotPermitted"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			if got := summary(verdictWith(t, off, "HTTPRoute", "  - backendRefs: ["+tt.ref+"]\n")); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// outcomes is what the verdict serves in place of each rule: "out I" for a
// rule left out, "I answers S" for one answered with a direct response,
// and "refuse I/J" for backendRef J of rule I, in rule order.
func outcomes(v *policy.RouteVerdict, rules int) string {
	var out []string
	for i := range rules {
		if f, ok := v.Fate(i); ok {
			if f.Status == 0 {
				out = append(out, fmt.Sprintf("out %d", i))
			} else {
				out = append(out, fmt.Sprintf("%d answers %d", i, f.Status))
			}
		}
		for j := range 3 {
			if _, ok := v.Refusal(i, j); ok {
				out = append(out, fmt.Sprintf("refuse %d/%d", i, j))
			}
		}
	}
	return strings.Join(out, "; ")
}

// TestRouteVerdictOutcomes: what Envoy Gateway's translator serves in
// place of a rule it does not take as written — a rule whose match fails
// has no route, one whose filters fail answers 500 (a GRPCRoute none of
// whose rules is accepted has no route at all), and a backendRef it
// refuses is named by its index (its share answers 500); a mirror to a
// Service without ready endpoints changes nothing served.
func TestRouteVerdictOutcomes(t *testing.T) {
	tests := []struct {
		name, kind, rules string
		n                 int
		want              string
	}{
		{"valid", "HTTPRoute", "  - backendRefs: [{name: svc, port: 8080}]\n", 1, ""},
		{"regex left out", "HTTPRoute", "  - backendRefs: [{name: svc, port: 8080}]\n  - matches: [{path: {type: RegularExpression, value: \"*x*\"}}]\n", 2, "out 1"},
		{"header filter answered", "HTTPRoute", "  - filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: Host, value: x}]}}]\n", 1, "0 answers 500"},
		{"HTTPRouteFilter missing answered", "HTTPRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: nope}}]\n    backendRefs: [{name: svc, port: 8080}]\n", 1, "0 answers 500"},
		{"refused among valid", "HTTPRoute", "  - backendRefs: [{name: svc, port: 8080}, {name: ext, port: 80}, {name: nope, port: 80}]\n", 1, "refuse 0/1; refuse 0/2"},
		{"gRPC partly dropped", "GRPCRoute", "  - filters: [{type: RequestMirror, requestMirror: {backendRef: {name: svc, port: 8080}}}, {type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: ok-200}}]\n  - backendRefs: [{name: svc, port: 8080}]\n", 2, "0 answers 500"},
		{"gRPC wholly dropped", "GRPCRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: ok-200}}]\n", 1, "out 0"},
		{"HTTP wholly dropped still answers", "HTTPRoute", "  - filters: [{type: RequestRedirect, requestRedirect: {scheme: ftp}}]\n", 1, "0 answers 500"},
		{"no backend with an endpoint answers 503", "HTTPRoute", "  - backendRefs: [{name: idle, port: 8080}, {name: named, port: 8080}]\n", 1, "0 answers 503"},
		{"a backend with endpoints takes the traffic", "HTTPRoute", "  - backendRefs: [{name: svc, port: 8080}, {name: idle, port: 8080}]\n", 1, ""},
		{"a refused backend beside one without endpoints: 500, not 503", "HTTPRoute", "  - backendRefs: [{name: idle, port: 8080}, {name: nope, port: 8080}]\n", 1, "refuse 0/1"},
		{"a redirect is served whatever the endpoints", "HTTPRoute", "  - filters: [{type: RequestRedirect, requestRedirect: {statusCode: 301}}]\n    backendRefs: [{name: idle, port: 8080}]\n", 1, ""},
		{"host rewrite from the path to a dynamic resolver answers 500", "HTTPRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: host-from-path}}]\n    backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: dyn}]\n", 1, "0 answers 500"},
		{"a bad cookie regex leaves the rule out", "HTTPRoute", "  - filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: bad-cookie}}]\n    backendRefs: [{name: svc, port: 8080}]\n", 1, "out 0"},
		{"mirror without ready endpoints", "GRPCRoute", "  - filters: [{type: RequestMirror, requestMirror: {backendRef: {name: idle, port: 8080}}}]\n    backendRefs: [{name: svc, port: 8080}]\n", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := outcomes(verdictOf(t, tt.kind, tt.rules), tt.n); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestEndpointsUnderServiceRouting: where an EnvoyProxy or a
// BackendTrafficPolicy routes to Services by their cluster IP (routingType
// Service), Envoy Gateway reads no EndpointSlice for them, and gwpol judges
// no Service's endpoints.
func TestEndpointsUnderServiceRouting(t *testing.T) {
	tests := []struct{ name, extra, want string }{
		{"endpoint routing (the default)", "", "BackendsAvailable EndpointsNotFound"},
		{"EnvoyProxy routingType Service", "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: p, namespace: default}\nspec: {routingType: Service}\n", ""},
		{"EnvoyProxy routingType Endpoint", "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: p, namespace: default}\nspec: {routingType: Endpoint}\n", "BackendsAvailable EndpointsNotFound"},
		{"BackendTrafficPolicy routingType Service", "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: b, namespace: default}\nspec: {targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}], routingType: Service}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := verdictAmong(t, extensionsOn(policy.Config{}), routeObjects+tt.extra, "HTTPRoute", "  - backendRefs: [{name: idle, port: 8080}]\n")
			if got := summary(v); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestEnvoyGatewayMirrorToBackend: processRequestMirrorFilter validates a
// mirror's backendRef as a backendRef of weight 1 — an Envoy Gateway
// Backend named by its kind in any group Envoy Gateway reads, its port
// ignored — and words validateBackendRef's problems "Failed to validate
// the RequestMirror filter: …"; the problems only building its
// destination shows (processDestination: the Backend's TLS, a Service's
// EndpointSlices of mixed address types) keep their own words, the first
// letter upper-cased. Every one of them, and a Service without an
// endpoint, leaves the filter without a mirror (RouteVerdict.Unmirrored).
func TestEnvoyGatewayMirrorToBackend(t *testing.T) {
	mirror := func(ref string) string {
		return "  - filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: a, value: b}]}}, {type: RequestMirror, requestMirror: {backendRef: " + ref + "}}]\n    backendRefs: [{name: svc, port: 8080}]\n"
	}
	tests := []struct {
		name, ref string
		off       bool // Backends disabled in the deployment
		// want is the verdict's summary, message its first condition's
		// message ("" for none) and mirrored whether filter 1 mirrors.
		want, message string
		mirrored      bool
	}{
		{"a Backend with an FQDN", "{group: gateway.envoyproxy.io, kind: Backend, name: fqdn}", false, "", "", true},
		{"a Backend named without its group, with a port", "{kind: Backend, name: fqdn, port: 9}", false, "", "", true},
		{"a Backend in the multicluster group", "{group: multicluster.x-k8s.io, kind: Backend, name: fqdn}", false, "", "", true},
		{"a DynamicResolver Backend", "{group: gateway.envoyproxy.io, kind: Backend, name: dyn}", false, "", "", true},
		{"a Backend not in the input", "{group: gateway.envoyproxy.io, kind: Backend, name: nope}", false, "refs BackendNotFound",
			"Failed to validate the RequestMirror filter: Backend default/nope not found.", false},
		{"a Backend in another namespace without a grant", "{group: gateway.envoyproxy.io, kind: Backend, name: fqdn, namespace: other}", false, "refs RefNotPermitted",
			"Failed to validate the RequestMirror filter: Backend ref to Backend other/fqdn not permitted by any ReferenceGrant.", false},
		{"a Backend of a Unix socket", "{group: gateway.envoyproxy.io, kind: Backend, name: uds}", false, "refs UnsupportedAddressType",
			"Failed to validate the RequestMirror filter: unix domain sockets are not supported in backend references.", false},
		{"a Backend of a loopback address", "{group: gateway.envoyproxy.io, kind: Backend, name: loop}", false, "refs InvalidAddress",
			"Failed to validate the RequestMirror filter: IP address 127.0.0.1 in the loopback range is only supported when using the Host infrastructure.", false},
		{"a Backend while Backends are disabled", "{group: gateway.envoyproxy.io, kind: Backend, name: fqdn}", true, "refs UnsupportedValue", "", false},
		{"a Backend whose own CA ConfigMap is not in the input: its destination's words", "{group: gateway.envoyproxy.io, kind: Backend, name: tls-ca-missing}", false, "refs InvalidBackendTLS",
			"Configmap nope not found in namespace default.", false},
		{"a Service whose EndpointSlices mix address types: its destination's words", "{name: mixed, port: 8080}", false, "refs UnsupportedAddressType",
			"Mixed endpointslice address type for the same backendRef is not supported.", false},
		{"a Service without an endpoint: served, not mirrored", "{name: idle, port: 8080}", false, "BackendsAvailable EndpointsNotFound",
			"Failed to validate the RequestMirror filter: no ready endpoints for the related Service default/idle.", false},
		{"a Backend of a kind in a group Envoy Gateway does not read", "{group: example.com, kind: Backend, name: fqdn}", false, "refs InvalidKind", "", false},
	}
	for _, tt := range tests {
		// a GRPCRoute's mirrors are processed alike (ProcessGRPCFilters)
		for _, kind := range []string{"HTTPRoute", "GRPCRoute"} {
			t.Run(kind+"/"+tt.name, func(t *testing.T) {
				cfg := extensionsOn(policy.Config{})
				if tt.off {
					cfg = policy.Config{Values: map[string]any{EnableBackend.Key: false}}
				}
				v := verdictWith(t, cfg, kind, mirror(tt.ref))
				if got := summary(v); got != tt.want {
					t.Errorf("got %q, want %q", got, tt.want)
				}
				if tt.message != "" {
					msg := ""
					if cs := append(slices.Clone(v.Unresolved), v.Conditions...); len(cs) > 0 {
						msg = cs[0].Message
					}
					if msg != tt.message {
						t.Errorf("message %q, want %q", msg, tt.message)
					}
				}
				if got := v.Mirrors(0, 1); got != tt.mirrored {
					t.Errorf("filter 1 mirrors: %v, want %v", got, tt.mirrored)
				}
				if !v.Mirrors(0, 0) {
					t.Error("the header filter is reported unmirrored")
				}
			})
		}
	}
}
