package status_test

import (
	"slices"
	"strings"
	"testing"
)

// TestSecurityPolicyStatus: the conditions and messages Envoy Gateway's
// ProcessSecurityPolicies writes, one subtest per status path
// (docs/controllers/envoygateway-checks.md names them).
func TestSecurityPolicyStatus(t *testing.T) {
	sp := func(ns, name, target, extra string) string {
		kind, rest, _ := strings.Cut(target, "/")
		tname, section, _ := strings.Cut(rest, "#")
		ref := "{group: gateway.networking.k8s.io, kind: " + kind + ", name: " + tname
		if section != "" {
			ref += ", sectionName: " + section
		}
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: " + name + ", namespace: " + ns +
			"}\nspec:\n  targetRefs: [" + ref + "}]\n  cors: {allowOrigins: ['*']}\n" + extra
	}
	tests := []struct {
		name, policies string
		want           []string
	}{{
		name:     "route-conflicted",
		policies: sp("app", "first", "HTTPRoute/ra", "") + sp("app", "second", "HTTPRoute/ra", ""),
		want: []string{
			"first @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
			"second @ Gateway/infra/gw#a: Accepted=False/Conflicted: Unable to target HTTPRoute ra, another SecurityPolicy has already attached to it",
		},
	}, {
		name:     "route-overridden-by-rule",
		policies: sp("app", "route", "HTTPRoute/ra", "") + sp("app", "rule", "HTTPRoute/ra#one", ""),
		want: []string{
			"route @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
			"route @ Gateway/infra/gw#a: Overridden=True/Overridden: This policy is being overridden by other securityPolicies for these route rules: [one]",
			"rule @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
		},
	}, {
		name:     "gateway-overridden",
		policies: sp("infra", "gw-policy", "Gateway/gw", "") + sp("app", "route", "HTTPRoute/ra", ""),
		want: []string{
			"gw-policy @ Gateway/infra/gw: Accepted=True/Accepted: Policy has been accepted.",
			"gw-policy @ Gateway/infra/gw: Overridden=True/Overridden: This policy is being overridden by other securityPolicies for these routes: [app/ra]",
			"route @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
		},
	}, {
		name:     "merged",
		policies: sp("infra", "gw-policy", "Gateway/gw", "") + sp("app", "route", "HTTPRoute/ra", "  mergeType: StrategicMerge\n"),
		want: []string{
			"gw-policy @ Gateway/infra/gw: Accepted=True/Accepted: Policy has been accepted.",
			"gw-policy @ Gateway/infra/gw: Merged=True/Merged: This policy is being merged by other securityPolicies for these routes: [app/ra]",
			"route @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
			"route @ Gateway/infra/gw#a: Merged=True/Merged: Merged with policy infra/gw-policy",
		},
	}, {
		// processSecurityPolicyForRoute returns when validateSecurityPolicy
		// refuses: the route's Invalid, no Overridden note, no warning;
		// the Gateway's policy still counts the route as overriding it.
		name: "route-refused-by-validation",
		policies: sp("infra", "gw-policy", "Gateway/gw", "") +
			sp("app", "route", "HTTPRoute/ra", "  oidc: {provider: {issuer: 'https://idp.example.com'}, clientID: c, clientSecret: {name: s}, passThroughAuthHeader: true}\n") +
			sp("app", "rule", "HTTPRoute/ra#one", ""),
		want: []string{
			"gw-policy @ Gateway/infra/gw: Accepted=True/Accepted: Policy has been accepted.",
			"gw-policy @ Gateway/infra/gw: Overridden=True/Overridden: This policy is being overridden by other securityPolicies for these routes: [app/ra]",
			"route @ Gateway/infra/gw#a: Accepted=False/Invalid: Invalid SecurityPolicy: the OIDC.PassThroughAuthHeader setting must be used in conjunction with JWT settings.",
			"rule @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
		},
	}, {
		name:     "translation-error-invalid",
		policies: sp("app", "bad", "HTTPRoute/ra", "  basicAuth: {users: {name: missing}}\n"),
		want:     []string{"bad @ Gateway/infra/gw#a: Accepted=False/Invalid: BasicAuth: secret app/missing does not exist."},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := compile(t, egBase+tc.policies)
			got := policyConditions(rep)
			if !slices.Equal(got, tc.want) {
				t.Errorf("status =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}
