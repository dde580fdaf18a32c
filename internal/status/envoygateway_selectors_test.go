package status_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/status"
)

// selectorRoutes are three HTTPRoutes, each on its own parent (so each
// selected route is one ancestor of the policy): ra labelled tier=gold on
// listener a, rb tier=silver on listener b, rc unlabelled on the Gateway.
var selectorRoutes = egPlatform("app", "  listeners:\n  - {name: a, protocol: HTTP, port: 80}\n  - {name: b, protocol: HTTP, port: 81}\n") + `
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ra, namespace: app, labels: {tier: gold}}
spec: {parentRefs: [{name: gw, sectionName: a}], rules: [{}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: rb, namespace: app, labels: {tier: silver}}
spec: {parentRefs: [{name: gw, sectionName: b}], rules: [{}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: rc, namespace: app}
spec: {parentRefs: [{name: gw}], rules: [{}]}
`

// TestEnvoyGatewayTargetSelectorExpressions: a targetSelector's
// matchExpressions select with its matchLabels, ANDed, as Envoy Gateway's
// selectorFromTargetSelector reads them (helpers.go): one the API
// machinery cannot read selects nothing, an empty one everything. Status (the policy's ancestors)
// and attachment (the routes the policy applies to) select the same.
func TestEnvoyGatewayTargetSelectorExpressions(t *testing.T) {
	tests := []struct {
		name     string
		selector string
		routes   []string // selected, by name
	}{
		{"In over two values", "matchExpressions: [{key: tier, operator: In, values: [gold, silver]}]", []string{"ra", "rb"}},
		{"NotIn selects the unlabelled route too", "matchExpressions: [{key: tier, operator: NotIn, values: [gold]}]", []string{"rb", "rc"}},
		{"Exists", "matchExpressions: [{key: tier, operator: Exists}]", []string{"ra", "rb"}},
		{"DoesNotExist", "matchExpressions: [{key: tier, operator: DoesNotExist}]", []string{"rc"}},
		{"labels and expressions are ANDed", "matchLabels: {tier: gold}, matchExpressions: [{key: tier, operator: NotIn, values: [gold]}]", nil},
		{"labels narrowed by an expression", "matchLabels: {tier: silver}, matchExpressions: [{key: tier, operator: Exists}]", []string{"rb"}},
		{"an empty selector selects every route of its kind", "matchLabels: {}", []string{"ra", "rb", "rc"}},
		{"In without values cannot be read: nothing", "matchExpressions: [{key: tier, operator: In}]", nil},
		{"an unknown operator: nothing", "matchExpressions: [{key: tier, operator: Near, values: [gold]}]", nil},
	}
	ancestorOf := map[string]string{"ra": "Gateway/app/gw#a", "rb": "Gateway/app/gw#b", "rc": "Gateway/app/gw"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs := selectorRoutes + "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: picker, namespace: app}\nspec:\n" +
				"  targetSelectors: [{group: gateway.networking.k8s.io, kind: HTTPRoute, " + tc.selector + "}]\n  timeout: {tcp: {connectTimeout: 5s}}\n"
			c := compileFull(t, docs)
			var want, gotAncestors, gotAttached []string
			for _, r := range tc.routes {
				want = append(want, ancestorOf[r])
			}
			slices.Sort(want)
			for _, p := range status.Compute(c.Result, status.Options{}).Policies {
				for _, a := range p.Ancestors {
					gotAncestors = append(gotAncestors, a.AncestorRef.String())
				}
			}
			slices.Sort(gotAncestors)
			for _, name := range []string{"ra", "rb", "rc"} {
				for _, p := range c.Result.Attach.OnRoute(c.Graph.Route("HTTPRoute", "app", name)) {
					if p.Obj.Name == "picker" {
						gotAttached = append(gotAttached, ancestorOf[name])
					}
				}
			}
			slices.Sort(gotAttached)
			if diff := cmp.Diff(want, gotAncestors); diff != "" {
				t.Errorf("ancestors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, gotAttached); diff != "" {
				t.Errorf("attached to (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEnvoyGatewayTargetSelectorNamespaceExpressions: a targetSelector's
// namespaces selector reads matchExpressions too
// (targetSelectorNamespacesMatch); the ReferenceGrant is still needed.
// Attachment selects in the same namespaces as status
// (policy.NamespaceSelecting).
func TestEnvoyGatewayTargetSelectorNamespaceExpressions(t *testing.T) {
	gateway := func(ns string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: " + ns + ", labels: {pick: me}}\nspec:\n  gatewayClassName: eg\n  listeners: [{name: a, protocol: HTTP, port: 80}]\n" +
			"---\napiVersion: v1\nkind: Namespace\nmetadata: {name: " + ns + ", labels: {env: " + strings.TrimSuffix(ns, "-ns") + "}}\n"
	}
	grant := func(ns string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: " + ns + "}\nspec:\n" +
			"  from: [{group: gateway.envoyproxy.io, kind: BackendTrafficPolicy, namespace: app}]\n  to: [{group: gateway.networking.k8s.io, kind: Gateway}]\n"
	}
	docs := "---\n" + egClassDoc +
		gateway("prod-ns") + gateway("stage-ns") + gateway("dev-ns") + grant("prod-ns") + grant("dev-ns") +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: picker, namespace: app}\nspec:\n" +
		"  targetSelectors: [{group: gateway.networking.k8s.io, kind: Gateway, matchLabels: {pick: me},\n" +
		"    namespaces: {from: Selector, selector: {matchExpressions: [{key: env, operator: In, values: [prod, stage]}]}}}]\n" +
		"  timeout: {tcp: {connectTimeout: 5s}}\n"
	// stage-ns is selected but grants nothing; dev-ns grants but is not selected.
	const eg = egController
	want := []string{"picker @ Gateway/prod-ns/gw (" + eg + "): Accepted=True/Accepted"}
	c := compileFull(t, docs)
	got := egConditions(status.Compute(c.Result, status.Options{}))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	// The policy applies where its status says it is accepted.
	var attached []string
	for _, ns := range []string{"prod-ns", "stage-ns", "dev-ns"} {
		for _, a := range c.Result.Attach.Gateway[c.Graph.Gateway(ns, "gw")] {
			attached = append(attached, a.Policy.Obj.Name+" @ "+ns)
		}
	}
	if diff := cmp.Diff([]string{"picker @ prod-ns"}, attached); diff != "" {
		t.Errorf("attached (-want +got):\n%s", diff)
	}
}

// TestEnvoyGatewayTargetsComposed: the targets of a policy are composed as
// resolvePolicyTargets does (helpers.go: composePolicyTargetRefs) — the
// objects its selectors pick first, by their creationTimestamp, then each
// targetRef that names none of them; a targetRef and a selector naming one
// object are one target (before: the policy conflicted with itself), and
// the deprecated targetRef, when set, is read alone (GetTargetRefs: the
// targetRefs beside it are not).
func TestEnvoyGatewayTargetsComposed(t *testing.T) {
	// rd and re are on listener a too, re created before rd
	const more = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: rd, namespace: app, creationTimestamp: '2024-03-01T00:00:00Z', labels: {pair: x}}\n" +
		"spec: {parentRefs: [{name: gw, sectionName: a}], rules: [{}]}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: re, namespace: app, creationTimestamp: '2024-02-01T00:00:00Z', labels: {pair: x}}\n" +
		"spec: {parentRefs: [{name: gw, sectionName: a}], rules: [{}]}\n"
	btp := func(name, created, targeting string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: " + name + ", namespace: app, creationTimestamp: '" + created + "'}\nspec:\n" +
			targeting + "  timeout: {tcp: {connectTimeout: 5s}}\n"
	}
	const route = "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: "
	tests := []struct {
		name, policies string
		want           []string // "policy @ ancestor: Accepted=S/Reason[: message]", sorted
	}{{
		name:     "a targetRef and a selector naming one route: one target",
		policies: btp("both", "2024-01-01T00:00:00Z", "  targetRefs: ["+route+"ra}]\n  targetSelectors: [{kind: HTTPRoute, matchLabels: {tier: gold}}]\n"),
		want:     []string{"both @ Gateway/app/gw#a: Accepted=True/Accepted"},
	}, {
		name: "a targetRef and a selector naming one Gateway: one target",
		policies: "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: both, namespace: app}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  targetSelectors: [{kind: Gateway, matchLabels: {}}]\n  cors: {allowOrigins: ['https://a.example.com']}\n",
		want: []string{"both @ Gateway/app/gw: Accepted=True/Accepted"},
	}, {
		name:     "the deprecated targetRef is read alone: the targetRefs beside it are not",
		policies: btp("old", "2024-01-01T00:00:00Z", "  targetRef: "+route+"ra}\n  targetRefs: ["+route+"rb}]\n  targetSelectors: [{kind: HTTPRoute, matchLabels: {tier: none}}]\n"),
		want:     []string{"old @ Gateway/app/gw#a: Accepted=True/Accepted"},
	}, {
		name: "selected targets by creation time: of two conflicts under one ancestor the later created route's stands",
		policies: btp("first", "2024-01-01T00:00:00Z", "  targetRefs: ["+route+"rd}, "+route+"re}]\n") +
			btp("second", "2024-01-02T00:00:00Z", "  targetSelectors: [{kind: HTTPRoute, matchLabels: {pair: x}}]\n"),
		want: []string{"first @ Gateway/app/gw#a: Accepted=True/Accepted",
			"second @ Gateway/app/gw#a: Accepted=False/Conflicted: Unable to target HTTPRoute rd, another BackendTrafficPolicy has already attached to it"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := compileFull(t, selectorRoutes+more+tc.policies)
			var got []string
			for _, p := range status.Compute(c.Result, status.Options{}).Policies {
				for _, a := range p.Ancestors {
					for _, cd := range a.Conditions {
						if cd.Type != "Accepted" {
							continue
						}
						line := p.Name + " @ " + a.AncestorRef.String() + ": Accepted=" + string(cd.Status) + "/" + cd.Reason
						if cd.Status == "False" {
							line += ": " + cd.Message
						}
						got = append(got, line)
					}
				}
			}
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ancestors (-want +got):\n%s", diff)
			}
		})
	}
}
