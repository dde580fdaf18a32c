package envoygateway

import (
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// TestEnvoyGatewayRuleCheck: Envoy Gateway's rule check finds the values its
// translator accepts (its route validation refuses none of them) and
// writes into config Envoy refuses — the rule is left out, at the field —
// and leaves alone a rule its route validation refuses (nothing of it is
// written) and the values kgateway's check refuses that Envoy Gateway
// writes as Envoy accepts them. Shapes no public case has.
func TestEnvoyGatewayRuleCheck(t *testing.T) {
	tests := []struct {
		name, kind, rule string
		field            string // "" for no problem
		unpublished      bool   // the xDS fails Envoy Gateway's own validation
	}{
		{name: "an empty RegularExpression path",
			rule: "  - matches: [{path: {type: PathPrefix, value: /a}}, {path: {type: RegularExpression, value: \"\"}}]\n", field: "spec.rules[0].matches[1].path.value", unpublished: true},
		{name: "an empty RegularExpression query parameter",
			rule: "  - matches: [{queryParams: [{type: Exact, name: a, value: b}, {type: RegularExpression, name: c, value: \"\"}]}]\n", field: "spec.rules[0].matches[0].queryParams[1].value", unpublished: true},
		{name: "an empty RegularExpression gRPC header", kind: "GRPCRoute",
			rule: "  - matches: [{headers: [{type: RegularExpression, name: a, value: \"\"}]}]\n", field: "spec.rules[0].matches[0].headers[0].value", unpublished: true},
		{name: "a carriage return in a response header name to remove",
			rule: "  - filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {remove: [x-ok, \"x-a\\rb\"]}}]\n", field: "spec.rules[0].filters[0].responseHeaderModifier.remove[1]", unpublished: true},
		{name: "a line feed in a backendRef's header name to remove",
			rule: "  - backendRefs: [{name: svc, port: 80, filters: [{type: RequestHeaderModifier, requestHeaderModifier: {remove: [\"a\\nb\"]}}]}]\n", field: "spec.rules[0].backendRefs[0].filters[0].requestHeaderModifier.remove[0]", unpublished: true},
		{name: "a line feed in a redirect's prefix",
			rule: "  - filters: [{type: RequestRedirect, requestRedirect: {path: {type: ReplacePrefixMatch, replacePrefixMatch: \"/a\\nb\"}}}]\n", field: "spec.rules[0].filters[0].requestRedirect.path.replacePrefixMatch", unpublished: true},
		{name: "a NUL in a rewrite's full path",
			rule: "  - filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplaceFullPath, replaceFullPath: \"/a\\0b\"}}}]\n", field: "spec.rules[0].filters[0].urlRewrite.path.replaceFullPath", unpublished: true},
		{name: "a % that starts no command in a header value added",
			rule: "  - filters: [{type: RequestHeaderModifier, requestHeaderModifier: {add: [{name: x-a, value: \"%REQ(x-b)% and 10%\"}]}}]\n", field: "spec.rules[0].filters[0].requestHeaderModifier.add[0].value"},
		{name: "substitution commands and %% pass",
			rule: "  - filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x-a, value: \"%REQ(x-b):8% is 100%%\"}]}}]\n"},
		{name: "the validation refuses the filter (an empty name to remove): nothing written, no problem here",
			rule: "  - filters: [{type: RequestHeaderModifier, requestHeaderModifier: {remove: [\"\", \"a\\nb\"]}}]\n"},
		{name: "the validation refuses the rule's regex: nothing written, no problem here",
			rule: "  - matches: [{path: {type: RegularExpression, value: \"\"}, headers: [{type: RegularExpression, name: a, value: \"(\"}]}]\n"},
		{name: "what kgateway refuses and Envoy accepts: a space in a rewrite, an escaped slash in a path, a redirect path with a query",
			rule: "  - matches: [{path: {type: PathPrefix, value: /a%2Fb}}]\n    filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: \"/a b\"}}}]\n" +
				"  - filters: [{type: RequestRedirect, requestRedirect: {path: {type: ReplaceFullPath, replaceFullPath: \"/x?y=1\"}}}]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind := tt.kind
			if kind == "" {
				kind = "HTTPRoute"
			}
			doc := "apiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: r, namespace: default}\nspec:\n  rules:\n" + tt.rule
			objs, err := manifest.Parse("r.yaml", []byte(doc), manifest.Limits{})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default"})
			g := topology.Build(m, topology.Options{})
			rt := g.Route(kind, "default", "r")
			if rt == nil {
				t.Fatalf("route not built: %v", m.Diagnostics)
			}
			var p *topology.RuleProblem
			for _, rule := range rt.Rules {
				if p = checkRule(rt, rule, policy.Config{}); p != nil {
					break
				}
			}
			switch {
			case tt.field == "" && p != nil:
				t.Fatalf("problem %+v, want none", p)
			case tt.field == "":
				return
			case p == nil:
				t.Fatalf("no problem, want one at %s", tt.field)
			}
			if p.Field != tt.field || !p.Dropped {
				t.Errorf("problem at %s (dropped %v), want %s, dropped", p.Field, p.Dropped, tt.field)
			}
			if want := map[bool]string{true: outcomeUnpublished, false: outcomeRefused}[tt.unpublished]; p.Outcome != want {
				t.Errorf("outcome %q, want %q", p.Outcome, want)
			}
		})
	}
}
