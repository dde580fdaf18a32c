package merge

import (
	"slices"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// inherit folds the policies of a child route's delegating parents into the
// child rule's points, level by level (parent, then grandparent), each with
// the strategy its parent route asks for (policy.Inheritor: the kind reads
// it off the parent route). It is the merge a rule is explained and
// reported with where no parent path is given (RulePoints.Own): of several
// parents that keep the child, the first delegation in key order (a parent
// whose match the child falls outside does not serve it). Render, and the
// views that take a path, use each path's own merge (RulePoints.Paths):
// each flattened copy of a child rule (topology.FlatMatch) merges with its
// own parents'.
func (r *Result) inherit(rt *topology.Route, own Points, cfg policy.Config, seen map[*topology.Route]bool) Points {
	var d *topology.Delegation
	for _, x := range rt.DelegatedBy {
		if x.Kept && (d == nil || x.Parent.Key().Compare(d.Parent.Key()) < 0) {
			d = x
		}
	}
	if d == nil {
		return own // no parent serves it
	}
	if seen[d.Parent] {
		return own // a cycle, reported by topology
	}
	seen[d.Parent] = true
	return r.inherit(d.Parent, r.foldParent(own, d.Parent, d.Rule, cfg), cfg, seen)
}

// inheritStrategy asks the kind how a parent route's policies combine with
// its children's; kinds without an opinion let the child win.
func inheritStrategy(k policy.Kind, parent *topology.Route) policy.Strategy {
	if in, ok := k.(policy.Inheritor); ok {
		return in.InheritStrategy(parent.Meta.Annotations)
	}
	return policy.AugmentedShallow
}

// fold merges a parent level into a child's result for one kind: the
// policies' results level by level, and the rules' own values level by
// level, then lays the rules' values over the policies' as one point does
// (layer): every level's own rule fields come before any policy, so a
// parent rule's own retry still beats a child's policy.
func fold(k policy.Kind, child, parent *Point, s policy.Strategy) *Point {
	out := &Point{Kind: k, Candidates: slices.Concat(child.Candidates, parent.Candidates), Invalid: slices.Concat(child.Invalid, parent.Invalid),
		Ties: slices.Concat(child.Ties, parent.Ties)}
	out.Reported = foldFields(k, child.Reported, parent.Reported, s)
	out.Rule = foldFields(k, child.Rule, parent.Rule, s)
	out.layer()
	return out
}

// foldFields folds one side (policies or rules' own values) of a parent
// level into a child's.
func foldFields(k policy.Kind, child, parent []*Field, s policy.Strategy) []*Field {
	var out []*Field
	for _, fs := range k.Spec().Fields {
		cf, pf := fieldOf(child, fs.Key), fieldOf(parent, fs.Key)
		switch {
		case cf == nil && pf == nil:
			continue
		case pf == nil:
			out = append(out, cf)
			continue
		case cf == nil:
			out = append(out, pf)
			continue
		}
		st := s
		if !fs.Deep {
			st = map[policy.Strategy]policy.Strategy{policy.AugmentedDeep: policy.AugmentedShallow, policy.OverridableDeep: policy.OverridableShallow}[s]
			if st == "" {
				st = s
			}
		}
		out = append(out, foldField(k, cf, pf, st))
	}
	return out
}

func foldField(k policy.Kind, c, p *Field, s policy.Strategy) *Field {
	f := &Field{Key: c.Key, Strategy: s}
	if s == policy.AugmentedDeep || s == policy.OverridableDeep {
		// the child's result is merged first: a parent's value for an
		// instance the child configures is not merged (oncePerInstance)
		var reset bool
		if p, reset = dropMergedInstances(k, c, p); reset {
			// a value of the parent's resets the field: the child's
			// values merged before it lose it
			c = &Field{Key: c.Key, Strategy: c.Strategy, Losers: slices.Concat(c.Losers, c.Contributors)}
		}
	}
	switch s {
	case policy.OverridableShallow:
		f.Contributors, f.Values = p.Contributors, p.Values
		f.Losers = slices.Concat(p.Losers, c.Contributors, c.Losers)
	case policy.AugmentedDeep:
		f.Contributors, f.Values = slices.Concat(c.Contributors, p.Contributors), slices.Concat(c.Values, p.Values)
		f.Losers = slices.Concat(c.Losers, p.Losers)
	case policy.OverridableDeep:
		f.Contributors, f.Values = slices.Concat(p.Contributors, c.Contributors), slices.Concat(p.Values, c.Values)
		f.Losers = slices.Concat(p.Losers, c.Losers)
	default: // AugmentedShallow: the child keeps what it set
		f.Contributors, f.Values = c.Contributors, c.Values
		f.Losers = slices.Concat(c.Losers, p.Contributors, p.Losers)
	}
	f.Owner = f.Contributors[0]
	return f
}
