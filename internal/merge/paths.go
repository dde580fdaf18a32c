package merge

import (
	"cmp"
	"slices"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// RulePath is one way a delegated child rule is served: through a chain
// of delegating parent rules (topology.FlatMatch.Via, nearest first; empty
// when the rule's route is also attached to a listener on its own). A
// child is flattened once per parent path (topology.Route.Flat) and each
// copy inherits the policies of its own parents, so a child delegated by
// two parents merges twice: Own is the merge along this path.
type RulePath struct {
	Via []*topology.Rule
	Own Points
}

// PathOf is the path a rule is served through along via (nil when the rule
// has no paths: it is not delegated, and Own is its only merge).
func (rp *RulePoints) PathOf(via []*topology.Rule) *RulePath {
	if rp == nil {
		return nil
	}
	for _, p := range rp.Paths {
		if slices.Equal(p.Via, via) {
			return p
		}
	}
	return nil
}

// ProblemOf is what the controller managing gw (nil: the default one)
// cannot translate in the rule's copy served along path
// (topology.Rule.ProblemsAlong: it may come from the path's parents); a
// nil path is the rule as written (Rule.Problems). Each controller's
// problems hold on its own Gateways (topology.Graph.ProblemOn).
func (r *Result) ProblemOf(rule *topology.Rule, path *RulePath, gw *topology.Gateway) *topology.RuleProblem {
	var via []*topology.Rule
	if path != nil {
		via = path.Via
	}
	return r.Graph.RuleProblemOn(rule, via, gw)
}

// SkipsOf is what the controller managing gw does not apply of the rule's
// copy served along path while it serves the rest (header operations:
// topology.Graph.RuleSkipsOn), nil when it applies everything.
func (r *Result) SkipsOf(rule *topology.Rule, path *RulePath, gw *topology.Gateway) *topology.RuleProblem {
	var via []*topology.Rule
	if path != nil {
		via = path.Via
	}
	return r.Graph.RuleSkipsOn(rule, via, gw)
}

// Served are the merges a rule takes effect with: one per parent path for
// a delegated child (Paths), else its own (Own, as a path without parents).
func (rp *RulePoints) Served() []*RulePath {
	if len(rp.Paths) > 0 {
		return rp.Paths
	}
	return []*RulePath{{Own: rp.Own}}
}

// computePaths gives every rule served through delegation one merge per
// parent path, from the flattened trees of the routes attached to
// listeners (each served path appears there): the rule's own group folded
// with each delegating parent's along the path, nearest first, each with
// the strategy its parent route asks for.
func (r *Result) computePaths(cfg policy.Config) {
	delegated := map[*topology.Rule]bool{}
	for _, rt := range r.Graph.Routes {
		for _, fm := range rt.Flat {
			if len(fm.Via) > 0 {
				delegated[fm.Rule] = true
			}
		}
	}
	if len(delegated) == 0 {
		return // no delegation: every rule merges once (Own)
	}
	routeOf := map[*topology.Rule]*topology.Route{}
	for _, rt := range r.Graph.Routes {
		for _, rule := range rt.Rules {
			routeOf[rule] = rt
		}
	}
	for _, rt := range r.Graph.Routes {
		for _, fm := range rt.Flat {
			rp := r.rules[fm.Rule]
			if rp == nil || !delegated[fm.Rule] || rp.PathOf(fm.Via) != nil {
				continue
			}
			own := r.ruleOwn(fm.Route, fm.Rule, cfg)
			for _, parent := range fm.Via {
				own = r.foldParent(own, routeOf[parent], parent, cfg)
			}
			rp.Paths = append(rp.Paths, &RulePath{Via: fm.Via, Own: own})
		}
	}
	for rule := range delegated {
		if rp := r.rules[rule]; rp != nil {
			slices.SortStableFunc(rp.Paths, func(a, b *RulePath) int { return compareVia(routeOf, a.Via, b.Via) })
		}
	}
}

// compareVia orders parent paths as the single inheritance used to pick
// one (the nearest parent's route key, then its rule, then the next
// level's), a path without parents first.
func compareVia(routeOf map[*topology.Rule]*topology.Route, a, b []*topology.Rule) int {
	for i := range min(len(a), len(b)) {
		ra, rb := routeOf[a[i]], routeOf[b[i]]
		if ra != rb && ra != nil && rb != nil {
			return ra.Key().Compare(rb.Key())
		}
		if c := cmp.Compare(a[i].Index, b[i].Index); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// foldParent folds one delegating parent rule's own group into a child's
// result (see inherit).
func (r *Result) foldParent(own Points, parentRoute *topology.Route, parentRule *topology.Rule, cfg policy.Config) Points {
	if parentRoute == nil {
		return own
	}
	parent := r.ruleOwn(parentRoute, parentRule, cfg)
	desc := parentRoute.Meta.Namespace + "/" + parentRoute.Meta.Name + " rule " + parentRule.Section()
	for _, pt := range parent {
		for _, c := range slices.Concat(pt.Candidates, pt.Invalid) {
			c.Level, c.Parent = LevelParentRoute, desc
		}
		for _, f := range pt.Rule {
			f.Owner.Level, f.Owner.Parent = LevelParentRoute, desc
		}
	}
	var out Points
	for _, k := range r.Registry.Kinds() {
		c, p := own.Of(k), parent.Of(k)
		switch {
		case c == nil && p == nil:
			continue
		case p == nil:
			out = append(out, c)
		case c == nil:
			out = append(out, p)
		default:
			out = append(out, fold(k, c, p, inheritStrategy(k, parentRoute)))
		}
	}
	return out
}

// PathsThrough are the paths a rule is served through that reach it via
// one of its route's parents: for a delegated parent, those whose nearest
// delegating rule is that parent's; for one of the route's own
// parentRefs, the path without parents. A rule without paths (not
// delegated), or no path matching, gives one nil path: its Own merge.
func (rp *RulePoints) PathsThrough(p *topology.Parent) []*RulePath {
	var out []*RulePath
	if rp != nil {
		for _, path := range rp.Paths {
			if p.Delegation == nil && len(path.Via) == 0 || p.Delegation != nil && len(path.Via) > 0 && path.Via[0] == p.Delegation.Rule {
				out = append(out, path)
			}
		}
	}
	if len(out) == 0 {
		return []*RulePath{nil}
	}
	return out
}
