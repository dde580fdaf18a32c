package status_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEnvoyGatewaySharedAncestorConditions: two targets of one policy
// under one ancestor write their conditions on one entry, and Envoy
// Gateway's SetConditionForPolicyAncestor replaces a condition of the
// same type (MergeConditions) while Accepted=True is written only where
// Accepted is unset (SetAcceptedForPolicyAncestor). So a target that
// fails on the ancestor makes it Accepted=False whatever the order of
// the targets, and of two failures the later is reported.
func TestEnvoyGatewaySharedAncestorConditions(t *testing.T) {
	const eg = egController
	rc := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: rc, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra}]\n  rules: [{name: one}]\n"
	policy := func(name string, targets ...string) string {
		refs := ""
		for i, tgt := range targets {
			if i > 0 {
				refs += ", "
			}
			refs += "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: " + tgt + "}"
		}
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: " + name + ", namespace: app}\nspec:\n  targetRefs: [" + refs + "]\n  timeout: {tcp: {connectTimeout: 5s}}\n"
	}
	tests := []struct {
		name, docs string
		want       []string
	}{
		{"accepted on rc, then conflicted on rb: Conflicted", policy("first", "rb") + policy("second", "rc", "rb"), []string{
			"first @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted",
			"second @ Gateway/infra/gw (" + eg + "): Accepted=False/Conflicted",
		}},
		{"conflicted on rb, then accepted on rc: still Conflicted", policy("first", "rb") + policy("second", "rb", "rc"), []string{
			"first @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted",
			"second @ Gateway/infra/gw (" + eg + "): Accepted=False/Conflicted",
		}},
		{"a rule that does not exist after a conflict: the later failure", policy("first", "rb") + policy("second", "rb") +
			"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: third, namespace: app}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: rb}, {group: gateway.networking.k8s.io, kind: HTTPRoute, name: rc, sectionName: nope}]\n  timeout: {tcp: {connectTimeout: 5s}}\n", []string{
			// rule targets are processed before route targets: rc#nope
			// (TargetNotFound) first, then rb (Conflicted) replaces it
			"first @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted",
			"second @ Gateway/infra/gw (" + eg + "): Accepted=False/Conflicted",
			"third @ Gateway/infra/gw (" + eg + "): Accepted=False/Conflicted",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := egConditions(compile(t, egBase+rc+tc.docs))
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}
