package envoy_test

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// Every render of this package's tests fails on a route path two kinds
// of different API groups both set on one route: merge decides between
// them once (merge.PathOverride) and render leaves the loser out, so no
// last fragment may win a path.
func init() {
	envoy.SetSecondWriter(func(path, first, second string) {
		panic(fmt.Sprintf("render: %s set %s on a route after %s set it (merge.PathOverride must decide)", second, path, first))
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
