package topology

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
)

// FlatMatch is one rule × match an HTTPRoute attached to a Gateway serves
// once its delegations are flattened, as kgateway translates it: a child
// rule appears under each parent match that keeps it, with the match it is
// served with there.
type FlatMatch struct {
	Route *Route // the route owning the rule: the root, or a delegated child
	Rule  *Rule
	// RuleIndex and MatchIndex number the rule and match as kgateway
	// names the Envoy route: among the rules and matches kept under the
	// parent match (a root keeps them all).
	RuleIndex, MatchIndex int
	// Match is the match served: the rule's own, or merged with the
	// parent's when the child inherits the parent's matcher.
	Match gwv1.HTTPRouteMatch
	// Delegates marks a delegating rule's own entry: it emits no Envoy
	// route but takes its place in the order.
	Delegates bool
	// Replaced says why a delegating entry answers 500 (a cycle, or no
	// child kept); "" when it delegates.
	Replaced string
	// Via are the delegating rules above, nearest first.
	Via []*Rule
}

// keptRule is a child rule with the matches a parent match keeps.
type keptRule struct {
	rule    *Rule
	matches []gwv1.HTTPRouteMatch
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
// the routes above the current one, so a child already on it is a cycle.
type flattener struct {
	g    *Graph
	path map[*Route]bool
	out  []FlatMatch
}

// flatten computes a root route's Flat list.
func (g *Graph) flatten(root *Route) {
	f := &flattener{g: g, path: map[*Route]bool{}}
	rules := make([]keptRule, 0, len(root.Rules))
	n := 0
	for _, rule := range root.Rules {
		rule.kept = true
		rules = append(rules, keptRule{rule: rule, matches: ownMatches(rule)})
		n += len(rules[len(rules)-1].matches)
	}
	f.out = make([]FlatMatch, 0, n) // the root's own; delegations grow it
	f.route(root, rules, nil)
	root.Flat = f.out
}

// ownMatches are a rule's matches; none means one empty match (every path).
func ownMatches(rule *Rule) []gwv1.HTTPRouteMatch {
	if rule.HTTP == nil || len(rule.HTTP.Matches) == 0 {
		return []gwv1.HTTPRouteMatch{{}}
	}
	return rule.HTTP.Matches
}

// route flattens one route's kept rules. A delegating match's children come
// before the rule's own entries, as kgateway appends them while
// translating the rule.
func (f *flattener) route(rt *Route, rules []keptRule, via []*Rule) {
	f.path[rt] = true
	defer delete(f.path, rt)
	for i, kr := range rules {
		if !kr.rule.IsDelegating() {
			// Nothing is flattened under its matches: they go straight
			// to the output (only a delegating rule's children must come
			// before its own entries).
			for mi, m := range kr.matches {
				f.out = append(f.out, FlatMatch{Route: rt, Rule: kr.rule, RuleIndex: i, MatchIndex: mi, Match: m, Via: via})
			}
			continue
		}
		own := make([]FlatMatch, 0, len(kr.matches))
		for mi, m := range kr.matches {
			fm := FlatMatch{Route: rt, Rule: kr.rule, RuleIndex: i, MatchIndex: mi, Match: m, Via: via, Delegates: kr.rule.IsDelegating()}
			if fm.Delegates {
				fm.Replaced = f.delegate(rt, kr.rule, m, via)
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
		if !b.delegates {
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
			why = f.g.refuseCycle(parent, b, f.cycle(ds))
		case !f.children(rule, ds, m, via):
			why = f.g.noneKept(parent, b, ds, m)
		}
	}
	return why
}

// cycle is the first selected child already above in the walk.
func (f *flattener) cycle(ds []*Delegation) *Delegation {
	for _, d := range ds {
		if f.path[d.Child] {
			return d
		}
	}
	return nil
}

// children flattens each selected child under the parent match: kept when
// some of its rules match within it (or it inherits the parent's matcher),
// refused when it sets hostnames. It reports whether any child was kept.
func (f *flattener) children(rule *Rule, ds []*Delegation, m gwv1.HTTPRouteMatch, via []*Rule) bool {
	kept := 0
	for _, d := range ds {
		rules := keptRules(d.Child, m, f.g.inheritsMatcher(d.Child))
		if len(rules) == 0 {
			continue // nothing within the parent: kgateway drops the child silently
		}
		if len(d.Child.Hostnames) > 0 {
			d.Invalid = "spec.hostnames must be unset on a delegatee route as they are inherited from the parent route"
			continue
		}
		d.Kept = true
		kept++
		d.Child.reachedAsChild = true
		if d.Child.firstReach == nil {
			d.Child.firstReach = &childReach{parent: d.Parent, match: m}
		}
		for _, kr := range rules {
			kr.rule.kept = true
		}
		f.route(d.Child, rules, append([]*Rule{rule}, via...))
	}
	return kept > 0
}

// refuseCycle marks a delegating backendRef that leads back to a route
// above it (kgateway: ResolvedRefs False, RefNotPermitted; the match
// answers 500) and reports it once.
func (g *Graph) refuseCycle(parent *Route, b *Backend, d *Delegation) string {
	b.Resolved, b.Reason = false, "RefNotPermitted"
	b.Message = fmt.Sprintf("%s/%s/%s/%s: ignoring child route %s for parent %s: cyclic reference detected while evaluating delegated routes",
		b.Group, b.Kind, b.Namespace, b.Name, d.Child.Key().Ref(), parent.Key().Ref())
	b.Why = fmt.Sprintf("it selects %s, which is already above it in the delegation chain (a cycle)", d.Child.Key().Ref())
	g.reportOnce(b, diag.Diagnostic{Code: LintDelegationCycle.Code, Severity: diag.Error, Object: parent.Key().Ref(), Field: b.Path, Pos: parent.Src.FieldPos(b.Path),
		Message: fmt.Sprintf("delegation cycle: %s delegates to %s, which is already above it in the delegation chain; this backendRef is ignored and the rule answers 500", parent.Key().Ref(), d.Child.Key().Ref())})
	return b.Why
}

// noneKept marks a delegating backendRef whose selected routes all fall
// outside the parent match or refuse to be delegatees (kgateway:
// BackendNotFound, unresolved reference; the match answers 500).
func (g *Graph) noneKept(parent *Route, b *Backend, ds []*Delegation, m gwv1.HTTPRouteMatch) string {
	b.Resolved, b.Reason = false, "BackendNotFound"
	b.Message = fmt.Sprintf("%s/%s/%s/%s: unresolved reference", b.Group, b.Kind, b.Namespace, b.Name)
	var names, invalid []string
	for _, d := range ds {
		names = append(names, d.Child.Key().Ref().String())
		if d.Invalid != "" {
			invalid = append(invalid, d.Child.Key().Ref().String())
		}
	}
	b.Why = fmt.Sprintf("no rule of %s matches within the parent's match (%s)", strings.Join(names, ", "), describeMatch(m))
	if len(invalid) > 0 {
		b.Why = fmt.Sprintf("%s set spec.hostnames, which a delegatee inherits from its parent", strings.Join(invalid, ", "))
	}
	g.reportOnce(b, diag.Diagnostic{Code: LintDelegationToNothing.Code, Severity: diag.Error, Object: parent.Key().Ref(), Field: b.Path, Pos: parent.Src.FieldPos(b.Path),
		Message: fmt.Sprintf("backendRef delegates to no route: %s; the rule answers 500", b.Why)})
	return b.Why
}

// reportOnce adds a backendRef's delegation finding the first time a walk
// makes it (a subtree under several parents is walked once per parent).
func (g *Graph) reportOnce(b *Backend, d diag.Diagnostic) {
	if g.reportedDelegation == nil {
		g.reportedDelegation = map[*Backend]bool{}
	}
	if g.reportedDelegation[b] {
		return
	}
	g.reportedDelegation[b] = true
	g.Diagnostics = append(g.Diagnostics, d)
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
				Message: fmt.Sprintf("rule %s of %s matches outside its parent %s (%s); that rule is not served — narrow its match or set %s: \"true\"", rule.Section(), r.Key().Ref(), via.parent.Key().Ref(), describeMatch(via.match), g.keys.InheritParentMatcher)})
		}
	}
}

// describeMatch names a parent match for messages.
func describeMatch(m gwv1.HTTPRouteMatch) string {
	_, v := pathOf(m.Path)
	parts := []string{"prefix " + v}
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

// keptRules are the rules of a child kgateway keeps under a parent match,
// each with the matches it keeps, merged with the parent's when the child
// inherits the parent's matcher; a rule keeping no match is dropped.
func keptRules(child *Route, parent gwv1.HTTPRouteMatch, inherit bool) []keptRule {
	var out []keptRule
	for _, rule := range child.Rules {
		if rule.HTTP == nil {
			continue
		}
		var ms []gwv1.HTTPRouteMatch
		own := rule.HTTP.Matches
		switch {
		case inherit && len(own) == 0:
			ms = append(ms, parent)
		case len(own) == 0:
			own = ownMatches(rule) // every path, as the API defaults it
		}
		for _, m := range own {
			switch {
			case inherit:
				ms = append(ms, inheritMatch(parent, m))
			case withinMatch(parent, m):
				ms = append(ms, m)
			}
		}
		if len(ms) > 0 {
			out = append(out, keptRule{rule: rule, matches: ms})
		}
	}
	return out
}

// withinMatch is kgateway's test for a child match under a parent match it
// does not inherit: the parent matches a path prefix the child's path
// starts with (as a string), and the child repeats every header and query
// param match of the parent, and its method if it has one. A match without
// a path matches the prefix "/", as the API defaults it.
func withinMatch(parent, child gwv1.HTTPRouteMatch) bool {
	pt, pv := pathOf(parent.Path)
	if pt != gwv1.PathMatchPathPrefix {
		return false
	}
	if _, cv := pathOf(child.Path); !strings.HasPrefix(cv, pv) {
		return false
	}
	if parent.Method != nil && (child.Method == nil || *child.Method != *parent.Method) {
		return false
	}
	return containsAll(child.Headers, parent.Headers, headerKey) && containsAll(child.QueryParams, parent.QueryParams, queryKey)
}

// pathOf is a path match with the API's defaults: PathPrefix "/".
func pathOf(p *gwv1.HTTPPathMatch) (gwv1.PathMatchType, string) {
	t, v := gwv1.PathMatchPathPrefix, "/"
	if p != nil && p.Type != nil {
		t = *p.Type
	}
	if p != nil && p.Value != nil {
		v = *p.Value
	}
	return t, v
}

func headerKey(h gwv1.HTTPHeaderMatch) string {
	t := gwv1.HeaderMatchExact
	if h.Type != nil {
		t = *h.Type
	}
	return string(h.Name) + "\x00" + string(t) + "\x00" + h.Value
}

func queryKey(q gwv1.HTTPQueryParamMatch) string {
	t := gwv1.QueryParamMatchExact
	if q.Type != nil {
		t = *q.Type
	}
	return string(q.Name) + "\x00" + string(t) + "\x00" + q.Value
}

// containsAll reports whether have holds every element of want.
func containsAll[T any](have, want []T, key func(T) string) bool {
	if len(want) == 0 {
		return true
	}
	set := make(map[string]bool, len(have))
	for _, h := range have {
		set[key(h)] = true
	}
	for _, w := range want {
		if !set[key(w)] {
			return false
		}
	}
	return true
}

// inheritMatch merges a parent match into a child's that inherits it: the
// paths joined (the child's type kept), headers and query params of both
// (the parent's winning a name both use, sorted by name), and the parent's
// method when it has one.
func inheritMatch(parent, child gwv1.HTTPRouteMatch) gwv1.HTTPRouteMatch {
	out := *child.DeepCopy()
	t, cv := gwv1.PathMatchPathPrefix, ""
	if child.Path != nil && child.Path.Type != nil {
		t = *child.Path.Type
	}
	if child.Path != nil && child.Path.Value != nil {
		cv = *child.Path.Value
	}
	pv := ""
	if parent.Path != nil && parent.Path.Value != nil {
		pv = *parent.Path.Value
	}
	joined := cmp.Or(path.Join(pv, cv), "/")
	out.Path = &gwv1.HTTPPathMatch{Type: &t, Value: &joined}
	out.Headers = mergeByName(parent.Headers, child.Headers, func(h gwv1.HTTPHeaderMatch) string { return string(h.Name) })
	out.QueryParams = mergeByName(parent.QueryParams, child.QueryParams, func(q gwv1.HTTPQueryParamMatch) string { return string(q.Name) })
	if parent.Method != nil {
		m := *parent.Method
		out.Method = &m
	}
	return out
}

// mergeByName is parent's elements and child's whose name parent does not
// use, sorted by name.
func mergeByName[T any](parent, child []T, name func(T) string) []T {
	if len(parent)+len(child) == 0 {
		return nil
	}
	seen := map[string]bool{}
	out := make([]T, 0, len(parent)+len(child))
	for _, x := range slices.Concat(parent, child) {
		if !seen[name(x)] {
			seen[name(x)] = true
			out = append(out, x)
		}
	}
	slices.SortStableFunc(out, func(a, b T) int { return cmp.Compare(name(a), name(b)) })
	return out
}
