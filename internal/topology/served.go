package topology

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/gwpol/gwpol/internal/diag"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// A delegated child rule is served, under each parent match that keeps
// it, with what it takes from its delegating parent rules: the match
// joined to the parent's (DelegationRules.Keep) and the filters it
// inherits (FlatMatch.Inherited, DelegationRules.Inherits). The controller translates and checks
// that entry, not the rule as written: a value the families' rule checks
// refuse may reach the child from its parent. What the controller makes
// of each flattened entry is decided here, once (FlatMatch.Problem), and
// every view reads it — render answers or leaves out that entry, status
// reports it on the child's parent entry for that delegation
// (Rule.ProblemUnder), explain, lint and the verdicts along that path
// (Rule.ProblemAlong). A delegating rule's own entry emits no route of
// its own (only its children's), so its filters and match are judged
// where they are served: on its children's entries (checkRule leaves a
// delegating rule alone).

// ServedProblem is the problems of a rule's copy served along a chain of
// delegating parent rules (nearest first) when they are not the rule's
// own.
type ServedProblem struct {
	Via      []*Rule
	Problems RuleProblems
}

// ProblemsAlong are the problems of the rule's copy served along via (the
// delegating parent rules above it, nearest first; topology.FlatMatch.
// Via): what it inherits there, or else its own (Rule.Problems).
func (r *Rule) ProblemsAlong(via []*Rule) RuleProblems {
	if len(via) > 0 {
		for _, s := range r.served {
			if slices.Equal(s.Via, via) {
				return s.Problems
			}
		}
	}
	return r.Problems
}

// ProblemUnder is the problem status reports for the rule on one of its
// route's parents: under a delegating parent, the first of the copies
// served through that parent's rule; under a parentRef of its own, the
// rule's own; of those, the one that holds on the parent's Gateway
// (ProblemOn).
func (g *Graph) ProblemUnder(r *Rule, p *Parent) *RuleProblem {
	var gw *Gateway
	if p != nil {
		gw = p.Gateway
	}
	if p != nil && p.Delegation != nil {
		for _, s := range r.served {
			if s.Via[0] == p.Delegation.Rule {
				return g.ProblemOn(s.Problems, gw)
			}
		}
	}
	return g.ProblemOn(r.Problems, gw)
}

// judgeServed decides the problems of each entry of a root route's
// flattened tree (FlatMatch.Problems, FlatMatch.Inherited). As a rule's own
// problem is the whole rule's (any of its matches), a copy's is the whole
// copy's: every entry of a rule under the same parent rules takes the
// first problem each controller finds among them, so render, status and
// explain — which look at a rule along one path — say the same.
func (g *Graph) judgeServed(root *Route) {
	judged := false
	for i := range root.Flat {
		fm := &root.Flat[i]
		if fm.Delegates {
			// No route of its own (judged on its children's entries),
			// unless its delegation could not be flattened: then it
			// answers itself with its own match (FlatMatch.Replaced).
			if fm.Replaced != "" && g.judgeReplaced(root, fm) {
				judged = true
			}
			continue
		}
		fm.Problems = fm.Rule.Problems
		if len(fm.Via) == 0 || fm.Rule.HTTP == nil {
			continue
		}
		if g.delegation.Inherits != nil {
			fm.Inherited = g.delegation.Inherits(fm.Route, fm.Rule, fm.Via)
		}
		if len(fm.Problems) == len(g.ruleChecks) || len(fm.Inherited) == 0 && ownMatch(fm.Rule, *fm.Match) {
			continue // served as written (or every controller refuses it as written): the rule's own verdict
		}
		if ps, added := g.checkServed(fm); len(added) > 0 && fm.Rule.recordServed(fm.Via, ps) {
			for _, p := range g.heldOn(root, added) {
				g.Diagnostics = append(g.Diagnostics, inheritedNotProgrammed(fm, p))
			}
			judged = true
		}
	}
	if !judged {
		return
	}
	for i := range root.Flat {
		if fm := &root.Flat[i]; !fm.Delegates && len(fm.Via) > 0 {
			fm.Problems = fm.Rule.ProblemsAlong(fm.Via)
		}
	}
}

// judgeReplaced decides the problems of a delegating entry topology could
// not flatten (a cycle, no child kept): it is served as a route of its
// own, its match and filters as written and those it inherits, so the
// controllers' rule checks judge it as they judge any served entry — a
// match no Envoy matcher carries leaves it out rather than reaching the
// config. Under a parentRef of its own the problems are the rule's
// (Rule.Problems, which status reads); under delegating parents, its copy
// there (Rule.ProblemsAlong). It reports whether a delegated copy was
// judged.
func (g *Graph) judgeReplaced(root *Route, fm *FlatMatch) bool {
	if fm.Rule.HTTP == nil || len(g.ruleChecks) == 0 {
		return false
	}
	if len(fm.Via) > 0 && g.delegation.Inherits != nil {
		fm.Inherited = g.delegation.Inherits(fm.Route, fm.Rule, fm.Via)
	}
	ps, added := g.checkServed(fm)
	if len(ps) == 0 {
		return false
	}
	fm.Problems = ps
	if len(fm.Via) == 0 {
		if len(added) > 0 {
			fm.Rule.Problems = ps
			for _, p := range g.heldOn(fm.Route, added) {
				g.Diagnostics = append(g.Diagnostics, notProgrammed(fm.Route, fm.Rule.Rule, p))
			}
		}
		return false
	}
	if len(added) > 0 && fm.Rule.recordServed(fm.Via, ps) {
		for _, p := range g.heldOn(root, added) {
			g.Diagnostics = append(g.Diagnostics, inheritedNotProgrammed(fm, p))
		}
	}
	return true
}

// ownMatch reports whether m is one of the rule's own matches, as written.
func ownMatch(rule *Rule, m gwv1.HTTPRouteMatch) bool {
	return slices.ContainsFunc(RuleMatches(rule), func(own gwv1.HTTPRouteMatch) bool { return reflect.DeepEqual(own, m) })
}

// checkServed runs the controllers' rule checks on a flattened entry as
// it is served: the child rule with its match as served and its own and
// inherited filters, on the child's route. A controller's problem with
// the rule as written stands (it is the whole rule's); the others' checks
// judge the copy. It returns the copy's problems, in check order, and
// those of them that are not the rule's own.
func (g *Graph) checkServed(fm *FlatMatch) (all, added RuleProblems) {
	h := *fm.Rule.HTTP
	h.Matches = []gwv1.HTTPRouteMatch{*fm.Match}
	h.Filters = slices.Clip(h.Filters)
	for _, f := range fm.Inherited {
		if f.Session == nil {
			h.Filters = append(h.Filters, f.Filter)
		}
	}
	mr := *fm.Rule.Rule
	mr.HTTP = &h
	served := &Rule{Rule: &mr, Backends: fm.Rule.Backends, Mirrors: fm.Rule.Mirrors}
	for _, c := range g.ruleChecks {
		if own := fm.Rule.Problems.of(c.Controller); own != nil {
			all = append(all, own)
			continue
		}
		if p := c.Check(fm.Route, served); p != nil {
			p.Controller = c.Controller
			all = append(all, p)
			added = append(added, p)
		}
	}
	return all, added
}

// recordServed keeps the problems of the rule's copy along via, the first
// found for it; it reports whether they are new.
func (r *Rule) recordServed(via []*Rule, ps RuleProblems) bool {
	for _, s := range r.served {
		if slices.Equal(s.Via, via) {
			return false
		}
	}
	r.served = append(r.served, ServedProblem{Via: via, Problems: ps})
	return true
}

// inheritedNotProgrammed is the finding for a delegated child rule whose
// copy under a parent cannot be translated as served, at the child's rule
// (where the controller reports it), naming the parent it comes from.
func inheritedNotProgrammed(fm *FlatMatch, p *RuleProblem) diag.Diagnostic {
	what := "it is replaced there by a direct response answering 500 (Programmed False)"
	if p.Dropped {
		what = "it is left out there, so its requests go to the next route that matches them (Programmed False)"
	}
	if p.Outcome != "" {
		what = p.Outcome
	}
	parent := fm.Via[0]
	mr := fm.Rule.Rule
	sev := LintRuleNotProgrammed.Severity
	if p.serves() {
		sev = diag.Warning
	}
	return diag.Diagnostic{Code: LintRuleNotProgrammed.Code, Severity: sev, Object: fm.Route.Key().Ref(), Field: mr.Path, Pos: fm.Route.Src.FieldPos(mr.Path),
		Message: fmt.Sprintf("rule %s, as served under the delegating rule %s of %s (with the match and filters it inherits there): %s; %s — fix the value in the parent",
			mr.Section(), parent.Section(), parentRouteOf(fm, parent), p.Message, what)}
}

// parentRouteOf names the route of a delegating parent rule above an
// entry.
func parentRouteOf(fm *FlatMatch, parent *Rule) string {
	for _, d := range parent.Children {
		if d.Child == fm.Route {
			return d.Parent.Key().Ref().String()
		}
	}
	return "its parent"
}

// delegationFinding is a finding on a delegating backendRef of rule,
// g.Diagnostics[at], whose consequence for the rule is worded once the
// rule's entries are judged.
type delegationFinding struct {
	at   int
	rule *Rule
}

// reportDelegation adds a finding on a delegating backendRef of rule; its
// message gets what the rule then does (wordDelegationFindings).
func (g *Graph) reportDelegation(rule *Rule, d diag.Diagnostic) {
	g.delegationFindings = append(g.delegationFindings, delegationFinding{at: len(g.Diagnostics), rule: rule})
	g.Diagnostics = append(g.Diagnostics, d)
}

// wordDelegationFindings ends each delegation finding with what its rule
// does, as judged (judgeReplaced): where it is served it answers 500,
// unless its own match is one the controller leaves out (GWP212 at the
// rule), when its requests go to the next route. A rule served nowhere (its
// route attached to no Gateway, GWP204) gets no consequence: it has none.
func (g *Graph) wordDelegationFindings() {
	if len(g.delegationFindings) == 0 {
		return
	}
	type fate struct{ answers, dropped bool }
	fates := make(map[*Rule]*fate, len(g.delegationFindings))
	for _, f := range g.delegationFindings {
		fates[f.rule] = &fate{}
	}
	for _, r := range g.Routes {
		for i := range r.Flat {
			fm := &r.Flat[i]
			if ft := fates[fm.Rule]; ft != nil && fm.Replaced != "" {
				if p := g.problemOnRoute(r, fm.Problems); p != nil && p.Dropped {
					ft.dropped = true
				} else {
					ft.answers = true
				}
			}
		}
	}
	for _, f := range g.delegationFindings {
		d := &g.Diagnostics[f.at]
		switch ft := fates[f.rule]; {
		case ft.answers && ft.dropped:
			d.Message += "; the rule answers 500 where it is served, and is left out of the Envoy config where its match is invalid (" + LintRuleNotProgrammed.Code + ")"
		case ft.answers:
			d.Message += "; the rule answers 500"
		case ft.dropped:
			d.Message += "; the rule's own match is invalid (" + LintRuleNotProgrammed.Code + "), so it is left out of the Envoy config and its requests go to the next route that matches them"
		}
	}
	g.delegationFindings = nil
}
