package topology

import (
	"strings"
	"testing"
)

// TestRuleChecksRunInOrder: topology runs the families' rule checks in
// order on every rule, keeps the first problem found and reports it at
// the rule; without checks no rule has a problem.
func TestRuleChecksRunInOrder(t *testing.T) {
	rt := httpRoute("infra", "r", "  parentRefs: [{name: gw}]\n  rules:\n  - name: a\n    backendRefs: [{name: svc, port: 80}]\n  - name: b\n    backendRefs: [{name: svc, port: 80}]\n")
	var seen []string
	first := func(r *Route, rule *Rule) *RuleProblem {
		seen = append(seen, "first "+rule.Name)
		if rule.Name == "b" {
			return &RuleProblem{Dropped: true, Message: "first says no"}
		}
		return nil
	}
	second := func(r *Route, rule *Rule) *RuleProblem {
		seen = append(seen, "second "+rule.Name)
		return &RuleProblem{Message: "second says no"}
	}
	g := graph(t, Options{RuleChecks: []RuleCheck{first, second}}, gatewayInfra, rt)
	rules := route(t, g, "HTTPRoute/infra/r").Rules
	if p := rules[0].Problem; p == nil || p.Dropped || p.Message != "second says no" {
		t.Errorf("rule a: problem %+v, want second's", p)
	}
	if p := rules[1].Problem; p == nil || !p.Dropped || p.Message != "first says no" {
		t.Errorf("rule b: problem %+v, want first's", p)
	}
	if got, want := strings.Join(seen, ", "), "first a, second a, first b"; got != want {
		t.Errorf("checks ran as %s, want %s", got, want)
	}
	n := 0
	for _, d := range g.Diagnostics {
		if d.Code == LintRuleNotProgrammed.Code {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d %s findings, want one per rule with a problem: %+v", n, LintRuleNotProgrammed.Code, g.Diagnostics)
	}
	for _, rule := range route(t, graph(t, Options{}, gatewayInfra, rt), "HTTPRoute/infra/r").Rules {
		if rule.Problem != nil {
			t.Errorf("rule %s has a problem without checks: %+v", rule.Name, rule.Problem)
		}
	}
}
