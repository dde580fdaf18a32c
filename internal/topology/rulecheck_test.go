package topology

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
)

// TestRuleChecksRunInOrder: topology runs every controller's rule check
// on every rule, keeps each one's problem in check order and reports it
// at the rule; without checks no rule has a problem.
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
	g := graph(t, Options{RuleChecks: []RuleCheck{{Check: first}, {Check: second}}}, gatewayInfra, rt)
	rules := route(t, g, "HTTPRoute/infra/r").Rules
	if p := g.ProblemOn(rules[0].Problems, nil); p == nil || p.Dropped || p.Message != "second says no" {
		t.Errorf("rule a: problem %+v, want second's", p)
	}
	if p := g.ProblemOn(rules[1].Problems, nil); p == nil || !p.Dropped || p.Message != "first says no" {
		t.Errorf("rule b: problem %+v, want first's", p)
	}
	if got, want := strings.Join(seen, ", "), "first a, second a, first b, second b"; got != want {
		t.Errorf("checks ran as %s, want %s", got, want)
	}
	n := 0
	for _, d := range g.Diagnostics {
		if d.Code == LintRuleNotProgrammed.Code {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d %s findings, want one per rule with a problem on the Gateway: %+v", n, LintRuleNotProgrammed.Code, g.Diagnostics)
	}
	for _, rule := range route(t, graph(t, Options{}, gatewayInfra, rt), "HTTPRoute/infra/r").Rules {
		if len(rule.Problems) > 0 {
			t.Errorf("rule %s has a problem without checks: %+v", rule.Name, rule.Problems)
		}
	}
}

// TestRuleProblemsPerController: each controller's rule check judges the
// rules for its own Gateways. A problem holds (status, render, explain
// read it through ProblemOn) and is reported (GWP212) only where a Gateway
// of its controller serves the route — or, for the first check's
// controller, one whose controller has no check of its own, or whose
// class is not in the input. A redirect status a check reads off the
// route holds the same way (RedirectStatusOn).
func TestRuleProblemsPerController(t *testing.T) {
	class := func(name, ctrl string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: " + name + "}\nspec: {controllerName: " + ctrl + "}"
	}
	gateway := func(name, cls string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n  gatewayClassName: " + cls +
			"\n  listeners:\n  - {name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}\n"
	}
	// a refuses rules named x… (replaced), b rules named x… or y…
	// (dropped); a reads a redirect status 307 off rules named z…
	checkA := func(r *Route, rule *Rule) *RuleProblem {
		switch {
		case strings.HasPrefix(rule.Name, "x"):
			return &RuleProblem{Message: "a says no"}
		case strings.HasPrefix(rule.Name, "z"):
			rule.RedirectStatus = 307
		}
		return nil
	}
	checkB := func(r *Route, rule *Rule) *RuleProblem {
		if strings.HasPrefix(rule.Name, "x") || strings.HasPrefix(rule.Name, "y") {
			return &RuleProblem{Dropped: true, Message: "b says no", Field: rule.Path + ".matches"}
		}
		return nil
	}
	docs := []string{class("a", "a.example/a"), class("b", "b.example/b"), class("c", "c.example/c"),
		gateway("gw-a", "a"), gateway("gw-b", "b"), gateway("gw-c", "c"), gateway("gw-none", "missing"), svcInfra}
	rules := "  rules:\n  - {name: x, backendRefs: [{name: svc, port: 80}]}\n  - {name: y, backendRefs: [{name: svc, port: 80}]}\n  - {name: z, backendRefs: [{name: svc, port: 80}]}\n"
	for _, name := range []string{"gw-a", "gw-b", "gw-c", "gw-none"} {
		docs = append(docs, httpRoute("infra", "on-"+name, "  parentRefs: [{name: "+name+"}]\n"+rules))
	}
	docs = append(docs, httpRoute("infra", "on-a-and-b", "  parentRefs: [{name: gw-a}, {name: gw-b}]\n"+rules))
	g := graph(t, Options{RuleChecks: []RuleCheck{{Controller: "a.example/a", Check: checkA}, {Controller: "b.example/b", Check: checkB}}}, docs...)
	gw := map[string]*Gateway{}
	for _, x := range g.Gateways {
		gw[x.Name] = x
	}
	describe := func(p *RuleProblem) string {
		if p == nil {
			return "-"
		}
		return p.Message
	}
	// what holds on each Gateway, rules x, y, z, and z's redirect status
	want := map[string]string{"gw-a": "a says no, -, -, 307", "gw-b": "b says no, b says no, -, 0",
		"gw-c": "a says no, -, -, 307", "gw-none": "a says no, -, -, 307"}
	rt := route(t, g, "HTTPRoute/infra/on-a-and-b")
	for name, w := range want {
		var got []string
		for _, rule := range rt.Rules {
			got = append(got, describe(g.ProblemOn(rule.Problems, gw[name])))
		}
		got = append(got, fmt.Sprint(g.RedirectStatusOn(rt.Rules[2], gw[name])))
		if s := strings.Join(got, ", "); s != w {
			t.Errorf("on %s: %s, want %s", name, s, w)
		}
		if p := g.ProblemUnder(rt.Rules[0], &Parent{Gateway: gw[name]}); describe(p) != strings.Split(w, ", ")[0] {
			t.Errorf("ProblemUnder %s: %s", name, describe(p))
		}
	}
	// the findings: one per problem that holds on a Gateway serving the route
	wantFindings := map[string][]string{
		"on-gw-a":    {"x: a says no"},
		"on-gw-b":    {"x: b says no", "y: b says no"},
		"on-gw-c":    {"x: a says no"},
		"on-gw-none": {"x: a says no"},
		"on-a-and-b": {"x: a says no", "x: b says no", "y: b says no"},
	}
	got := map[string][]string{}
	for _, d := range g.Diagnostics {
		if d.Code != LintRuleNotProgrammed.Code {
			continue
		}
		rule, msg, _ := strings.Cut(strings.TrimPrefix(d.Message, "rule "), ": ")
		msg, _, _ = strings.Cut(msg, ";")
		got[d.Object.Name] = append(got[d.Object.Name], rule+": "+msg)
		if strings.Contains(msg, "b says") && !strings.HasSuffix(d.Field, ".matches") {
			t.Errorf("b's finding at %s, want the field it names", d.Field)
		}
	}
	for name, w := range wantFindings {
		if !slices.Equal(got[name], w) {
			t.Errorf("%s: findings %q, want %q", name, got[name], w)
		}
	}
}

// TestRuleProblemSkips: a problem that only skips header operations
// neither replaces nor drops the rule — ProblemOn does not return it,
// SkipsOn and RuleSkipsOn do, on its controller's Gateways only — and its
// finding is a warning.
func TestRuleProblemSkips(t *testing.T) {
	rt := httpRoute("infra", "r", "  parentRefs: [{name: gw}]\n  rules:\n  - filters: [{type: RequestHeaderModifier, requestHeaderModifier: {remove: [a, b]}}]\n    backendRefs: [{name: svc, port: 80}]\n")
	skip := func(r *Route, rule *Rule) *RuleProblem {
		h := rule.HTTP.Filters[0].RequestHeaderModifier
		return &RuleProblem{Skips: []HeaderSkip{{Filter: h, Op: "remove", Index: 1}}, Message: "b is skipped", Outcome: "the rest is served"}
	}
	g := graph(t, Options{RuleChecks: []RuleCheck{{Check: skip}}}, gatewayInfra, svcInfra, rt)
	rule := route(t, g, "HTTPRoute/infra/r").Rules[0]
	if p := g.ProblemOn(rule.Problems, nil); p != nil {
		t.Errorf("ProblemOn %+v, want none: the rule is served", p)
	}
	if s := g.SkipsOn(rule.Problems, nil); len(s) != 1 || s[0].Index != 1 || s[0].Filter != rule.HTTP.Filters[0].RequestHeaderModifier {
		t.Errorf("SkipsOn %+v, want remove[1]", s)
	}
	if p := g.RuleSkipsOn(rule, nil, nil); p == nil || p.Message != "b is skipped" {
		t.Errorf("RuleSkipsOn %+v", p)
	}
	if rule.Problems.Replace() {
		t.Error("Replace: true, want false")
	}
	var sev []diag.Severity
	for _, d := range g.Diagnostics {
		if d.Code == LintRuleNotProgrammed.Code {
			sev = append(sev, d.Severity)
		}
	}
	if len(sev) != 1 || sev[0] != diag.Warning {
		t.Errorf("findings of severity %v, want one warning", sev)
	}
}
