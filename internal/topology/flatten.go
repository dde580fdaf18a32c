package topology

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
)

// FlatMatch is one rule × match an HTTPRoute attached to a Gateway serves
// once its delegations are flattened (DelegationRules): a child rule
// appears under each parent match that keeps it, with the match it is
// served with there.
type FlatMatch struct {
	Route *Route // the route owning the rule: the root, or a delegated child
	Rule  *Rule
	// RuleIndex and MatchIndex number the rule and match among the rules
	// and matches kept under the parent match (a root keeps them all), as
	// the Envoy route's name numbers them.
	RuleIndex, MatchIndex int
	// Match is the match served: the rule's own, or combined with the
	// parent's (DelegationRules.Keep). A pointer into the rule's (or the
	// kept rule's) matches, not a copy: a FlatMatch is held per match of
	// every route for the run.
	Match *gwv1.HTTPRouteMatch
	// Delegates marks a delegating rule's own entry: it emits no Envoy
	// route but takes its place in the order.
	Delegates bool
	// Replaced says why a delegating entry answers 500 (a cycle, or no
	// child kept); "" when it delegates.
	Replaced string
	// Via are the delegating rules above, nearest first.
	Via []*Rule
	// Inherited are the Gateway API filters a delegated entry takes from
	// the delegating rules above it (DelegationRules.Inherits; see
	// served.go); nil for a rule served as written.
	Inherited []InheritedFilter
	// Problems are what the controllers cannot translate in the entry as
	// served: the rule's own (Rule.Problems) or those it takes from its
	// parents (Rule.ProblemsAlong), one per controller (Graph.ProblemOn
	// reads the one of a Gateway); nil for a delegating entry, which
	// emits no route of its own — unless it is Replaced, when it answers
	// itself with its own match (judgeReplaced).
	Problems RuleProblems
}

// childReach is the first parent match that reached a child, for messages.
type childReach struct {
	parent *Route
	match  gwv1.HTTPRouteMatch
}

// attachedToGateway reports whether a route is attached through one of its
// own parentRefs (a root of delegation, as opposed to a delegatee only).
func attachedToGateway(r *Route) bool {
	for _, p := range r.Parents {
		if p.Accepted && p.Delegation == nil {
			return true
		}
	}
	return false
}

// flattener walks one root route's delegation tree depth first; path holds
// the routes above the current one, so a child already on it is a cycle
// (a few routes deep: a list, not a map made for every root).
type flattener struct {
	g    *Graph
	path []*Route
	out  []FlatMatch
}

// flatten computes a root route's Flat list.
func (g *Graph) flatten(root *Route) {
	f := &flattener{g: g}
	rules := make([]KeptRule, 0, len(root.Rules))
	n := 0
	for _, rule := range root.Rules {
		rule.kept = true
		rules = append(rules, KeptRule{Rule: rule, Matches: RuleMatches(rule)})
		n += len(rules[len(rules)-1].Matches)
	}
	f.out = make([]FlatMatch, 0, n) // the root's own; delegations grow it
	f.route(root, rules, nil)
	root.Flat = f.out
}

// RuleMatches are an HTTPRoute rule's matches; none means one empty match
// (every path), as the API defaults it.
func RuleMatches(rule *Rule) []gwv1.HTTPRouteMatch {
	if rule.HTTP == nil || len(rule.HTTP.Matches) == 0 {
		return []gwv1.HTTPRouteMatch{{}}
	}
	return rule.HTTP.Matches
}

// route flattens one route's kept rules. A delegating match's children come
// before the rule's own entries: they are translated in its place, while
// the rule is.
func (f *flattener) route(rt *Route, rules []KeptRule, via []*Rule) {
	f.path = append(f.path, rt)
	defer func() { f.path = f.path[:len(f.path)-1] }()
	for i, kr := range rules {
		if !kr.Rule.IsDelegating() {
			// Nothing is flattened under its matches: they go straight
			// to the output (only a delegating rule's children must come
			// before its own entries).
			for mi := range kr.Matches {
				f.out = append(f.out, FlatMatch{Route: rt, Rule: kr.Rule, RuleIndex: i, MatchIndex: mi, Match: &kr.Matches[mi], Via: via})
			}
			continue
		}
		own := make([]FlatMatch, 0, len(kr.Matches))
		for mi := range kr.Matches {
			fm := FlatMatch{Route: rt, Rule: kr.Rule, RuleIndex: i, MatchIndex: mi, Match: &kr.Matches[mi], Via: via, Delegates: kr.Rule.IsDelegating()}
			if fm.Delegates {
				fm.Replaced = f.delegate(rt, kr.Rule, kr.Matches[mi], via)
			}
			own = append(own, fm)
		}
		f.out = append(f.out, own...)
	}
}

// delegate flattens the children a delegating rule match hands traffic to
// and returns why the match answers 500 instead ("" when it delegates).
func (f *flattener) delegate(parent *Route, rule *Rule, m gwv1.HTTPRouteMatch, via []*Rule) string {
	why := ""
	for _, b := range rule.Backends {
		if b.selector == nil {
			continue
		}
		var ds []*Delegation
		for _, d := range rule.Children {
			if d.Backend == b {
				ds = append(ds, d)
			}
		}
		switch {
		case len(ds) == 0: // selected nothing: reported when resolving
			why = cmp.Or(b.Why, "it selects no route")
		case f.cycle(ds) != nil:
			why = f.g.refuseCycle(parent, rule, b, f.cycle(ds))
		case !f.children(rule, ds, m, via):
			why = f.g.noneKept(parent, rule, b, ds, m)
		}
	}
	return why
}

// cycle is the first selected child already above in the walk.
func (f *flattener) cycle(ds []*Delegation) *Delegation {
	for _, d := range ds {
		if slices.Contains(f.path, d.Child) {
			return d
		}
	}
	return nil
}

// children flattens each selected child under the parent match: kept when
// the parent match keeps some of its rules (DelegationRules.Keep), refused
// when it cannot be delegated to (DelegationRules.Refuse). It reports
// whether any child was kept.
func (f *flattener) children(rule *Rule, ds []*Delegation, m gwv1.HTTPRouteMatch, via []*Rule) bool {
	kept := 0
	for _, d := range ds {
		rules := f.g.delegation.Keep(d.Child, m)
		if len(rules) == 0 {
			continue // nothing kept under the parent: the child is left out silently
		}
		if reason, msg, why := f.g.delegation.Refuse(d.Child); msg != "" {
			d.Invalid, d.InvalidReason, d.invalidWhy = msg, reason, why
			continue
		}
		d.Kept = true
		kept++
		d.Child.reachedAsChild = true
		if d.Child.firstReach == nil {
			d.Child.firstReach = &childReach{parent: d.Parent, match: m}
		}
		for _, kr := range rules {
			kr.Rule.kept = true
		}
		f.route(d.Child, rules, append([]*Rule{rule}, via...))
	}
	return kept > 0
}

// refuseCycle marks a delegating backendRef that leads back to a route
// above it (ResolvedRefs False with the controller's reason,
// DelegationRules.Unresolved; the match answers 500) and reports it once.
func (g *Graph) refuseCycle(parent *Route, rule *Rule, b *Backend, d *Delegation) string {
	b.Resolved, b.ClosesCycle = false, true
	b.Reason, b.Message = g.delegation.Unresolved(parent, b, d.Child)
	b.Why = fmt.Sprintf("it selects %s, which is already above it in the delegation chain (a cycle)", d.Child.Key().Ref())
	g.reportOnce(rule, b, diag.Diagnostic{Code: LintDelegationCycle.Code, Severity: diag.Error, Object: parent.Key().Ref(), Field: b.Path, Pos: parent.Src.FieldPos(b.Path),
		Message: fmt.Sprintf("delegation cycle: %s delegates to %s, which is already above it in the delegation chain; this backendRef is ignored", parent.Key().Ref(), d.Child.Key().Ref())})
	return b.Why
}

// noneKept marks a delegating backendRef whose selected routes all fall
// outside the parent match or refuse to be delegatees (ResolvedRefs False
// with the controller's reason, DelegationRules.Unresolved; the match
// answers 500).
func (g *Graph) noneKept(parent *Route, rule *Rule, b *Backend, ds []*Delegation, m gwv1.HTTPRouteMatch) string {
	b.Resolved, b.ClosesCycle = false, false
	b.Reason, b.Message = g.delegation.Unresolved(parent, b, nil)
	var names, invalid []string
	for _, d := range ds {
		names = append(names, d.Child.Key().Ref().String())
		if d.Invalid != "" {
			invalid = append(invalid, d.Child.Key().Ref().String())
		}
	}
	b.Why = fmt.Sprintf("no rule of %s matches within the parent's match (%s)", strings.Join(names, ", "), describeMatch(m))
	if len(invalid) > 0 {
		b.Why = strings.Join(invalid, ", ") + " " + ds[0].invalidWhy
	}
	g.reportOnce(rule, b, diag.Diagnostic{Code: LintDelegationToNothing.Code, Severity: diag.Error, Object: parent.Key().Ref(), Field: b.Path, Pos: parent.Src.FieldPos(b.Path),
		Message: "backendRef delegates to no route: " + b.Why})
	return b.Why
}

// reportOnce adds a backendRef's delegation finding the first time a walk
// makes it (a subtree under several parents is walked once per parent).
func (g *Graph) reportOnce(rule *Rule, b *Backend, d diag.Diagnostic) {
	if g.reportedDelegation == nil {
		g.reportedDelegation = map[*Backend]bool{}
	}
	if g.reportedDelegation[b] {
		return
	}
	g.reportedDelegation[b] = true
	g.reportDelegation(rule, d)
}

// reportUnserved warns about the rules of delegated children that no
// parent kept: their matches fall outside every delegating parent's.
func (g *Graph) reportUnserved() {
	for _, r := range g.Routes {
		if !r.reachedAsChild {
			continue
		}
		for _, rule := range r.Rules {
			if rule.kept {
				continue
			}
			via := r.firstReach
			g.Diagnostics = append(g.Diagnostics, diag.Diagnostic{Code: LintDelegatedRouteOutsideParent.Code, Severity: diag.Warning, Object: r.Key().Ref(), Field: rule.Path + ".matches", Pos: r.Src.FieldPos(rule.Path + ".matches"),
				Message: fmt.Sprintf("rule %s of %s matches outside its parent %s (%s); that rule is not served — %s", rule.Section(), r.Key().Ref(), via.parent.Key().Ref(), describeMatch(via.match), g.widen())})
		}
	}
}

// widen is what a finding about a child rule outside its parent asks for.
func (g *Graph) widen() string {
	if w := g.delegation.Widen; w != "" {
		return "narrow its match or " + w
	}
	return "narrow its match"
}

// describeMatch names a parent match for messages.
func describeMatch(m gwv1.HTTPRouteMatch) string {
	t, v := PathOf(m.Path)
	kind := "prefix "
	switch t {
	case gwv1.PathMatchExact:
		kind = "exact path "
	case gwv1.PathMatchRegularExpression:
		kind = "regular expression "
	}
	parts := []string{kind + v}
	for _, h := range m.Headers {
		parts = append(parts, "header "+string(h.Name))
	}
	for _, q := range m.QueryParams {
		parts = append(parts, "query "+string(q.Name))
	}
	if m.Method != nil {
		parts = append(parts, "method "+string(*m.Method))
	}
	return strings.Join(parts, ", ")
}

// PathOf is a path match's type and value, PathPrefix "/" where unset.
// The HTTPRoute CRD defaults both (and a rule's matches to one such
// match), which the API server writes and the model decodes, so a route
// checked against the shipped CRD never reaches the fallback; a route
// whose HTTPRoute CRD comes from --crds or the input without those
// defaults does, and is read as the controllers' translators read an
// absent path type, PathPrefix.
func PathOf(p *gwv1.HTTPPathMatch) (gwv1.PathMatchType, string) {
	t, v := gwv1.PathMatchPathPrefix, "/"
	if p != nil && p.Type != nil {
		t = *p.Type
	}
	if p != nil && p.Value != nil {
		v = *p.Value
	}
	return t, v
}
