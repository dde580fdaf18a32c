package envoy_test

import (
	"fmt"
	"testing"

	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
)

// TestServiceUpstreamProtocol: a Service port's cluster speaks HTTP/2
// upstream as the target's controller decides (Target.ServiceHTTP2).
// Envoy Gateway takes the route kind's protocol (a GRPCRoute's gRPC) and
// refines an HTTPRoute's by the port's appProtocol — kubernetes.io/h2c,
// gateway.envoyproxy.io/h2c and grpc are HTTP/2, anything else (http2 and
// h2c included) HTTP/1.1 — and a WebSocket appProtocol forces HTTP/1.1,
// on a GRPCRoute too (route.go: inspectAppProtocolByRouteKind,
// resolveBackendProtocol, shouldForceHTTP1Upstream; checked with egctl
// x translate v1.9.0 --to xds). Upstream Envoy's target keeps its own
// reading: http2 and h2c are HTTP/2, a GRPCRoute's backend always.
func TestServiceUpstreamProtocol(t *testing.T) {
	for _, tc := range []struct {
		appProtocol string
		http, grpc  map[string]bool // by target
	}{
		{"", map[string]bool{"envoygateway": false, "envoy": false}, map[string]bool{"envoygateway": true, "envoy": true}},
		{"kubernetes.io/h2c", map[string]bool{"envoygateway": true, "envoy": true}, map[string]bool{"envoygateway": true, "envoy": true}},
		{"gateway.envoyproxy.io/h2c", map[string]bool{"envoygateway": true, "envoy": false}, map[string]bool{"envoygateway": true, "envoy": true}},
		{"grpc", map[string]bool{"envoygateway": true, "envoy": true}, map[string]bool{"envoygateway": true, "envoy": true}},
		{"http2", map[string]bool{"envoygateway": false, "envoy": true}, map[string]bool{"envoygateway": true, "envoy": true}},
		{"h2c", map[string]bool{"envoygateway": false, "envoy": true}, map[string]bool{"envoygateway": true, "envoy": true}},
		{"kubernetes.io/ws", map[string]bool{"envoygateway": false, "envoy": false}, map[string]bool{"envoygateway": false, "envoy": true}},
		{"gateway.envoyproxy.io/wss", map[string]bool{"envoygateway": false, "envoy": false}, map[string]bool{"envoygateway": false, "envoy": true}},
	} {
		for _, kind := range []string{"HTTPRoute", "GRPCRoute"} {
			for _, target := range []string{"envoygateway", "envoy"} {
				want := tc.http[target]
				if kind == "GRPCRoute" {
					want = tc.grpc[target]
				}
				t.Run(fmt.Sprintf("%s/%s/%s", tc.appProtocol, kind, target), func(t *testing.T) {
					ap := ""
					if tc.appProtocol != "" {
						ap = ", appProtocol: " + tc.appProtocol
					}
					input := fmt.Sprintf(`
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: any
  listeners:
  - {name: http, protocol: HTTP, port: 80}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80%s}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: %s
metadata: {name: shop, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{name: web, port: 80}]
`, ap, kind)
					gw := renderInline(t, input, target)
					found := false
					for _, c := range gw.Clusters {
						if c.Name != "kube_infra_web_80" {
							continue
						}
						found = true
						var opts upstreamhttpv3.HttpProtocolOptions
						got := false
						if a := c.GetTypedExtensionProtocolOptions()["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]; a != nil {
							if err := a.UnmarshalTo(&opts); err != nil {
								t.Fatal(err)
							}
							got = opts.GetExplicitHttpConfig().GetHttp2ProtocolOptions() != nil
						}
						if got != want {
							t.Errorf("HTTP/2 upstream %v, want %v", got, want)
						}
					}
					if !found {
						t.Fatal("no cluster for the Service port")
					}
				})
			}
		}
	}
}
