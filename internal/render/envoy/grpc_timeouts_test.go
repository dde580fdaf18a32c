package envoy_test

import (
	"strings"
	"testing"
	"time"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// grpcTimeoutsBase: one HTTP listener serving an HTTPRoute (web.example)
// and a GRPCRoute (rpc.example) to one Service.
const grpcTimeoutsBase = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgw
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: infra}
spec: {ports: [{port: 80, appProtocol: kubernetes.io/h2c}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  hostnames: [web.example]
  rules:
  - backendRefs: [{name: svc, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: rpc, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  hostnames: [rpc.example]
  rules:
  - matches: [{method: {service: a.B, method: C}}]
    backendRefs: [{name: svc, port: 80}]
`

// grpcTimeoutsPolicy is a TrafficPolicy named NAME with TARGET and TIMEOUTS.
func grpcTimeoutsPolicy(name, target, timeouts string) string {
	return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: " + name +
		", namespace: infra}\nspec:\n  targetRefs: [" + target + "]\n  timeouts: " + timeouts + "\n"
}

// TestGatewayTimeoutsNotOnGRPCRoutes: under kgateway a Gateway's or a
// listener's TrafficPolicy timeouts are defaults for the HTTPRoutes' routes
// only; a GRPCRoute's routes take timeouts from a policy on the GRPCRoute
// alone, and the Gateway's do not fill what that policy leaves unset.
func TestGatewayTimeoutsNotOnGRPCRoutes(t *testing.T) {
	const (
		onGateway  = "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}"
		onListener = "{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: http}"
		onGRPC     = "{group: gateway.networking.k8s.io, kind: GRPCRoute, name: rpc}"
		onHTTP     = "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}"
	)
	const none = -1
	for _, tc := range []struct {
		name                string
		policies            string
		webTimeout, webIdle time.Duration
		rpcTimeout, rpcIdle time.Duration
	}{
		{"Gateway", grpcTimeoutsPolicy("gw", onGateway, "{request: 60s, streamIdle: 30s}"),
			60 * time.Second, 30 * time.Second, none, none},
		{"listener", grpcTimeoutsPolicy("l", onListener, "{request: 60s}"),
			60 * time.Second, none, none, none},
		{"GRPCRoute's own, the Gateway's not filling its unset idle timeout",
			grpcTimeoutsPolicy("gw", onGateway, "{request: 60s, streamIdle: 30s}") + grpcTimeoutsPolicy("rpc", onGRPC, "{request: 9s}"),
			60 * time.Second, 30 * time.Second, 9 * time.Second, none},
		{"an HTTPRoute's own, the Gateway's filling its unset idle timeout",
			grpcTimeoutsPolicy("gw", onGateway, "{request: 60s, streamIdle: 30s}") + grpcTimeoutsPolicy("web", onHTTP, "{request: 5s}"),
			5 * time.Second, 30 * time.Second, none, none},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("fixture.yaml", []byte(grpcTimeoutsBase+tc.policies), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			out := render(t, compile(t, &manifest.Set{Objects: objs}, policy.Config{}), envoy.Options{Target: "kgateway"})
			for _, want := range []struct {
				host          string
				timeout, idle time.Duration
			}{{"web.example", tc.webTimeout, tc.webIdle}, {"rpc.example", tc.rpcTimeout, tc.rpcIdle}} {
				ra := forwardingRoute(t, out, want.host)
				if g := durationOrNone(ra.Timeout != nil, ra.Timeout.AsDuration()); g != want.timeout {
					t.Errorf("%s: timeout %v, want %v", want.host, g, want.timeout)
				}
				if g := durationOrNone(ra.IdleTimeout != nil, ra.IdleTimeout.AsDuration()); g != want.idle {
					t.Errorf("%s: idle timeout %v, want %v", want.host, g, want.idle)
				}
			}
		})
	}
}

// durationOrNone is d, or -1 when it is not set.
func durationOrNone(set bool, d time.Duration) time.Duration {
	if !set {
		return -1
	}
	return d
}

// forwardingRoute is the one route of the virtual host serving host.
func forwardingRoute(t *testing.T, out *envoy.Output, host string) *routev3.RouteAction {
	t.Helper()
	for _, g := range out.Gateways {
		for _, rc := range g.RouteConfigurations {
			for _, vh := range rc.VirtualHosts {
				if len(vh.Domains) == 0 || !strings.EqualFold(vh.Domains[0], host) {
					continue
				}
				if len(vh.Routes) != 1 || vh.Routes[0].GetRoute() == nil {
					t.Fatalf("%s: want one forwarding route, have %v", host, vh.Routes)
				}
				return vh.Routes[0].GetRoute()
			}
		}
	}
	t.Fatalf("no virtual host for %s", host)
	return nil
}
