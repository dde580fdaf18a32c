package kgateway

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// checkedRoute builds the topology of a Gateway and the HTTPRoute of
// spec (annotations on it when given) with kgateway's rule check under
// the validation mode, as internal/families passes it in, and returns the
// route.
func checkedRoute(t *testing.T, mode, annotations, spec string) *topology.Route {
	t.Helper()
	gw := "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: cls\n  listeners:\n  - {name: http, port: 80, protocol: HTTP}\n"
	rt := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra" + annotations + "}\nspec:\n  parentRefs: [{name: gw}]\n  rules:\n" + spec
	objs, err := manifest.Parse("in.yaml", []byte(gw+"---\n"+rt), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{})
	reg := policy.NewRegistry()
	reg.AddFamilies(Family)
	g := topology.Build(m, topology.Options{RuleChecks: reg.RuleChecks(policy.Config{}.WithSetting(ValidationMode.Key, mode))})
	r := g.Route("HTTPRoute", "infra", "r")
	if r == nil {
		t.Fatal("route not in the graph")
	}
	return r
}

// TestRuleProblems: the rules kgateway replaces or leaves out, by
// validation mode.
func TestRuleProblems(t *testing.T) {
	tests := []struct {
		name, rule string
		strict     bool
		want       string // "" none, "replaced" or "dropped"
	}{
		{"good rewrite", `filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /v2/api}}}]`, false, ""},
		{"dot segments in a rewrite", `filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /new//../path}}}]`, false, "replaced"},
		{"bracket in a rewrite's full path, strict: a regex substitution, not refused", `filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplaceFullPath, replaceFullPath: "x-[y"}}}]`, true, ""},
		{"space in a rewrite's full path: not refused", `filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplaceFullPath, replaceFullPath: "/a b"}}}]`, false, ""},
		{"line break in a rewrite's full path: replaced", `filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplaceFullPath, replaceFullPath: "/a\nb"}}}]`, false, "replaced"},
		{"bracket in a prefix rewrite: replaced", `filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: "invalid-regex-[unclosed-bracket"}}}]`, false, "replaced"},
		{"query in a prefix rewrite: the parsed path passes", `filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: "/v2?x=1"}}}]`, false, ""},
		{"escaped slash in a prefix rewrite: decoded, passes", `filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: "/a%2Fb"}}}]`, false, ""},
		{"escaped space in a prefix rewrite: decoded, replaced", `filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: "/a%20b"}}}]`, false, "replaced"},
		{"bad escape in a prefix rewrite: the parse fails, replaced", `filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: "/a%zz"}}}]`, false, "replaced"},
		{"query in a redirect's prefix: passes", `filters: [{type: RequestRedirect, requestRedirect: {path: {type: ReplacePrefixMatch, replacePrefixMatch: "/v2?x=1"}}}]`, false, ""},
		{"stray percent in a redirect's full path: replaced", `filters: [{type: RequestRedirect, requestRedirect: {path: {type: ReplaceFullPath, replaceFullPath: "/a%zz"}}}]`, false, "replaced"},
		{"escaped slash in a redirect's full path: replaced", `filters: [{type: RequestRedirect, requestRedirect: {path: {type: ReplaceFullPath, replaceFullPath: "/a%2Fb"}}}]`, false, "replaced"},
		{"query in a redirect's full path: replaced", `filters: [{type: RequestRedirect, requestRedirect: {path: {type: ReplaceFullPath, replaceFullPath: "/a?b"}}}]`, false, "replaced"},
		{"bad path regex, standard: passed through", `matches: [{path: {type: RegularExpression, value: "[bad"}}]`, false, ""},
		{"bad path regex, strict: dropped", `matches: [{path: {type: RegularExpression, value: "[bad"}}]`, true, "dropped"},
		{"lookbehind in a header regex, strict: dropped", `matches: [{headers: [{name: x, type: RegularExpression, value: "(?<=foo)bar"}]}]`, true, "dropped"},
		{"bad query regex, strict: dropped", `matches: [{queryParams: [{name: q, type: RegularExpression, value: ".*[x"}]}]`, true, "dropped"},
		{"good regexes, strict", `matches: [{path: {type: RegularExpression, value: "/api/v[0-9]+/.*"}}]`, true, ""},
		{"empty header regex, standard: dropped", `matches: [{headers: [{name: x, type: RegularExpression, value: ""}]}]`, false, "dropped"},
		{"empty path regex, strict: dropped", `matches: [{path: {type: RegularExpression, value: ""}}]`, true, "dropped"},
		{"line break in a set header: replaced", `filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x, value: "a\nb"}]}}]`, false, "replaced"},
		{"NUL in an added response header: replaced", `filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {add: [{name: x, value: "a\x00"}]}}]`, false, "replaced"},
		{"line break in a redirect path: replaced", `filters: [{type: RequestRedirect, requestRedirect: {path: {type: ReplaceFullPath, replaceFullPath: "a\nb"}}}]`, false, "replaced"},
		{"an escaped slash in a path match: replaced", `matches: [{path: {type: PathPrefix, value: /a%2Fb}}]`, false, "replaced"},
		{"a stray percent in an exact path match: replaced", `matches: [{path: {type: Exact, value: /a%zz}}]`, false, "replaced"},
		{"an escaped character in a path match", `matches: [{path: {type: PathPrefix, value: /a%20b}}]`, false, ""},
		{"good redirect path", `filters: [{type: RequestRedirect, requestRedirect: {path: {type: ReplaceFullPath, replaceFullPath: /new}}}]`, false, ""},
		{"ordinary header values", `filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x, value: "a b; c=d"}]}}]`, false, ""},
		{"unterminated format command, strict: replaced", `filters: [{type: RequestHeaderModifier, requestHeaderModifier: {add: [{name: x, value: "%REQ(Correlation-Id"}]}}]`, true, "replaced"},
		{"format command without its closing %, strict: replaced", `filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {add: [{name: x, value: "%RESPONSE(Invalid-Variable)"}]}}]`, true, "replaced"},
		{"unterminated format command, standard: passed through", `filters: [{type: RequestHeaderModifier, requestHeaderModifier: {add: [{name: x, value: "%REQ(x"}]}}]`, false, ""},
		{"format commands and a literal %, strict", `filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x, value: "id=%REQ(x-id):10% at %START_TIME% is 100%%"}]}}]`, true, ""},
		{"lone % in a header value, strict: replaced", `filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x, value: "50% off"}]}}]`, true, "replaced"},
		// found by FuzzRender's exploration: config Envoy refuses, written
		{"empty header name to remove: replaced", `filters: [{type: RequestHeaderModifier, requestHeaderModifier: {remove: [x-a, ""]}}]`, false, "replaced"},
		{"line break in a response header name to remove: replaced", `filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {remove: ["x\nb"]}}]`, false, "replaced"},
		{"header names to remove", `filters: [{type: RequestHeaderModifier, requestHeaderModifier: {remove: [x-a, X-B]}}]`, false, ""},
		{"line break in a backendRef's header value: replaced", `backendRefs: [{name: svc, port: 80, filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x, value: "a\r\nb"}]}}]}]`, false, "replaced"},
		{"empty name a backendRef removes: replaced", `backendRefs: [{name: svc, port: 80}, {name: svc2, port: 80, filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {remove: [""]}}]}]`, false, "replaced"},
		{"lone % in a backendRef's header value, strict: replaced", `backendRefs: [{name: svc, port: 80, filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x, value: "50% off"}]}}]}]`, true, "replaced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode := "Standard"
			if tt.strict {
				mode = "Strict"
			}
			p := firstProblem(checkedRoute(t, mode, "", "  - "+tt.rule+"\n").Rules[0])
			got := ""
			switch {
			case p != nil && p.Dropped:
				got = "dropped"
			case p != nil:
				got = "replaced"
			}
			if got != tt.want {
				t.Errorf("problem = %q (%+v), want %q", got, p, tt.want)
			}
		})
	}
}

// TestRedirectStatusAnnotation: kgateway's redirect status annotation sets
// the code of the rules that redirect (all, or those it names); a code it
// does not accept replaces the rule.
func TestRedirectStatusAnnotation(t *testing.T) {
	rules := "  - name: a\n    filters: [{type: RequestRedirect, requestRedirect: {scheme: https}}]\n" +
		"  - name: b\n    filters: [{type: RequestRedirect, requestRedirect: {scheme: https}}]\n" +
		"  - name: c\n    backendRefs: [{name: svc, port: 80}]\n"
	for _, tt := range []struct {
		value    string
		statuses []int
		replaced []bool
	}{
		{"307", []int{307, 307, 0}, []bool{false, false, false}},
		{"a=308", []int{308, 0, 0}, []bool{false, false, false}},
		{"a=308,b=200", []int{308, 0, 0}, []bool{false, true, false}},
		{"nope", []int{0, 0, 0}, []bool{true, true, false}},
	} {
		r := checkedRoute(t, "", ", annotations: {"+AnnotationRedirectStatus+": \""+tt.value+"\"}", rules)
		for i, rule := range r.Rules {
			if rule.RedirectStatus != tt.statuses[i] || (firstProblem(rule) != nil) != tt.replaced[i] {
				t.Errorf("%s: rule %d: status %d, problem %+v; want status %d, replaced %v", tt.value, i, rule.RedirectStatus, firstProblem(rule), tt.statuses[i], tt.replaced[i])
			}
			if p := firstProblem(rule); p != nil && !strings.Contains(p.Message, "invalid redirect status code") {
				t.Errorf("%s: rule %d: message %q", tt.value, i, p.Message)
			}
		}
	}
}

// firstProblem is the rule's problem kgateway's check found (the only
// check these tests run), nil when none.
func firstProblem(rule *topology.Rule) *topology.RuleProblem {
	if len(rule.Problems) == 0 {
		return nil
	}
	return rule.Problems[0]
}
