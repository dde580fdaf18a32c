package haptic

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// TestHAPTICRuleCheck: HAPTIC's rule check, from its gateway library's
// templates — header operations it does not apply (a name that is no
// HTTP token, an empty name to remove, a value with a line break) are
// skipped with the rest of the rule served; a RegularExpression path it
// cannot write, and a rewrite or redirect path with a line break, leave
// the rule out; a % in a header value, kgateway's path checks and its
// redirect status annotation are nothing to it. Shapes no public case has.
func TestHAPTICRuleCheck(t *testing.T) {
	tests := []struct {
		name, kind, rule string
		// want: "skip OP[I] ..." per skipped operation, "drop FIELD", or ""
		want string
	}{
		{name: "an empty header name to remove, and one with a line feed: skipped, the rest applied",
			rule: "  - filters: [{type: RequestHeaderModifier, requestHeaderModifier: {remove: [\"\", x-ok, \"a\\nb\"]}}]\n",
			want: "skip remove[0] remove[2] at spec.rules[0].filters[0].requestHeaderModifier.remove[0]"},
		{name: "a name the Gateway API allows that is no HTTP token to HAPTIC, on a backendRef's response modifier",
			rule: "  - backendRefs: [{name: svc, port: 80, filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {add: [{name: \"x|a\", value: b}, {name: x-b, value: c}]}}]}]\n",
			want: "skip add[0] at spec.rules[0].backendRefs[0].filters[0].responseHeaderModifier.add[0]"},
		{name: "a value with a carriage return on a gRPC route: skipped", kind: "GRPCRoute",
			rule: "  - filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x-a, value: \"b\\rc\"}]}}]\n",
			want: "skip set[0] at spec.rules[0].filters[0].requestHeaderModifier.set[0]"},
		{name: "a % in a value is a literal to HAPTIC",
			rule: "  - filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x-a, value: \"50%off\"}]}}]\n"},
		{name: "an empty RegularExpression path: left out",
			rule: "  - matches: [{path: {type: PathPrefix, value: /a}}, {path: {type: RegularExpression, value: \"\"}}]\n",
			want: "drop spec.rules[0].matches[1].path.value"},
		{name: "a RegularExpression path with a space: left out",
			rule: "  - matches: [{path: {type: RegularExpression, value: \"/a b\"}}]\n",
			want: "drop spec.rules[0].matches[0].path.value"},
		{name: "a line feed in a redirect's prefix: left out",
			rule: "  - filters: [{type: RequestRedirect, requestRedirect: {path: {type: ReplacePrefixMatch, replacePrefixMatch: \"/a\\nb\"}}}]\n",
			want: "drop spec.rules[0].filters[0].requestRedirect.path.replacePrefixMatch"},
		{name: "what kgateway refuses and HAPTIC writes: an escaped slash in a path, a space in a rewrite",
			rule: "  - matches: [{path: {type: PathPrefix, value: /a%2Fb}}]\n    filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplaceFullPath, replaceFullPath: \"/a b\"}}}]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind := tt.kind
			if kind == "" {
				kind = "HTTPRoute"
			}
			doc := "apiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: r, namespace: default, annotations: {kgateway.dev/http-redirect-status-code: \"399\"}}\nspec:\n  rules:\n" + tt.rule
			objs, err := manifest.Parse("r.yaml", []byte(doc), manifest.Limits{})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default"})
			rt := topology.Build(m, topology.Options{}).Route(kind, "default", "r")
			if rt == nil {
				t.Fatalf("route not built: %v", m.Diagnostics)
			}
			p := checkRule(rt, rt.Rules[0], policy.Config{})
			got := ""
			switch {
			case p != nil && p.Dropped:
				got = "drop " + p.Field
			case p != nil:
				var ops []string
				for _, s := range p.Skips {
					ops = append(ops, fmt.Sprintf("%s[%d]", s.Op, s.Index))
				}
				got = "skip " + strings.Join(ops, " ") + " at " + p.Field
			}
			if got != tt.want {
				t.Errorf("got %q, want %q (%+v)", got, tt.want, p)
			}
		})
	}
}
