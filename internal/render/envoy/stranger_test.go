package envoy_test

import (
	"testing"
	"time"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// strangerRoutes is one HTTPRoute served by a kgateway Gateway
// (kg.example), an Envoy Gateway Gateway (eg.example) and a HAPTIC
// Gateway (hap.example).
const strangerRoutes = `apiVersion: gateway.networking.k8s.io/v1
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
metadata: {name: kgw, namespace: infra}
spec:
  gatewayClassName: kg
  listeners: [{name: http, protocol: HTTP, port: 80, hostname: kg.example}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: egw, namespace: infra}
spec:
  gatewayClassName: eg
  listeners: [{name: http, protocol: HTTP, port: 80, hostname: eg.example}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: hap}
spec: {controllerName: haproxy-haptic.org/controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: hgw, namespace: infra}
spec:
  gatewayClassName: hap
  listeners: [{name: http, protocol: HTTP, port: 80, hostname: hap.example}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: infra}
spec:
  parentRefs: [{name: kgw}, {name: egw}, {name: hgw}]
  rules:
  - name: main
    backendRefs: [{name: svc, port: 80}]
`

// TestStrangerRoutePolicies: a route served by Gateways of two
// controllers takes each family's policies (on the route or one of its
// rules) on its own controller's Gateway only: neither controller applies
// the other's kinds. Shapes no public case has.
func TestStrangerRoutePolicies(t *testing.T) {
	const none = -1
	tp := func(target string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: tp, namespace: infra}\nspec:\n  targetRefs: [" + target + "]\n  timeouts: {request: 9s}\n"
	}
	btp := func(target string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: btp, namespace: infra}\nspec:\n  targetRefs: [" + target + "]\n  timeout: {http: {requestTimeout: 7s}}\n"
	}
	const route = "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}"
	const rule = "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web, sectionName: main}"
	for _, tc := range []struct {
		name     string
		policies string
		kg, eg   time.Duration // HAPTIC's Gateway takes neither
	}{
		{"a kgateway TrafficPolicy on the route: kgateway's Gateway only", tp(route), 9 * time.Second, none},
		{"a kgateway TrafficPolicy on the rule: kgateway's Gateway only", tp(rule), 9 * time.Second, none},
		{"an Envoy Gateway BackendTrafficPolicy on the route: Envoy Gateway's only", btp(route), none, 7 * time.Second},
		{"both: each on its own controller's Gateway", tp(route) + btp(route), 9 * time.Second, 7 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("fixture.yaml", []byte(strangerRoutes+tc.policies), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			out := render(t, compile(t, &manifest.Set{Objects: objs}, policy.Config{}), envoy.Options{})
			for _, want := range []struct {
				host    string
				timeout time.Duration
			}{{"kg.example", tc.kg}, {"eg.example", tc.eg}, {"hap.example", none}} {
				ra := forwardingRoute(t, out, want.host)
				if g := durationOrNone(ra.Timeout != nil, ra.Timeout.AsDuration()); g != want.timeout {
					t.Errorf("%s: timeout %v, want %v", want.host, g, want.timeout)
				}
			}
		})
	}
}
