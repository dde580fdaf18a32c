package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/lint"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/status"
)

// FuzzPipeline feeds arbitrary documents through every stage and view:
// a malformed manifest may fail to load, but once loaded nothing may panic,
// what renders is valid Envoy config (a render that finds it is not
// fails as an internal error, which fails the target), and explain and
// render agree on every Envoy route's owners and answer.
func FuzzPipeline(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/examples/*.yaml")
	more, _ := filepath.Glob("../../testdata/lint/*.yaml")
	for _, p := range append(seeds, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	// The Envoy Gateway fixtures, each over the platform they attach to.
	base, _ := os.ReadFile("../../testdata/base/platform.yaml")
	egFixtures, _ := filepath.Glob("../../testdata/render/backendtrafficpolicy/*/input.yaml")
	egExamples, _ := filepath.Glob("../../testdata/examples-envoygateway/*.yaml")
	for _, p := range egFixtures {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(append(append(append([]byte{}, base...), "\n---\n"...), b...))
		}
	}
	var examples []byte
	for _, p := range egExamples {
		if b, err := os.ReadFile(p); err == nil {
			examples = append(append(examples, b...), "\n---\n"...)
		}
	}
	f.Add(examples)
	// This session's features, so that CI's short runs reach them: Envoy
	// Gateway's geolocation check decided per listener (two listeners, one
	// detecting the client IP) and the WSO2 operator at its pin (a route
	// it refuses whole beside routes it builds), backend policies on a
	// Service two controllers' Gateways route to, a BackendTLSPolicy one of
	// them refuses and the other applies, and a rule's ExtensionRef to a
	// HAPTIC policy on a route kgateway and HAPTIC both serve (the rule
	// broken on kgateway's Gateway only: attach.Broken.Under).
	for _, p := range []string{"../../testdata/render/securitypolicy/authorization-geoip-per-listener/input.yaml", "../../testdata/wso2/operator/routes.yaml",
		"../../testdata/explain/backend-policy-other-controller/input.yaml", "../../testdata/backendtls-judged/mixed-second-ref.yaml",
		"../../testdata/explain/extensionref-other-controller/input.yaml"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	// An XListenerSet (kgl40): read by kgateway's Gateway (served,
	// attached to by group and kind, its TrafficPolicy's ancestor), not by
	// Envoy Gateway's (GWP216), with a v1 ListenerSet of the same name.
	f.Add([]byte(xListenerSetSeed))
	// fz37's find, fixed (merge.PathOverride): a kgateway TrafficPolicy
	// and an Envoy Gateway BackendTrafficPolicy writing route.timeout (and
	// route.retry_policy) on a route of a Gateway whose GatewayClass names
	// no controller ("cootrollerName"), which takes every kind — render
	// kept the fragment written last while explain named the other owner.
	// With the explain fixture of it, over the platform.
	f.Add([]byte(pathOverrideBase +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: kg}\nspec: {cootrollerName: kgateway.dev/kgateway}\n" +
		pathOverridePolicy(egGroup, "BackendTrafficPolicy", "name: bt, namespace: app", toRoute+", "+toKGW, "  timeout: {http: {requestTimeout: 7s}}\n  retry: {numRetries: 2}\n") +
		pathOverridePolicy(kgwGroup, "TrafficPolicy", "name: tp, namespace: app", toRoute+", "+toEGW, "  timeouts: {request: 9s}\n  retry: {attempts: 5}\n")))
	if b, err := os.ReadFile("../../testdata/explain/overridden-across-families/input.yaml"); err == nil {
		f.Add(append(append(append([]byte{}, base...), "\n---\n"...), b...))
	}
	// The same on a listener's paths (merge.PathOverride in a listener's
	// view): a kgateway ListenerPolicy and an Envoy Gateway
	// ClientTrafficPolicy writing the connection manager's
	// stream_idle_timeout and xff_num_trusted_hops, and the Envoy
	// listener's buffer limit, on the whole Gateway or one listener,
	// over the platform and on pathOverrideBase's Gateways.
	// And on a backend's cluster (merge.ClusterOverride): a route's
	// BackendTrafficPolicy and a BackendConfigPolicy on its backend both
	// setting the cluster's connect timeout and circuit breakers.
	for _, name := range []string{"listener-overridden-across-families", "cluster-overridden-across-families"} {
		if b, err := os.ReadFile("../../testdata/explain/" + name + "/input.yaml"); err == nil {
			f.Add(append(append(append([]byte{}, base...), "\n---\n"...), b...))
		}
	}
	f.Add([]byte(pathOverrideBase +
		pathOverridePolicy(kgwGroup, "ListenerPolicy", "name: lp, namespace: app", toKGW+", "+toEGW, "  default:\n    perConnectionBufferLimitBytes: 4096\n    httpSettings: {streamIdleTimeout: 30s, xffNumTrustedHops: 2, maxHeadersCount: 80}\n") +
		pathOverridePolicy(egGroup, "ClientTrafficPolicy", "name: ctp, namespace: app", "{group: gateway.networking.k8s.io, kind: Gateway, name: kgw, sectionName: http}, "+toEGW, "  timeout: {http: {streamIdleTimeout: 10s}}\n  connection: {bufferLimit: 8192}\n  clientIPDetection: {xForwardedFor: {numTrustedHops: 1}}\n")))
	// HAPTIC's fixtures and example, each at a length that runs it with
	// the chart switches on (below): under the chart's defaults a policy
	// with a rate limit or a cache fails closed, and its token checks and
	// consumer headers never render. Then the WSO2 fixtures not seeded
	// above (the operator's refusals, the API kinds' findings).
	hapticSeeds, _ := filepath.Glob("../../testdata/haptic/*/input.yaml")
	wso2Seeds, _ := filepath.Glob("../../testdata/wso2/lint/*.yaml")
	for _, p := range append(append(hapticSeeds, "../../testdata/examples/70-haproxy.yaml"), append(wso2Seeds, "../../testdata/wso2/reject/routes.yaml", "../../testdata/wso2/classes/classes.yaml")...) {
		if b, err := os.ReadFile(p); err == nil {
			if strings.Contains(p, "haptic") || strings.Contains(p, "haproxy") {
				b = atLength(b, 2)
			}
			f.Add(b)
		}
	}
	// A route the WSO2 operator builds operations from with every shape
	// its mapping reads: annotations it refuses (display name, version,
	// artifact-id) and a context, a method, /* and {param} paths, a
	// regular expression, header and query matches, a rule without
	// matches (GWP512, GWP514).
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: wso2-api-platform}\nspec: {controllerName: gateway.api-platform.wso2.com/gateway-operator}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: platform, namespace: shop}\nspec:\n  gatewayClassName: wso2-api-platform\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: ops\n  namespace: shop\n  annotations:\n" +
		"    gateway.api-platform.wso2.com/display-name: 'bad name!'\n    gateway.api-platform.wso2.com/api-version: 1.x\n" +
		"    gateway.api-platform.wso2.com/context: shop/v1\n    gateway.api-platform.wso2.com/artifact-id: not-a-uuid\n" +
		"spec:\n  parentRefs: [{name: platform}]\n  rules:\n" +
		"  - matches: [{path: {type: PathPrefix, value: /items/*}, method: GET}, {path: {type: RegularExpression, value: '/items/{id}'}, method: DELETE}," +
		" {path: {type: RegularExpression, value: /r.*}, headers: [{name: x-a, value: b}], queryParams: [{name: q, value: v}]}]\n" +
		"    backendRefs: [{name: items, port: 8080}]\n  - backendRefs: [{name: items, port: 8080}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: root, namespace: shop, annotations: {gateway.api-platform.wso2.com/context: /}}\n" +
		"spec:\n  parentRefs: [{name: platform}]\n  rules: [{matches: [{path: {type: Exact, value: /}}, {path: {type: PathPrefix, value: /a}}], backendRefs: [{name: items, port: 8080}]}]\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: items, namespace: shop}\nspec: {ports: [{port: 8080}]}\n"))
	// A route on two controllers' Gateways (kgateway's and Envoy
	// Gateway's) with each family's policy on it and on the other's
	// Gateway: each attaches only where its controller serves (GWP224
	// where it serves nowhere), and each target renders its own.
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: kg}\nspec: {controllerName: kgateway.dev/kgateway}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: kgw, namespace: app}\nspec:\n  gatewayClassName: kg\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: egw, namespace: app}\nspec:\n  gatewayClassName: eg\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: both, namespace: app}\nspec:\n  parentRefs: [{name: kgw}, {name: egw}]\n" +
		"  rules: [{matches: [{path: {type: PathPrefix, value: /b}}], backendRefs: [{name: svc, port: 80}]}]\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: app}\nspec: {ports: [{port: 80}]}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: bt, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: both}, {group: gateway.networking.k8s.io, kind: Gateway, name: kgw}]\n  timeout: {http: {requestTimeout: 7s}}\n" +
		"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: tp, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: both}, {group: gateway.networking.k8s.io, kind: Gateway, name: egw}]\n  timeouts: {request: 9s}\n"))
	// A rule with a backendRef to no Service, whose policy gives it
	// clusters of its own: explain says it answers 500, and render must
	// keep the blackhole as a cluster nothing defines, not make one of
	// the rule's own from its name (found by this target's explain/render
	// agreement).
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: gwpol\n" +
		"  listeners: [{name: http, protocol: HTTP, port: 80}]\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: shop, namespace: infra}\n" +
		"spec:\n  parentRefs: [{name: gw}]\n  rules: [{backendRefs: [{name: gone, port: 80}]}]\n---\napiVersion: gateway.envoyproxy.io/v1alpha1\n" +
		"kind: BackendTrafficPolicy\nmetadata: {name: bt, namespace: infra}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]\n" +
		"  circuitBreaker: {maxConnections: 10}\n"))
	// The same rule with a route-level field that cannot be rendered (a
	// connect timeout Envoy refuses, for the rule's own clusters): the
	// rule answers 500, as explain says, not the field's 503 — it has no
	// cluster to go into (found by this target's explain/render
	// agreement). Even-length, so that the Service stays missing.
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: gwpol\n" +
		"  listeners: [{name: http, protocol: HTTP, port: 80}]\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: shop, namespace: infra}\n" +
		"spec:\n  parentRefs: [{name: gw}]\n  rules: [{backendRefs: [{name: gone, port: 80}]}]\n---\napiVersion: gateway.envoyproxy.io/v1alpha1\n" +
		"kind: BackendTrafficPolicy\nmetadata: {name: bt, namespace: infra}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]\n" +
		"  timeout: {tcp: {connectTimeout: -5s}}\n\n"))
	// A rule none of whose backendRefs resolves (one lacks its name):
	// every weighted cluster is the blackhole, so the route answers 500,
	// as explain says (found by this target's explain/render agreement,
	// which read such a route as forwarding). Even-length.
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: app}\nspec:\n  gatewayClassName: kgw\n" +
		"  listeners: [{name: http, port: 80, protocol: HTTP}]\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: web, namespace: app}\n" +
		"spec:\n  parentRefs: [{name: gw}]\n  rules: [{backendRefs: [{name: absent, port: 80}, {Yame: present, port: 8080}]}]\n"))
	// A rate limit service, so that global rate limits render. (Set
	// beside the modes: assigning Settings had dropped them since they
	// became settings.)
	cfg := (&Config{Namespace: "default"}).WithSetting("referenceGrantMode", "Strict").WithSetting("validationMode", "Strict").
		WithSetting("envoyGateway.rateLimit.enabled", true)
	// HAPTIC's chart switches on (shared rate limit, cache tier,
	// self-service WAF catalogs), so that its policies using them render
	// rather than fail closed as under the chart's defaults.
	hapticOn := *cfg
	hapticOn.WithSetting("haptic", map[string]any{"rateLimit": map[string]any{"shared": map[string]any{"enabled": true}},
		"cache": map[string]any{"varnish": map[string]any{"enabled": true}}, "waf": map[string]any{"policies": map[string]any{"selfService": map[string]any{"enabled": true}}}})
	runs := []*Config{cfg, nil, &hapticOn, nil}
	for i := range 2 {
		assumeAll := *runs[2*i]
		assumeAll.AssumeExist = []string{"Secret", "Service", "ConfigMap"}
		runs[2*i+1] = &assumeAll
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := manifest.Parse("fuzz.yaml", data, manifest.Limits{MaxDepth: 32, MaxAliasNodes: 1000})
		if err != nil {
			return
		}
		// Half the inputs (odd lengths) with the objects they lack assumed
		// present, and half (lengths 2 and 3 mod 4) with HAPTIC's switches on.
		run := runs[len(data)%4]
		c := families.Compile(&manifest.Set{Objects: objs}, run)
		rep := status.Compute(c.Result, status.Options{})
		if _, err := encode("yaml", rep); err != nil {
			t.Fatalf("status YAML: %v", err)
		}
		writeStatusSummary(io.Discard, rep, 80)
		lrep := lint.Run(&lint.Input{Result: c.Result, Stage: c.Diagnostics()}, lint.Config{})
		writeLintText(io.Discard, lrep, false, 80)
		if err := writeSARIF(io.Discard, lrep, []string{"note"}); err != nil {
			t.Fatalf("SARIF: %v", err)
		}
		for _, target := range []string{"envoy", "kgateway", "envoygateway"} {
			out, err := envoy.Render(c.Result, envoy.Options{Target: target, Config: run.PolicyConfig()})
			if err != nil {
				// a target may not apply; config Envoy refuses is an
				// internal error (Gateway.validate), never an answer
				if diag.KindOf(err) == diag.Internal {
					t.Fatalf("render %s: %v", target, err)
				}
				continue
			}
			if _, err := out.Marshal("json", envoy.TypeAll); err != nil {
				t.Fatalf("marshal: %v", err)
			}
			// explain names the owners render's metadata names, on every
			// Envoy route (TestExplainAgreesWithRender's check; its listed
			// gaps are collected, not failed)
			checkOwnership(t, c, out, target, map[string][]string{})
		}
	})
}

// FuzzConfigFile feeds arbitrary bytes to the config loader as a
// .gwpol.yaml: it may refuse them, as a usage error (exit 2) with the
// file's name, but never panic.
func FuzzConfigFile(f *testing.F) {
	for _, seed := range []string{"namespace: shop\n", "lint:\n  failOn: error\n  failOn: warning\n", "\tlint: {}\n", "assumeExist: [Secret]\n",
		"lint:\n  ignore:\n  - {code: GWP303, object: \"TrafficPolicy/infra/*\"}\n", "a: &a [*a]\n", ""} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, DefaultConfigFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := loadConfig(path)
		if err != nil && (exitCode(err) != ExitUsage && exitCode(err) != ExitInput || !strings.Contains(err.Error(), path)) {
			t.Fatalf("config %q: %v (exit %d): want a usage or input error naming the file", data, err, exitCode(err))
		}
	})
}

// atLength is b with newlines appended until its length is r mod 4: the
// configuration FuzzPipeline runs an input with.
func atLength(b []byte, r int) []byte {
	b = append([]byte{}, b...)
	for len(b)%4 != r {
		b = append(b, '\n')
	}
	return b
}

// xListenerSetSeed is a kgateway and an Envoy Gateway Gateway, each with
// an XListenerSet and a v1 ListenerSet named extra, routes naming either
// kind and a TrafficPolicy on the XListenerSet.
const xListenerSetSeed = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kg}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: a}
spec:
  gatewayClassName: kg
  allowedListeners: {namespaces: {from: Same}}
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: b}
spec:
  gatewayClassName: eg
  allowedListeners: {namespaces: {from: Same}}
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XListenerSet
metadata: {name: extra, namespace: a}
spec:
  parentRef: {name: gw}
  listeners: [{name: more, protocol: HTTP, port: 8080, hostname: more.example.com}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: extra, namespace: a}
spec:
  parentRef: {name: gw}
  listeners: [{name: other, protocol: HTTP, port: 8081}]
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XListenerSet
metadata: {name: extra, namespace: b}
spec:
  parentRef: {name: gw}
  listeners: [{name: more, protocol: HTTP, port: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: a}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: a}
spec:
  parentRefs: [{group: gateway.networking.x-k8s.io, kind: XListenerSet, name: extra}, {kind: ListenerSet, name: extra}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: tp, namespace: a}
spec:
  targetRefs: [{group: gateway.networking.x-k8s.io, kind: XListenerSet, name: extra, sectionName: more}]
  timeouts: {request: 5s}
`
