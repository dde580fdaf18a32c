package benchgen

import (
	"fmt"
	"strings"
)

// Platform writes n HTTPRoutes (3 rules each, 2 Services per route) spread
// over the HTTP listeners of Gateways(n) Gateways, a TrafficPolicy on every
// fourth route (and on a rule of another route), per Gateway a Gateway
// policy, a listener policy and a ListenerPolicy, and a
// BackendConfigPolicy on a tenth of the Services (the first Service of
// every fifth route).
func Platform(n int) []byte {
	var b strings.Builder
	b.Grow(n * 1700)
	for g := range Gateways(n) {
		fmt.Fprintf(&b, `---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw-%[1]d, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: gateway-defaults-%[1]d, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw-%[1]d}]
  timeouts: {request: 30s}
  cors: {allowOrigins: [https://example.com]}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: http-listener-%[1]d, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw-%[1]d, sectionName: http}]
  rateLimit: {local: {tokenBucket: {maxTokens: 100, fillInterval: 1s}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: ListenerPolicy
metadata: {name: gw-listeners-%[1]d, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw-%[1]d}]
  default:
    tcpKeepalive: {keepAliveProbes: 3, keepAliveTime: 20m, keepAliveInterval: 60s}
    httpSettings: {idleTimeout: 60s, serverName: gw-%[1]d, maxRequestHeadersKb: 96, useRemoteAddress: true, xffNumTrustedHops: 1}
`, g)
	}
	for i := range n {
		ns := fmt.Sprintf("team-%d", i%50)
		writeRoute(&b, i, ns, i%Gateways(n))
		if i%5 == 0 {
			fmt.Fprintf(&b, `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: BackendConfigPolicy
metadata: {name: svc-%[1]d-a-cluster, namespace: %[2]s}
spec:
  targetRefs: [{group: "", kind: Service, name: svc-%[1]d-a}]
  connectTimeout: 2s
  circuitBreakers: {maxConnections: 512, maxPendingRequests: 128}
  outlierDetection: {consecutive5xx: 5, interval: 10s}
  loadBalancer: {leastRequest: {choiceCount: 2}}
`, i, ns)
		}
		if i%4 == 0 {
			fmt.Fprintf(&b, `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: policy-%[1]d, namespace: %[2]s}
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route-%[1]d}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route-%[3]d, sectionName: api}
  retry: {attempts: 3, retryOn: [5xx]}
  rateLimit: {local: {tokenBucket: {maxTokens: 10, fillInterval: 1s}}}
  headerModifiers: {request: {set: [{name: x-route, value: r%[1]d}]}}
`, i, ns, (i+50)%n) // wrapped: a policy near the end must not name a route past it (GWP201); same team when n is a multiple of 50, as the benchmark sizes are
		}
	}
	return []byte(b.String())
}

// Flavour is a generated platform and the render target it is written
// for.
type Flavour struct {
	Target   string
	Platform func(routes int) []byte
}

// Flavours are the generated platforms every benchmark and scaling test
// runs: kgateway's (TrafficPolicies) and Envoy Gateway's
// (BackendTrafficPolicies at every level).
var Flavours = []Flavour{{"kgateway", Platform}, {"envoygateway", PlatformEnvoyGateway}}

// PlatformEnvoyGateway is Platform in Envoy Gateway's flavour: the same
// n HTTPRoutes and Services on Gateways(n) Gateways of an Envoy Gateway
// GatewayClass, with BackendTrafficPolicies at every level — one on each
// Gateway, one on its listener (which overrides the Gateway's whole), one
// on every fourth route (every eighth merging into the listener's with
// StrategicMerge, the others overriding it) and on a rule of another
// route — and a SecurityPolicy (CORS) on each Gateway.
func PlatformEnvoyGateway(n int) []byte {
	var b strings.Builder
	b.Grow(n * 1700)
	b.WriteString(`apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}
`)
	for g := range Gateways(n) {
		fmt.Fprintf(&b, `---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw-%[1]d, namespace: infra}
spec:
  gatewayClassName: eg
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: gateway-defaults-%[1]d, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw-%[1]d}]
  compressor: [{type: Gzip}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: http-listener-%[1]d, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw-%[1]d, sectionName: http}]
  compressor: [{type: Gzip}]
  rateLimit: {type: Local, local: {rules: [{limit: {requests: 100, unit: Second}}]}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: gateway-cors-%[1]d, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw-%[1]d}]
  cors: {allowOrigins: ["https://*.example.com"], allowMethods: [GET, POST]}
`, g)
	}
	for i := range n {
		ns := fmt.Sprintf("team-%d", i%50)
		writeRoute(&b, i, ns, i%Gateways(n))
		if i%4 == 0 {
			merge := ""
			if i%8 == 0 {
				merge = "\n  mergeType: StrategicMerge"
			}
			fmt.Fprintf(&b, `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: policy-%[1]d, namespace: %[2]s}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: route-%[1]d}]%[3]s
  compressor: [{type: Brotli}]
  rateLimit: {type: Local, local: {rules: [{clientSelectors: [{headers: [{name: x-user, type: Distinct}]}], limit: {requests: 10, unit: Second}}]}}
`, i, ns, merge)
			j := (i + 50) % n // a rule of another route
			fmt.Fprintf(&b, `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: rule-policy-%[1]d, namespace: %[3]s}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: route-%[2]d, sectionName: api}]
  httpUpgrade: [{type: websocket}]
`, i, j, fmt.Sprintf("team-%d", j%50))
		}
	}
	return []byte(b.String())
}

// Gateways is how many Gateways a generated platform of n routes has:
// one per 100 routes (at least one), as on a multi-tenant edge, so that
// work done per Gateway, or per Gateway and route, shows in the curve.
func Gateways(n int) int { return max(1, n/100) }

// writeRoute writes route i of a generated platform in namespace ns, the
// same in every flavour: two Services and an HTTPRoute with three rules
// (a header match, an exact path with a response header, a weighted
// split).
func writeRoute(b *strings.Builder, i int, ns string, gw int) {
	fmt.Fprintf(b, `---
apiVersion: v1
kind: Service
metadata: {name: svc-%[1]d-a, namespace: %[2]s}
spec: {ports: [{port: 8080}]}
---
apiVersion: v1
kind: Service
metadata: {name: svc-%[1]d-b, namespace: %[2]s}
spec: {ports: [{port: 8080}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route-%[1]d, namespace: %[2]s}
spec:
  parentRefs: [{name: gw-%[3]d, namespace: infra}]
  hostnames: [r%[1]d.example.com]
  rules:
  - name: api
    matches: [{path: {type: PathPrefix, value: /api}, headers: [{name: x-tenant, value: t%[1]d}]}]
    backendRefs: [{name: svc-%[1]d-a, port: 8080}]
  - name: static
    matches: [{path: {type: Exact, value: /index.html}}]
    filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {set: [{name: cache-control, value: max-age=60}]}}]
    backendRefs: [{name: svc-%[1]d-b, port: 8080}]
  - backendRefs: [{name: svc-%[1]d-a, port: 8080, weight: 80}, {name: svc-%[1]d-b, port: 8080, weight: 20}]
`, i, ns, gw)
}
