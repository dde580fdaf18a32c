package kgateway_test

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestPerConnectionBufferLimitAnnotation: kgateway reads its Gateway
// annotation kgateway.dev/per-connection-buffer-limit (a Kubernetes
// quantity) as the buffer limit of every Envoy listener of the Gateway —
// HTTP, TCP and a ListenerSet's alike — unless a ListenerPolicy sets
// perConnectionBufferLimitBytes, which wins on the listeners it reaches; a
// value that is not a quantity is ignored.
func TestPerConnectionBufferLimitAnnotation(t *testing.T) {
	gateway := func(value string) string {
		ann := ""
		if value != "" {
			ann = ", annotations: {kgateway.dev/per-connection-buffer-limit: \"" + value + "\"}"
		}
		return `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kgw}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: edge` + ann + `}
spec:
  gatewayClassName: kgw
  allowedListeners: {namespaces: {from: Same}}
  listeners:
  - {name: web, port: 8080, protocol: HTTP}
  - {name: db, port: 5432, protocol: TCP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: extra, namespace: edge}
spec:
  parentRef: {name: gw}
  listeners:
  - {name: admin, port: 9090, protocol: HTTP}
---
apiVersion: v1
kind: Service
metadata: {name: pg, namespace: edge}
spec: {ports: [{port: 5432}]}
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: pg, namespace: edge}
spec:
  parentRefs: [{name: gw, sectionName: db}]
  rules: [{backendRefs: [{name: pg, port: 5432}]}]
`
	}
	const listenerPolicy = `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: ListenerPolicy
metadata: {name: lp, namespace: edge}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  default: {perConnectionBufferLimitBytes: 4096}
`
	tests := []struct {
		name, value, extra string
		want               uint32 // on every listener; 0: unset
	}{
		{"binary suffix", "64Ki", "", 65536},
		{"plain bytes", "32768", "", 32768},
		{"decimal suffix", "1M", "", 1000000},
		{"not a quantity", "lots", "", 0},
		{"no annotation", "", "", 0},
		{"a ListenerPolicy wins", "64Ki", listenerPolicy, 4096},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := compileInline(t, gateway(tt.value)+tt.extra, policy.Config{})
			out, err := envoy.Render(res, envoy.Options{Target: "kgateway"})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Gateways) != 1 || len(out.Gateways[0].Listeners) != 3 {
				t.Fatalf("want one Gateway with 3 listeners, got %d gateways", len(out.Gateways))
			}
			for _, l := range out.Gateways[0].Listeners {
				if got := l.GetPerConnectionBufferLimitBytes().GetValue(); got != tt.want || (tt.want == 0) != (l.GetPerConnectionBufferLimitBytes() == nil) {
					t.Errorf("listener %s: per_connection_buffer_limit_bytes = %v, want %d", l.GetName(), l.GetPerConnectionBufferLimitBytes(), tt.want)
				}
			}
		})
	}
}
