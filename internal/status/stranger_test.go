package status_test

import (
	"slices"
	"testing"

	"github.com/gwpol/gwpol/internal/status"
)

// strangerPlatform holds a kgateway Gateway (kg) and an Envoy Gateway
// Gateway (egw, from egPlatform as infra/gw), a ListenerSet on the kgateway
// one, and routes on each and on both.
const strangerPlatform = `---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kgw}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: kg, namespace: infra}
spec:
  gatewayClassName: kgw
  allowedListeners: {namespaces: {from: Same}}
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: kset, namespace: infra}
spec:
  parentRef: {name: kg}
  listeners: [{name: extra, protocol: HTTP, port: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: on-kg, namespace: infra}
spec:
  parentRefs: [{name: kg}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: on-eg, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: on-both, namespace: infra}
spec:
  parentRefs: [{name: kg}, {name: gw}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: on-both-timed, namespace: infra}
spec:
  parentRefs: [{name: gw}, {name: kg}]
  rules: [{name: main, matches: [{path: {type: PathPrefix, value: /t}}], backendRefs: [{name: svc, port: 80}], timeouts: {request: 3s}}]
`

// TestStrangerAncestors: a policy writes no ancestor for a target of
// another controller's Gateway — Envoy Gateway's provider never hands
// such a Gateway (or a route only it serves) to the translator, and
// kgateway reports a policy only from its own Gateways' translation and
// reports TargetNotFound only for an object that is not there. Shapes no
// public case has.
func TestStrangerAncestors(t *testing.T) {
	btp := func(refs string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: p, namespace: infra}\nspec:\n  targetRefs:\n" + refs + "  timeout: {http: {requestTimeout: 7s}}\n"
	}
	tp := func(refs string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: p, namespace: infra}\nspec:\n  targetRefs:\n" + refs + "  timeouts: {request: 9s}\n"
	}
	const bcp = "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: BackendConfigPolicy\nmetadata: {name: p, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: \"\", kind: Service, name: svc}]\n  connectTimeout: 3s\n"
	const backendTLS = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: p, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: \"\", kind: Service, name: svc}]\n  validation: {wellKnownCACertificates: System, hostname: svc.example}\n"
	ref := func(kind, name string) string {
		return "  - {group: gateway.networking.k8s.io, kind: " + kind + ", name: " + name + "}\n"
	}
	for _, tc := range []struct {
		name, policy string
		// ancestors are the policy's ancestors as "Kind/ns/name controller".
		ancestors []string
	}{
		{name: "Envoy Gateway policy on a kgateway Gateway: none", policy: btp(ref("Gateway", "kg"))},
		{name: "Envoy Gateway policy on a ListenerSet of a kgateway Gateway: none", policy: btp(ref("ListenerSet", "kset"))},
		{name: "Envoy Gateway policy on a route only kgateway serves: none", policy: btp(ref("HTTPRoute", "on-kg"))},
		{name: "Envoy Gateway policy on a route both serve: its own Gateway only", policy: btp(ref("HTTPRoute", "on-both")),
			ancestors: []string{"Gateway/infra/gw " + egController}},
		{name: "Envoy Gateway policy on both Gateways: its own only", policy: btp(ref("Gateway", "kg") + ref("Gateway", "gw")),
			ancestors: []string{"Gateway/infra/gw " + egController}},
		{name: "kgateway policy on an Envoy Gateway Gateway: none, not TargetNotFound", policy: tp(ref("Gateway", "gw"))},
		{name: "kgateway policy on a route only Envoy Gateway serves: none", policy: tp(ref("HTTPRoute", "on-eg"))},
		{name: "kgateway policy on a route both serve: its own Gateway only", policy: tp(ref("HTTPRoute", "on-both")),
			ancestors: []string{"Gateway/infra/kg kgateway.dev/kgateway"}},
		{name: "kgateway policy on a route both serve, with timeouts of its own: its own Gateway only", policy: tp(ref("HTTPRoute", "on-both-timed")),
			ancestors: []string{"Gateway/infra/kg kgateway.dev/kgateway"}},
		{name: "kgateway policy on a rule of a route both serve, with timeouts of its own: its own Gateway only",
			policy:    tp("  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: on-both-timed, sectionName: main}\n"),
			ancestors: []string{"Gateway/infra/kg kgateway.dev/kgateway"}},
		{name: "kgateway policy on both Gateways: its own only", policy: tp(ref("Gateway", "gw") + ref("Gateway", "kg")),
			// (kgateway reports a Gateway's policy on its ListenerSets too)
			ancestors: []string{"Gateway/infra/kg kgateway.dev/kgateway", "ListenerSet/infra/kset kgateway.dev/kgateway"}},
		// a policy on a backend every Gateway routes to: kgateway reports
		// its BackendConfigPolicy against the Service it targets, whoever
		// routes there (merge.Result.BackendOn leaves it out of the Envoy
		// Gateway's cluster, and reports nothing against that Gateway);
		// each controller reports the Gateway API's BackendTLSPolicy
		// against its own Gateways that route to the Service
		{name: "kgateway BackendConfigPolicy on a Service both route to: the Service", policy: bcp,
			ancestors: []string{"Service/infra/svc kgateway.dev/kgateway"}},
		{name: "BackendTLSPolicy on a Service both route to: each controller's Gateways", policy: backendTLS,
			ancestors: []string{"Gateway/infra/gw " + egController, "Gateway/infra/kg kgateway.dev/kgateway"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := compile(t, egPlatform("infra", "  allowedListeners: {namespaces: {from: Same}}\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n")+strangerPlatform+tc.policy)
			i := slices.IndexFunc(rep.Policies, func(p status.Policy) bool { return p.Name == "p" })
			if i < 0 {
				t.Fatal("no status for the policy")
			}
			var got []string
			for _, a := range rep.Policies[i].Ancestors {
				got = append(got, a.AncestorRef.String()+" "+a.ControllerName)
			}
			if !slices.Equal(got, tc.ancestors) {
				t.Errorf("ancestors %q, want %q", got, tc.ancestors)
			}
		})
	}
}
