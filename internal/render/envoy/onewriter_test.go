package envoy_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// Every render of this package's tests fails on a route or listener path two kinds
// of different API groups both set on one resource: merge decides between
// them once (merge.PathOverride) and render leaves the loser out, so no
// last fragment may win a path.
func init() {
	envoy.SetSecondWriter(func(path, first, second string) {
		panic(fmt.Sprintf("render: %s set %s after %s set it on one route or listener (merge.PathOverride must decide)", second, path, first))
	})
}

// TestOneWriterPerRoutePath: fields of a kgateway and an Envoy Gateway
// kind writing one route path on a Gateway that takes every kind (no
// GatewayClass) — the winner's value alone is on the route, whichever
// wins, and nothing else of the loser's field (its other paths
// included: a field is won whole).
func TestOneWriterPerRoutePath(t *testing.T) {
	const base = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: app}
spec:
  gatewayClassName: none
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: app}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec: {ports: [{port: 80}]}
`
	policyDoc := func(group, kind, name, spec string) string {
		return "---\napiVersion: " + group + "\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: app}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n" + spec
	}
	for _, tc := range []struct {
		name, input string
		// want are substrings of the route's JSON, absent the ones it must not hold
		want, absent []string
	}{
		{"timeouts: the Envoy Gateway policy's name sorts first",
			policyDoc("gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicy", "a", "  timeout: {http: {requestTimeout: 7s}}\n") +
				policyDoc("gateway.kgateway.dev/v1alpha1", "TrafficPolicy", "b", "  timeouts: {request: 9s, streamIdle: 30s}\n"),
			[]string{`"timeout":"7s"`}, []string{`"9s"`, `"30s"`, "kgateway.dev/TrafficPolicy"}},
		{"timeouts: the kgateway policy's name sorts first",
			policyDoc("gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicy", "b", "  timeout: {http: {requestTimeout: 7s}}\n") +
				policyDoc("gateway.kgateway.dev/v1alpha1", "TrafficPolicy", "a", "  timeouts: {request: 9s, streamIdle: 30s}\n"),
			[]string{`"timeout":"9s"`, `"idle_timeout":"30s"`}, []string{`"7s"`, "envoyproxy.io/BackendTrafficPolicy"}},
		{"retry",
			policyDoc("gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicy", "a", "  retry: {numRetries: 2}\n") +
				policyDoc("gateway.kgateway.dev/v1alpha1", "TrafficPolicy", "b", "  retry: {attempts: 5}\n"),
			[]string{`"num_retries":2`}, []string{`"num_retries":5`, "kgateway.dev/TrafficPolicy"}},
		{"CORS: one per-filter config on the route",
			policyDoc("gateway.envoyproxy.io/v1alpha1", "SecurityPolicy", "b", "  cors: {allowOrigins: ['https://eg.example']}\n") +
				policyDoc("gateway.kgateway.dev/v1alpha1", "TrafficPolicy", "a", "  cors: {allowOrigins: ['https://kg.example']}\n"),
			[]string{"kg.example"}, []string{"eg.example", "envoyproxy.io/SecurityPolicy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := compileInline(t, base+tc.input, policy.Config{})
			out := render(t, res, envoy.Options{Target: "envoy"})
			var routes []string
			for _, g := range out.Gateways {
				for _, rc := range g.RouteConfigurations {
					for _, vh := range rc.VirtualHosts {
						for _, r := range vh.Routes {
							routes = append(routes, strings.ReplaceAll(string(mustJSON(t, r)), " ", ""))
						}
					}
				}
			}
			if len(routes) != 1 {
				t.Fatalf("%d routes, want 1", len(routes))
			}
			for _, w := range tc.want {
				if !strings.Contains(routes[0], w) {
					t.Errorf("route without %s:\n%s", w, routes[0])
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(routes[0], a) {
					t.Errorf("route holds %s:\n%s", a, routes[0])
				}
			}
		})
	}
}

// mustJSON is a message's protojson, in Envoy's field names.
func mustJSON(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOneWriterPerListenerPath: fields of a kgateway ListenerPolicy and
// an Envoy Gateway ClientTrafficPolicy writing one setting of the
// resources built per listener (its connection manager, the Envoy
// listener) on a Gateway that takes every kind — the listener's verdict
// (merge.PathOverride on policy.EnvoyPath.OnListener) keeps the winner's
// value alone there, and nothing else of the loser's field, whichever
// wins; fields writing different settings of one message both stay.
func TestOneWriterPerListenerPath(t *testing.T) {
	const base = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: app}
spec:
  gatewayClassName: none
  listeners: [{name: http, protocol: HTTP, port: 80}, {name: other, protocol: HTTP, port: 8080}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: app}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec: {ports: [{port: 80}]}
`
	doc := func(group, kind, meta, target, spec string) string {
		return "---\napiVersion: " + group + "\nkind: " + kind + "\nmetadata: {" + meta + ", namespace: app}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw" + target + "}]\n" + spec
	}
	const eg, kg = "gateway.envoyproxy.io/v1alpha1", "gateway.kgateway.dev/v1alpha1"
	lpIdle := func(meta, target string) string {
		return doc(kg, "ListenerPolicy", meta, target, "  default:\n    httpSettings: {streamIdleTimeout: 31s, maxHeadersCount: 77}\n")
	}
	ctpIdle := func(meta, target string) string {
		return doc(eg, "ClientTrafficPolicy", meta, target, "  timeout: {http: {streamIdleTimeout: 11s, idleTimeout: 12s}}\n")
	}
	// sharedPort: the Gateway's two HTTP listeners on one port, served
	// by one Envoy listener and one connection manager
	sharedPort := func(input string) string {
		return strings.Replace(base, "{name: other, protocol: HTTP, port: 8080}", "{name: other, protocol: HTTP, port: 80, hostname: other.example}", 1) + input
	}
	for _, tc := range []struct {
		name, input string
		// want and absent are substrings of each listener's JSON (port
		// 80's, port 8080's)
		want, absent [][]string
	}{
		{"stream idle timeout: the ListenerPolicy's name sorts first",
			lpIdle("name: a", "") + ctpIdle("name: b", ""),
			[][]string{{`"stream_idle_timeout":"31s"`}, {`"stream_idle_timeout":"31s"`}},
			[][]string{{`"11s"`, `"12s"`, "envoyproxy.io/ClientTrafficPolicy"}, {`"11s"`, `"12s"`}}},
		{"stream idle timeout: the older ClientTrafficPolicy wins whole; the other's max headers count stays",
			lpIdle("name: a", "") + ctpIdle(`name: b, creationTimestamp: "2026-01-01T00:00:00Z"`, ""),
			[][]string{{`"stream_idle_timeout":"11s"`, `"idle_timeout":"12s"`}, {`"stream_idle_timeout":"11s"`}},
			[][]string{{`"31s"`}, {`"31s"`}}},
		{"a listener's own ClientTrafficPolicy wins there; the other listener keeps the Gateway's ListenerPolicy",
			lpIdle(`name: a, creationTimestamp: "2026-01-01T00:00:00Z"`, "") + ctpIdle("name: b", ", sectionName: http"),
			[][]string{{`"stream_idle_timeout":"11s"`, `"max_headers_count":77`}, {`"stream_idle_timeout":"31s"`}},
			[][]string{{`"31s"`}, {`"11s"`}}},
		{"different settings of one message: both stay",
			doc(kg, "ListenerPolicy", "name: a", "", "  default:\n    httpSettings: {maxHeadersCount: 77}\n") + ctpIdle("name: b", ""),
			[][]string{{`"max_headers_count":77`, `"stream_idle_timeout":"11s"`, `"idle_timeout":"12s"`}, {`"max_headers_count":77`}},
			[][]string{nil, nil}},
		{"the Envoy listener's buffer limit",
			doc(kg, "ListenerPolicy", "name: b", "", "  default: {perConnectionBufferLimitBytes: 4096}\n") +
				doc(eg, "ClientTrafficPolicy", "name: a", "", "  connection: {bufferLimit: 8192}\n"),
			[][]string{{`"per_connection_buffer_limit_bytes":8192`}, {`"per_connection_buffer_limit_bytes":8192`}},
			[][]string{{`4096`}, {`4096`}}},
		{"a port two HTTP listeners share: one listener's own ClientTrafficPolicy is not applied there, and overrides nothing",
			sharedPort(lpIdle(`name: a, creationTimestamp: "2026-01-01T00:00:00Z"`, "") + ctpIdle("name: b", ", sectionName: http")),
			[][]string{{`"stream_idle_timeout":"31s"`, `"max_headers_count":77`}},
			[][]string{{`"11s"`}}},
		{"a port two HTTP listeners share: the Gateway's policies are decided on both",
			sharedPort(lpIdle("name: a", "") + ctpIdle("name: b", "")),
			[][]string{{`"stream_idle_timeout":"31s"`, `"max_headers_count":77`}},
			[][]string{{`"11s"`, `"12s"`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			input := tc.input
			if !strings.HasPrefix(input, base[:20]) {
				input = base + input
			}
			res := compileInline(t, input, policy.Config{})
			out := render(t, res, envoy.Options{Target: "envoy"})
			if len(out.Gateways) != 1 || len(out.Gateways[0].Listeners) != len(tc.want) {
				t.Fatalf("want one Gateway with %d listeners", len(tc.want))
			}
			for i, l := range out.Gateways[0].Listeners {
				js := strings.ReplaceAll(string(mustJSON(t, l)), " ", "")
				for _, w := range tc.want[i] {
					if !strings.Contains(js, w) {
						t.Errorf("listener %s without %s:\n%s", l.Name, w, js)
					}
				}
				for _, a := range tc.absent[i] {
					if strings.Contains(js, a) {
						t.Errorf("listener %s holds %s:\n%s", l.Name, a, js)
					}
				}
			}
		})
	}
}

// TestClusterOverriddenByBackendPolicy: an Envoy Gateway
// BackendTrafficPolicy on a route writing settings of its backends'
// clusters that a kgateway BackendConfigPolicy on one backend writes too,
// on a Gateway that takes every kind (merge.ClusterOverride): that
// backend's cluster takes the BackendConfigPolicy's alone (before: both
// fragments, the later one winning message by message), without the
// overridden fields' settings or merge metadata; the route's other
// backend keeps the route's settings, and a setting the backend's policy
// does not write (the load balancer) stays on both.
func TestClusterOverriddenByBackendPolicy(t *testing.T) {
	const input = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: app}
spec:
  gatewayClassName: none
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: app}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: svc, port: 80}, {name: other, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: other, namespace: app}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: bt, namespace: app}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  timeout: {tcp: {connectTimeout: 3s}, http: {requestTimeout: 7s}}
  circuitBreaker: {maxConnections: 11}
  loadBalancer: {type: Random}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: BackendConfigPolicy
metadata: {name: bcp, namespace: app}
spec:
  targetRefs: [{group: "", kind: Service, name: svc}]
  connectTimeout: 9s
  circuitBreakers: {maxConnections: 22}
`
	res := compileInline(t, input, policy.Config{})
	out := render(t, res, envoy.Options{Target: "envoy"})
	clusters := map[string]string{}
	var route string
	for _, g := range out.Gateways {
		for _, c := range g.Clusters {
			clusters[c.Name] = strings.ReplaceAll(string(mustJSON(t, c)), " ", "")
		}
		for _, rc := range g.RouteConfigurations {
			for _, vh := range rc.VirtualHosts {
				for _, r := range vh.Routes {
					route = strings.ReplaceAll(string(mustJSON(t, r)), " ", "")
				}
			}
		}
	}
	if !strings.Contains(route, `"timeout":"7s"`) {
		t.Errorf("the route lost the BackendTrafficPolicy's request timeout:\n%s", route)
	}
	byService := func(svc string) string {
		for name, js := range clusters {
			if strings.Contains(js, `"service_name":"kube_app_`+svc+`_80"`) && strings.Contains(name, "rule") {
				return js
			}
		}
		t.Fatalf("no rule cluster for %s: %v", svc, slices.Sorted(maps.Keys(clusters)))
		return ""
	}
	for _, tc := range []struct {
		svc          string
		want, absent []string
	}{
		{"svc", []string{`"connect_timeout":"9s"`, `"max_connections":22`, "load_balancing_policies.random", "kgateway.dev/BackendConfigPolicy"},
			[]string{`"3s"`, `"max_connections":11`, `"max_pending_requests"`, `"timeout":[`, `"circuitBreaker":[`}},
		{"other", []string{`"connect_timeout":"3s"`, `"max_connections":11`, "load_balancing_policies.random"}, []string{`"9s"`, `22`}},
	} {
		js := byService(tc.svc)
		for _, w := range tc.want {
			if !strings.Contains(js, w) {
				t.Errorf("cluster of %s without %s:\n%s", tc.svc, w, js)
			}
		}
		for _, a := range tc.absent {
			if strings.Contains(js, a) {
				t.Errorf("cluster of %s holds %s:\n%s", tc.svc, a, js)
			}
		}
	}
}
