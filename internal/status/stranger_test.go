package status_test

import (
	"slices"
	"testing"

	"github.com/gwpol/gwpol/internal/status"
)

// strangerPlatform holds a kgateway Gateway (kg) and an Envoy Gateway
// Gateway (egw, from egPlatform as infra/gw), a ListenerSet on the kgateway
// one, and routes on each and on both.
const strangerPlatform = "---\n" + kgClassDoc + `---
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
			// Envoy Gateway's is the route's parentRef as written, without
			// a namespace (K16)
			ancestors: []string{"Gateway/gw " + egController, "Gateway/infra/kg kgateway.dev/kgateway"}},
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

// TestForeignExtensionRefConditions: a rule's ExtensionRef naming
// another family's policy kind, on routes of one controller and on a
// route kgateway and Envoy Gateway both serve. Each controller judges the
// rule under its own parentRefs: kgateway replaces the rule as for a
// policy not found (resolveExtension: ErrPolicyNotFound, the rule's
// RouteAcceptanceError: kgateway.dev/Programmed False, RouteRuleReplaced,
// and no Gateway API condition says so); Envoy Gateway refuses the filter
// (ValidateHTTPRouteFilter "unknown kind": Accepted False,
// UnsupportedValue: the rule dropped, PartiallyInvalid beside
// rules that stay). The policy is reported only where its kind's
// controller applies it. Shapes no public case has.
func TestForeignExtensionRefConditions(t *testing.T) {
	const tp = "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: p, namespace: infra}\nspec:\n  timeouts: {request: 9s}\n"
	const hrf = "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: HTTPRouteFilter\nmetadata: {name: p, namespace: infra}\nspec:\n  directResponse: {statusCode: 418}\n"
	route := func(parents, group, kind string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra}\nspec:\n  parentRefs: [" + parents + "]\n" +
			"  rules:\n  - matches: [{path: {type: PathPrefix, value: /r}}]\n    filters: [{type: ExtensionRef, extensionRef: {group: " + group + ", kind: " + kind + ", name: p}}]\n    backendRefs: [{name: svc, port: 80}]\n" +
			"  - matches: [{path: {type: PathPrefix, value: /plain}}]\n    backendRefs: [{name: svc, port: 80}]\n"
	}
	for _, tc := range []struct {
		name, docs string
		// conds are, per parent Gateway, the conditions that say
		// something is wrong (not True, or PartiallyInvalid) as
		// "Type=Reason"; ancestors the policy's.
		conds     map[string][]string
		ancestors []string
	}{
		{name: "a TrafficPolicy on a route only Envoy Gateway serves", docs: route("{name: gw}", "gateway.kgateway.dev", "TrafficPolicy") + tp,
			conds: map[string][]string{"gw": {"PartiallyInvalid=UnsupportedValue"}}},
		{name: "an HTTPRouteFilter on a route only kgateway serves", docs: route("{name: kg}", "gateway.envoyproxy.io", "HTTPRouteFilter") + hrf,
			conds: map[string][]string{"kg": {"kgateway.dev/Programmed=RouteRuleReplaced"}}},
		{name: "a TrafficPolicy on a route both serve: kgateway applies it, Envoy Gateway refuses the rule", docs: route("{name: kg}, {name: gw}", "gateway.kgateway.dev", "TrafficPolicy") + tp,
			conds:     map[string][]string{"kg": nil, "gw": {"PartiallyInvalid=UnsupportedValue"}},
			ancestors: []string{"Gateway/infra/kg kgateway.dev/kgateway"}},
		{name: "an HTTPRouteFilter on a route both serve: Envoy Gateway applies it, kgateway replaces the rule", docs: route("{name: kg}, {name: gw}", "gateway.envoyproxy.io", "HTTPRouteFilter") + hrf,
			conds: map[string][]string{"kg": {"kgateway.dev/Programmed=RouteRuleReplaced"}, "gw": nil}},
		{name: "a kind no family defines on a route only kgateway serves: replaced as a policy not found", docs: route("{name: kg}", "example.com", "Nothing"),
			conds: map[string][]string{"kg": {"kgateway.dev/Programmed=RouteRuleReplaced"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := compile(t, egPlatform("infra", "  allowedListeners: {namespaces: {from: Same}}\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n")+strangerPlatform+tc.docs)
			i := slices.IndexFunc(rep.Routes, func(r status.Route) bool { return r.Name == "r" })
			if i < 0 {
				t.Fatal("no status for the route")
			}
			got := map[string][]string{}
			for _, p := range rep.Routes[i].Parents {
				var notTrue []string
				for _, c := range p.Conditions {
					if c.Status != "True" || c.Type == "PartiallyInvalid" {
						notTrue = append(notTrue, c.Type+"="+c.Reason)
					}
				}
				got[p.ParentRef.Name] = notTrue
			}
			if len(got) != len(tc.conds) {
				t.Errorf("parents %v, want %v", got, tc.conds)
			}
			for gw, want := range tc.conds {
				if !slices.Equal(got[gw], want) {
					t.Errorf("%s: conditions not True %q, want %q", gw, got[gw], want)
				}
			}
			var ancestors []string
			if j := slices.IndexFunc(rep.Policies, func(p status.Policy) bool { return p.Name == "p" }); j >= 0 {
				for _, a := range rep.Policies[j].Ancestors {
					ancestors = append(ancestors, a.AncestorRef.String()+" "+a.ControllerName)
				}
			}
			if !slices.Equal(ancestors, tc.ancestors) {
				t.Errorf("policy ancestors %q, want %q", ancestors, tc.ancestors)
			}
		})
	}
}

// TestForeignBackendRefFilter: a backendRef's ExtensionRef naming another
// family's policy kind on a route only one controller serves. kgateway
// skips it (getBackends ignores the lookup's error): no condition, a
// warning (GWP218), the policy reported nowhere; Envoy Gateway refuses
// the backendRef through its own validation (ResolvedRefs False,
// UnsupportedRefValue) and nothing of the kind's own rules applies (no
// GWP207 for a HAProxyRoutePolicy there, no Pending ancestor for a
// TrafficPolicy). Shapes no public case has.
func TestForeignBackendRefFilter(t *testing.T) {
	const tp = "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: p, namespace: infra}\nspec:\n  headerModifiers: {request: {set: [{name: x-p, value: p}]}}\n"
	const hrp = "---\napiVersion: haproxy-haptic.org/v1alpha1\nkind: HAProxyRoutePolicy\nmetadata: {name: p, namespace: infra}\nspec:\n  rateLimit: {requests: 20, period: 1s}\n"
	const hrf = "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: HTTPRouteFilter\nmetadata: {name: p, namespace: infra}\nspec:\n  directResponse: {statusCode: 418}\n"
	route := func(parent, group, kind string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra}\nspec:\n  parentRefs: [{name: " + parent + "}]\n" +
			"  hostnames: [r.example]\n  rules:\n  - backendRefs:\n    - name: svc\n      port: 80\n      filters: [{type: ExtensionRef, extensionRef: {group: " + group + ", kind: " + kind + ", name: p}}]\n"
	}
	for _, tc := range []struct {
		name, docs string
		conds      []string // route conditions saying something is wrong
		codes      []string // the findings at the route
	}{
		{"a HAProxyRoutePolicy on a kgateway route's backendRef: skipped", route("kg", "haproxy-haptic.org", "HAProxyRoutePolicy") + hrp, nil, []string{"GWP218"}},
		{"an HTTPRouteFilter on a kgateway route's backendRef: skipped", route("kg", "gateway.envoyproxy.io", "HTTPRouteFilter") + hrf, nil, []string{"GWP218"}},
		{"a HAProxyRoutePolicy on an Envoy Gateway route's backendRef: the backendRef refused", route("gw", "haproxy-haptic.org", "HAProxyRoutePolicy") + hrp, []string{"ResolvedRefs=UnsupportedRefValue"}, []string{"GWP212"}},
		{"a TrafficPolicy on an Envoy Gateway route's backendRef: the backendRef refused", route("gw", "gateway.kgateway.dev", "TrafficPolicy") + tp, []string{"ResolvedRefs=UnsupportedRefValue"}, []string{"GWP212"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := compileFull(t, egPlatform("infra", "  allowedListeners: {namespaces: {from: Same}}\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n")+strangerPlatform+tc.docs)
			rep := status.Compute(c.Result, status.Options{})
			i := slices.IndexFunc(rep.Routes, func(r status.Route) bool { return r.Name == "r" })
			if i < 0 || len(rep.Routes[i].Parents) != 1 {
				t.Fatal("no status for the route's parent")
			}
			var bad []string
			for _, c := range rep.Routes[i].Parents[0].Conditions {
				if c.Status != "True" || c.Type == "PartiallyInvalid" {
					bad = append(bad, c.Type+"="+c.Reason)
				}
			}
			if !slices.Equal(bad, tc.conds) {
				t.Errorf("route conditions %q, want %q", bad, tc.conds)
			}
			if j := slices.IndexFunc(rep.Policies, func(p status.Policy) bool { return p.Name == "p" }); j >= 0 && len(rep.Policies[j].Ancestors) > 0 {
				t.Errorf("the policy has ancestors %v, want none", rep.Policies[j].Ancestors)
			}
			var codes []string
			for _, d := range c.Diagnostics() {
				if d.Object.Kind == "HTTPRoute" && d.Object.Name == "r" {
					codes = append(codes, d.Code)
				}
			}
			if !slices.Equal(codes, tc.codes) {
				t.Errorf("findings at the route %q, want %q", codes, tc.codes)
			}
		})
	}
}
