package topology

import "testing"

func TestRuleProblems(t *testing.T) {
	rule := func(body string) string {
		return httpRoute("infra", "r", "  parentRefs: [{name: gw}]\n  rules:\n  - "+body+"\n")
	}
	tests := []struct {
		name, rule string
		strict     bool
		want       string // "" none, "replaced" or "dropped"
	}{
		{"good rewrite", `filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /v2/api}}}]`, false, ""},
		{"dot segments in a rewrite", `filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /new//../path}}}]`, false, "replaced"},
		{"bracket in a rewrite", `filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplaceFullPath, replaceFullPath: "x-[y"}}}]`, true, "replaced"},
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
		{"good redirect path", `filters: [{type: RequestRedirect, requestRedirect: {path: {type: ReplaceFullPath, replaceFullPath: /new}}}]`, false, ""},
		{"ordinary header values", `filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x, value: "a b; c=d"}]}}]`, false, ""},
		{"unterminated format command, strict: replaced", `filters: [{type: RequestHeaderModifier, requestHeaderModifier: {add: [{name: x, value: "%REQ(Correlation-Id"}]}}]`, true, "replaced"},
		{"format command without its closing %, strict: replaced", `filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {add: [{name: x, value: "%RESPONSE(Invalid-Variable)"}]}}]`, true, "replaced"},
		{"unterminated format command, standard: passed through", `filters: [{type: RequestHeaderModifier, requestHeaderModifier: {add: [{name: x, value: "%REQ(x"}]}}]`, false, ""},
		{"format commands and a literal %, strict", `filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x, value: "id=%REQ(x-id):10% at %START_TIME% is 100%%"}]}}]`, true, ""},
		{"lone % in a header value, strict: replaced", `filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x, value: "50% off"}]}}]`, true, "replaced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := Options{}
			if tt.strict {
				opt.ValidationMode = "Strict"
			}
			g := graph(t, opt, gatewayInfra, rule(tt.rule))
			p := route(t, g, "HTTPRoute/infra/r").Rules[0].Problem
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
