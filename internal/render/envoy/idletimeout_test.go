package envoy_test

import (
	"testing"
	"time"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// idleTimeoutBase is a Gateway, a Service and a route whose one rule sets
// timeouts.request to TIMEOUT (left out when "").
var idleTimeoutBase = egGateway("infra", egHTTP80) + egService("infra", "web", "{port: 80}") + egShop("HTTPRoute")

// TestRequestIdleTimeout: under Envoy Gateway a route with a request
// timeout — its rule's own timeouts.request, which wins over a
// BackendTrafficPolicy's requestTimeout, or the policy's — gets a stream
// idle timeout of an hour, or the request timeout when longer, 0 when
// the request timeout is 0; none when a ClientTrafficPolicy sets the
// connection manager's stream idle timeout; kgateway adds none.
func TestRequestIdleTimeout(t *testing.T) {
	const btp = `
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: btp, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]
  timeout: {http: {requestTimeout: 5s}}
`
	const ctp = `
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: ctp, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  timeout: {http: {streamIdleTimeout: 10m}}
`
	for _, tc := range []struct {
		name, target, rule, extra string
		timeout, idle             time.Duration // -1: not set
	}{
		{name: "rule timeout", target: "envoygateway", rule: "130s", timeout: 130 * time.Second, idle: time.Hour},
		{name: "longer than an hour", target: "envoygateway", rule: "2h", timeout: 2 * time.Hour, idle: 2 * time.Hour},
		{name: "disabled", target: "envoygateway", rule: "0s", timeout: 0, idle: 0},
		{name: "no timeout", target: "envoygateway", timeout: -1, idle: -1},
		{name: "policy timeout", target: "envoygateway", extra: btp, timeout: 5 * time.Second, idle: time.Hour},
		{name: "rule timeout wins over the policy's", target: "envoygateway", rule: "130s", extra: btp, timeout: 130 * time.Second, idle: time.Hour},
		{name: "listener stream idle timeout", target: "envoygateway", rule: "130s", extra: ctp, timeout: 130 * time.Second, idle: -1},
		{name: "kgateway", target: "kgateway", rule: "130s", timeout: 130 * time.Second, idle: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := idleTimeoutBase
			if tc.rule != "" {
				src += "    timeouts: {request: " + tc.rule + "}\n"
			}
			objs, err := manifest.Parse("fixture.yaml", []byte(src+tc.extra), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			out := render(t, compile(t, &manifest.Set{Objects: objs}, policy.Config{}), envoy.Options{Target: tc.target})
			route, _ := fixtureRoute(t, out)
			ra := route.GetRoute()
			if ra == nil {
				t.Fatalf("route does not forward: %v", route.Action)
			}
			got := func(set bool, d time.Duration) time.Duration {
				if !set {
					return -1
				}
				return d
			}
			if g := got(ra.Timeout != nil, ra.Timeout.AsDuration()); g != tc.timeout {
				t.Errorf("timeout %v, want %v", g, tc.timeout)
			}
			if g := got(ra.IdleTimeout != nil, ra.IdleTimeout.AsDuration()); g != tc.idle {
				t.Errorf("idle timeout %v, want %v", g, tc.idle)
			}
		})
	}
}
