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
