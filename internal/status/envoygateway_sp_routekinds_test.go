package status_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/status"
)

// TestSecurityPolicyValidatorPerRouteKind: Envoy Gateway picks the
// validator by the kind of the route target it is processing
// (processSecurityPolicyForRoute: validateSecurityPolicyForTCP on a
// TCPRoute, validateSecurityPolicy on the others), so one policy on an
// HTTPRoute and a TCPRoute may be refused on one and translated on the
// other, each refusal with its own message.
func TestSecurityPolicyValidatorPerRouteKind(t *testing.T) {
	base := egBase + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: tcp, namespace: infra}\nspec:\n  gatewayClassName: eg\n" +
		"  listeners: [{name: t, protocol: TCP, port: 9000, allowedRoutes: {namespaces: {from: All}}}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TCPRoute\nmetadata: {name: db, namespace: app}\nspec:\n  parentRefs: [{name: tcp, namespace: infra, sectionName: t}]\n  rules: [{backendRefs: [{name: svc, port: 9000}]}]\n" +
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: users, namespace: app}\ndata: {.htpasswd: YWxpY2U6e1NIQX1xdlRHSGR6RjZLTGF2dDRQTzBnczJhNnBRMDA9}\n" +
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: keys, namespace: app}\ndata: {alice: azE=}\n"
	const (
		httpAncestor = "Gateway/infra/gw#a"
		tcpAncestor  = "Gateway/infra/tcp#t"
		tcpOnly      = "Invalid SecurityPolicy for TCP route: only authorization is supported for TCP (routes/listeners)."
	)
	tests := []struct {
		name, spec string
		want       map[string]string // ancestor → Accepted status/reason: message
	}{
		{"basic auth: translated on the HTTPRoute, refused on the TCPRoute", "  basicAuth: {users: {name: users}}\n", map[string]string{
			httpAncestor: "True/Accepted: Policy has been accepted.",
			tcpAncestor:  "False/Invalid: " + tcpOnly,
		}},
		{"client CIDR authorization: translated on both", "  authorization: {defaultAction: Deny, rules: [{action: Allow, principal: {clientCIDRs: [10.0.0.0/8]}}]}\n", map[string]string{
			httpAncestor: "True/Accepted: Policy has been accepted.",
			tcpAncestor:  "True/Accepted: Policy has been accepted.",
		}},
		{"a header principal: TCP's rule check refuses it there only", "  authorization: {defaultAction: Deny, rules: [{action: Allow, principal: {headers: [{name: x, values: [y]}]}}]}\n", map[string]string{
			httpAncestor: "True/Accepted: Policy has been accepted.",
			tcpAncestor:  "False/Invalid: Invalid SecurityPolicy for TCP route: rule 0: headers not supported for TCP.",
		}},
		{"refused by both validators, each with its own message", "  apiKeyAuth: {credentialRefs: [{name: keys}], extractFrom: [{headers: [x], params: [y]}]}\n", map[string]string{
			httpAncestor: "False/Invalid: Invalid SecurityPolicy: only one of headers, params or cookies must be specified.",
			tcpAncestor:  "False/Invalid: " + tcpOnly,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs := base + "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: both, namespace: app}\nspec:\n" +
				"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ra}, {group: gateway.networking.k8s.io, kind: TCPRoute, name: db}]\n" + tc.spec
			c := compileFull(t, docs)
			got := map[string]string{}
			for _, p := range status.Compute(c.Result, status.Options{}).Policies {
				for _, a := range p.Ancestors {
					for _, cond := range a.Conditions {
						if cond.Type == "Accepted" {
							got[a.AncestorRef.String()] = cond.Status + "/" + cond.Reason + ": " + cond.Message
						}
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Accepted per ancestor (-want +got):\n%s", diff)
			}
			// The policy is refused whole only where no target translates
			// it; a refusal on some targets is a finding of its own.
			p := c.Policies.Policies[0]
			refusedEverywhere := true
			for _, accepted := range tc.want {
				if strings.HasPrefix(accepted, "True") {
					refusedEverywhere = false
				}
			}
			if p.IsValid() == refusedEverywhere {
				t.Errorf("IsValid = %v, want %v", p.IsValid(), !refusedEverywhere)
			}
		})
	}
}
