package topology

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// servedRules is a controller's delegation for TestServedProblems: a
// backendRef of kind HTTPRoute delegates to the route so named; a child
// annotated "inherit" has its matches joined to the parent's headers (the
// parent's match otherwise keeps the child's as written); a child rule
// without a URLRewrite takes the nearest parent's.
var servedRules = DelegationRules{
	Select: func(b *Backend) (ChildSelector, bool) {
		return ChildSelector{Namespace: b.Namespace, Name: b.Name}, b.Kind == "HTTPRoute"
	},
	Accepts: func(child, parent *Route) bool { return true },
	Keep: func(child *Route, parent gwv1.HTTPRouteMatch) []KeptRule {
		var out []KeptRule
		for _, r := range child.Rules {
			var ms []gwv1.HTTPRouteMatch
			for _, m := range RuleMatches(r) {
				if child.Meta.Annotations["inherit"] == "true" {
					m.Headers = append(slices.Clip(m.Headers), parent.Headers...)
				}
				ms = append(ms, m)
			}
			out = append(out, KeptRule{Rule: r, Matches: ms})
		}
		return out
	},
	Refuse:     func(child *Route) (string, string, string) { return "", "", "" },
	Unresolved: func(parent *Route, b *Backend, cycle *Route) (string, string) { return "NoChild", "none" },
	Inherits: func(_ *Route, rule *Rule, via []*Rule) []InheritedFilter {
		if slices.ContainsFunc(rule.HTTP.Filters, func(f gwv1.HTTPRouteFilter) bool { return f.URLRewrite != nil }) {
			return nil
		}
		for _, p := range via {
			for _, f := range p.HTTP.Filters {
				if f.URLRewrite != nil {
					return []InheritedFilter{{Filter: f, From: p}}
				}
			}
		}
		return nil
	},
}

// servedCheck refuses a rule whose URLRewrite prefix holds "bad" or a
// match of two headers (replaced) and one matching a header named "bad"
// (dropped).
func servedCheck(r *Route, rule *Rule) *RuleProblem {
	if rule.HTTP == nil {
		return nil
	}
	for _, m := range rule.HTTP.Matches {
		if len(m.Headers) >= 2 {
			return &RuleProblem{Message: "two headers"}
		}
		for _, h := range m.Headers {
			if h.Name == "bad" {
				return &RuleProblem{Dropped: true, Message: "bad header"}
			}
		}
	}
	for _, f := range rule.HTTP.Filters {
		if f.URLRewrite != nil && f.URLRewrite.Path != nil && f.URLRewrite.Path.ReplacePrefixMatch != nil && strings.Contains(*f.URLRewrite.Path.ReplacePrefixMatch, "bad") {
			return &RuleProblem{Message: "bad rewrite " + *f.URLRewrite.Path.ReplacePrefixMatch}
		}
	}
	return nil
}

// TestServedProblems: a delegated child rule is judged as it is served
// under each parent — with the URLRewrite it inherits (the nearest
// parent's, when it has none) and its match joined to the parent's —
// once per flattened entry; the delegating rule's own entry emits no
// route and is never judged itself. The decision is the entry's
// (FlatMatch.Problems), the copy's along its parents (Rule.ProblemsAlong)
// and the child's for each delegating parent (Graph.ProblemUnder), and one
// finding at the child's rule names the parent.
func TestServedProblems(t *testing.T) {
	rewrite := func(p string) string {
		return "    filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: " + p + "}}}]\n"
	}
	parent := func(name, child, filters string, headers string) string {
		return httpRoute("infra", name, "  parentRefs: [{name: gw}]\n  rules:\n  - matches: [{path: {type: PathPrefix, value: /p}"+headers+"}]\n"+filters+
			"    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: "+child+"}]\n")
	}
	child := func(name, annotations, filters string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: infra" + annotations + "}\nspec:\n  rules:\n" +
			"  - matches: [{path: {type: PathPrefix, value: /p/x}}]\n" + filters + "    backendRefs: [{name: svc, port: 80}]\n"
	}
	middle := httpRoute("infra", "middle", "  rules:\n  - matches: [{path: {type: PathPrefix, value: /p/x}}]\n"+
		"    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: leaf}]\n")
	cases := []struct {
		name string
		docs []string
		// want: each flattened entry of each root as route/rule: problem
		// ("-" none), and the child's problem under each parent route.
		want  map[string][]string
		under map[string]string // child route → parent route → problem
		finds int
		// own: the findings at a root's delegating rule whose delegation
		// keeps no child (it answers itself, judged on its own match)
		own int
	}{
		{name: "a bad rewrite the child inherits replaces the child's entry, not the parent's",
			docs:  []string{parent("api", "orders", rewrite("/bad"), ""), child("orders", "", "")},
			want:  map[string][]string{"api": {"orders/0: bad rewrite /bad (replaced)", "api/0: -"}},
			under: map[string]string{"orders<api": "bad rewrite /bad"}, finds: 1},
		{name: "a child with a rewrite of its own inherits none",
			docs: []string{parent("api", "orders", rewrite("/bad"), ""), child("orders", "", rewrite("/good"))},
			want: map[string][]string{"api": {"orders/0: -", "api/0: -"}}, under: map[string]string{"orders<api": "-"}},
		{name: "two parents: the child is replaced only under the one whose rewrite is bad",
			docs:  []string{parent("api", "orders", rewrite("/bad"), ""), parent("web", "orders", rewrite("/fine"), ""), child("orders", "", "")},
			want:  map[string][]string{"api": {"orders/0: bad rewrite /bad (replaced)", "api/0: -"}, "web": {"orders/0: -", "web/0: -"}},
			under: map[string]string{"orders<api": "bad rewrite /bad", "orders<web": "-"}, finds: 1},
		{name: "a grandparent's rewrite reaches the leaf through a parent without one",
			docs:  []string{parent("api", "middle", rewrite("/bad"), ""), middle, child("leaf", "", "")},
			want:  map[string][]string{"api": {"leaf/0: bad rewrite /bad (replaced)", "middle/0: -", "api/0: -"}},
			under: map[string]string{"leaf<middle": "bad rewrite /bad", "middle<api": "-"}, finds: 1},
		{name: "an inherited match the checks refuse drops the child's entry",
			docs:  []string{parent("api", "orders", "", ", headers: [{name: bad, value: x}]"), child("orders", ", annotations: {inherit: 'true'}", "")},
			want:  map[string][]string{"api": {"orders/0: bad header (dropped)", "api/0: -"}},
			under: map[string]string{"orders<api": "bad header"}, finds: 1},
		{name: "one match of the copy refused: the whole copy is, as a rule's own problem is the rule's",
			docs: []string{parent("api", "orders", "", ", headers: [{name: h, value: x}]"),
				"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: orders, namespace: infra, annotations: {inherit: 'true'}}\nspec:\n  rules:\n" +
					"  - matches: [{path: {type: PathPrefix, value: /p/x}, headers: [{name: a, value: y}]}, {path: {type: PathPrefix, value: /p/y}}]\n    backendRefs: [{name: svc, port: 80}]\n"},
			want:  map[string][]string{"api": {"orders/0: two headers (replaced)", "orders/0: two headers (replaced)", "api/0: -"}},
			under: map[string]string{"orders<api": "two headers"}, finds: 1},
		{name: "a delegation that keeps no child answers with the parent's own match, judged as served: a refused match drops it",
			docs:  []string{parent("api", "nobody", "", ", headers: [{name: bad, value: x}]")},
			want:  map[string][]string{"api": {"api/0: bad header (dropped)"}},
			finds: 1, own: 1},
		{name: "a delegation that keeps no child, below a parent: its copy there is judged with what it inherits",
			docs: []string{parent("api", "middle", rewrite("/bad"), ""),
				httpRoute("infra", "middle", "  rules:\n  - matches: [{path: {type: PathPrefix, value: /p/x}}]\n"+
					"    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: nobody}]\n")},
			want:  map[string][]string{"api": {"middle/0: bad rewrite /bad (replaced)", "api/0: -"}},
			under: map[string]string{"middle<api": "bad rewrite /bad"}, finds: 1},
		{name: "a child keeping its own match takes nothing of the parent's",
			docs:  []string{parent("api", "orders", "", ", headers: [{name: bad, value: x}]"), child("orders", "", "")},
			want:  map[string][]string{"api": {"orders/0: -", "api/0: -"}},
			under: map[string]string{"orders<api": "-"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := graph(t, Options{Delegation: servedRules, RuleChecks: []RuleCheck{{Check: servedCheck}}}, append([]string{gatewayInfra, svcInfra}, c.docs...)...)
			for root, want := range c.want {
				var got []string
				for _, fm := range route(t, g, "HTTPRoute/infra/"+root).Flat {
					got = append(got, fmt.Sprintf("%s/%d: %s", fm.Route.Meta.Name, fm.RuleIndex, describeProblem(g.ProblemOn(fm.Problems, nil))))
					if p := fm.Rule.ProblemsAlong(fm.Via); !slices.Equal(p, fm.Problems) && !fm.Delegates {
						t.Errorf("%s: ProblemsAlong %+v, the entry's %+v", root, p, fm.Problems)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s flattened:\n%s\nwant:\n%s", root, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
			for k, want := range c.under {
				name, parentName, _ := strings.Cut(k, "<")
				rt := route(t, g, "HTTPRoute/infra/"+name)
				for _, p := range rt.Parents {
					if p.Delegation == nil || p.Delegation.Parent.Meta.Name != parentName {
						continue
					}
					got := "-"
					if pr := g.ProblemUnder(rt.Rules[0], p); pr != nil {
						got = pr.Message
					}
					if got != want {
						t.Errorf("%s under %s: %q, want %q", name, parentName, got, want)
					}
				}
			}
			for _, rt := range g.Routes {
				for _, rule := range rt.Rules {
					if rule.IsDelegating() && len(rule.Problems) > 0 && !replacedOwn(rt, rule) {
						t.Errorf("delegating rule %s of %s judged on its own: %+v", rule.Section(), rt.Meta.Name, rule.Problems)
					}
				}
			}
			n, own := 0, 0
			for _, d := range g.Diagnostics {
				if d.Code == LintRuleNotProgrammed.Code {
					n++
					if !strings.Contains(d.Message, "served under the delegating rule") {
						own++
					}
					if own > c.own {
						t.Errorf("finding does not name the parent: %s", d.Message)
					}
				}
			}
			if n != c.finds {
				t.Errorf("%d %s findings, want %d: %+v", n, LintRuleNotProgrammed.Code, c.finds, g.Diagnostics)
			}
		})
	}
}

const svcInfra = "apiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: infra}\nspec: {ports: [{port: 80}]}\n"

func describeProblem(p *RuleProblem) string {
	switch {
	case p == nil:
		return "-"
	case p.Dropped:
		return p.Message + " (dropped)"
	}
	return p.Message + " (replaced)"
}

// replacedOwn reports whether a delegating rule answers itself on its
// route: one of the route's own entries is Replaced (FlatMatch).
func replacedOwn(rt *Route, rule *Rule) bool {
	return slices.ContainsFunc(rt.Flat, func(fm FlatMatch) bool { return fm.Rule == rule && fm.Replaced != "" && len(fm.Via) == 0 })
}

// TestDelegationFindingsSayWhatTheRuleDoes: a finding on a delegating
// backendRef that keeps no child (GWP210, GWP211) ends with what its rule
// does as judged: it answers 500, unless its own match is one the
// controller leaves out (then its requests go to the next route), and a
// rule whose route no Gateway serves is said to do nothing.
func TestDelegationFindingsSayWhatTheRuleDoes(t *testing.T) {
	delegating := func(name, parentRefs, headers, to string) string {
		return httpRoute("infra", name, parentRefs+"  rules:\n  - matches: [{path: {type: PathPrefix, value: /p}"+headers+"}]\n"+
			"    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: "+to+"}]\n")
	}
	attached := "  parentRefs: [{name: gw}]\n"
	cases := []struct {
		name string
		docs []string
		code string
		want string // the message's end; "" for none of the three
	}{
		{name: "no child: the rule answers 500",
			docs: []string{delegating("api", attached, "", "nobody")}, code: LintDelegationToNothing.Code,
			want: "in the input; the rule answers 500"},
		{name: "no child and a match the controller drops: left out, not 500",
			docs: []string{delegating("api", attached, ", headers: [{name: bad, value: x}]", "nobody")}, code: LintDelegationToNothing.Code,
			want: "so it is left out of the Envoy config and its requests go to the next route that matches them"},
		{name: "a cycle: the rule answers 500",
			docs: []string{delegating("api", attached, "", "loop"), delegating("loop", "", "", "api")}, code: LintDelegationCycle.Code,
			want: "this backendRef is ignored; the rule answers 500"},
		{name: "a route no Gateway serves: nothing said of what the rule does",
			docs: []string{delegating("api", "", "", "nobody")}, code: LintDelegationToNothing.Code,
			want: "no HTTPRoute infra/nobody in the input"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := graph(t, Options{Delegation: servedRules, RuleChecks: []RuleCheck{{Check: servedCheck}}}, append([]string{gatewayInfra, svcInfra}, c.docs...)...)
			var got []string
			for _, d := range g.Diagnostics {
				if d.Code == c.code {
					got = append(got, d.Message)
				}
			}
			if len(got) != 1 || !strings.HasSuffix(got[0], c.want) {
				t.Errorf("%s findings %q, want one ending %q", c.code, got, c.want)
			}
		})
	}
}
