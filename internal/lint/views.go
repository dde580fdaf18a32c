package lint

import (
	"fmt"
	"sync"

	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/parallel"
	"github.com/gwpol/gwpol/internal/policy"
)

// ruleViews is what two rules find in every route rule's view on every
// listener it is served through: the fields a route-level policy hides
// (shadowed, GWP304) and the merging policies in effect alone
// (mergedIntoNothing, GWP405). Both read the points of the kinds that
// override whole (merge.Result.RoutedOn), the costliest part of a view,
// so one walk computes them once for both.
type ruleViews struct {
	once sync.Once
	// shadow, merges and cross are per route of Result.Routes, in the
	// order the route's views were walked.
	shadow [][]fieldHit
	merges [][]mergeHit
	cross  [][]fieldHit
	// cluster are the fields whose cluster settings the rule's route on
	// another listener replaces (merge.ClusterShape, GWP308).
	cluster [][]fieldHit
}

// fieldHit is a policy's field that does not take effect at one place:
// hidden on a route rule (GWP304), overridden by another family's kind
// (merge.PathOverride, GWP307) or off the rule's cluster (GWP308), desc
// naming the place (and the winner).
type fieldHit struct {
	k    shadowKey
	desc string
}

type shadowKey struct {
	p     *policy.Policy
	field string
}

// mergeHit is a merging policy in effect alone at a route rule (place).
type mergeHit struct {
	p     *policy.Policy
	place string
}

// views walks every route's rule views once, in parallel (they are most
// of lint's own time on a large platform).
func (in *Input) views() *ruleViews {
	v := &in.ruleViews
	v.once.Do(func() {
		res := in.Result
		v.shadow = make([][]fieldHit, len(res.Routes))
		v.merges = make([][]mergeHit, len(res.Routes))
		v.cross = make([][]fieldHit, len(res.Routes))
		v.cluster = make([][]fieldHit, len(res.Routes))
		parallel.Each(len(res.Routes), func(i int) {
			v.shadow[i], v.merges[i], v.cross[i], v.cluster[i] = routeViews(res, res.Routes[i])
		})
	})
	return v
}

// routeViews is one route's share of ruleViews. A view's routed points
// are computed only when one of the two rules can find something in it
// (merge.Result.MayShadowOn, MayMergeOn): most rules hide nothing and
// have no merging policy. The effective view is built only when the
// routed points still leave room for a shadowed own field
// (MayShadowFrom): with a kind that overrides whole, MayShadowOn says
// yes on every rule its Gateway's policy reaches.
//
// With policies of several families' kinds in the input
// (merge.Result.MultiFamily), every view is built: its fields another
// family's kind overrides are GWP307's. So is the view of a rule whose
// route on another listener shaped its cluster (merge.Result.RuleClusterFrom):
// its fields whose settings are not on that cluster are GWP308's.
func routeViews(res *merge.Result, rp *merge.RoutePoints) (shadow []fieldHit, merges []mergeHit, cross, cluster []fieldHit) {
	several := res.MultiFamily()
	for _, parent := range rp.Route.Parents {
		for _, l := range parent.Listeners {
			for _, rule := range rp.Rules {
				for _, path := range rule.PathsThrough(parent) {
					mayShadow := res.MayShadowOn(rule.Rule, path, l)
					mayMerge := res.MayMergeOn(rule.Rule, path, l)
					shaped := res.RuleClusterFrom(rule.Rule, path, l) != nil
					if !mayShadow && !mayMerge && !several && !shaped {
						continue
					}
					routed := res.RoutedOn(rule.Rule, path, l)
					place := rp.Route.Kind + " " + rp.Route.Meta.Namespace + "/" + rp.Route.Meta.Name + " rule " + rule.Rule.Section()
					var view []merge.EffectiveField
					if several || shaped || mayShadow && res.MayShadowFrom(rule.Rule, path, l, routed) {
						view = res.EffectiveFrom(rule.Rule, path, l, routed)
					}
					if shaped {
						cluster = appendClusterLost(cluster, view, place+" on listener "+l.ID())
					}
					if mayShadow && res.MayShadowFrom(rule.Rule, path, l, routed) {
						shadow = appendShadowed(shadow, view, place)
					}
					if mayMerge {
						merges = appendMergedAlone(merges, routed, place)
					}
					if several {
						cross = appendOverridden(cross, view, place+" on listener "+l.ID())
					}
				}
			}
		}
	}
	return shadow, merges, cross, cluster
}

// appendClusterLost adds the fields of a view whose settings on the
// route's cluster are not theirs: the rule's route on another listener
// shaped the rule's one cluster (merge.EffectiveField.ClusterFrom) — the
// fields that set something there (policy.ClusterSetter), of policies.
func appendClusterLost(hits []fieldHit, view []merge.EffectiveField, place string) []fieldHit {
	for _, e := range view {
		c := e.ClusterFrom
		if c == nil || e.ClusterOnly || e.OverriddenBy != nil || e.Field.Owner.IsBuiltIn() {
			continue
		}
		if cs, ok := e.Kind.(policy.ClusterSetter); ok && !cs.SetsCluster(e.Key, e.Field.Values) {
			continue // its value is the route's alone
		}
		there := "without this field"
		if c.Field != nil {
			there = "with this field of " + c.Field.Owner.Policy.Describe()
		}
		desc := fmt.Sprintf("%s (its route on listener %s shaped the cluster, %s)", place, c.Listener.ID(), there)
		for _, ct := range e.Field.Contributors {
			hits = append(hits, fieldHit{shadowKey{ct.Policy, e.Key}, desc})
		}
	}
	return hits
}

// appendOverridden adds the fields of a view another family's kind
// overrides (merge.EffectiveField.OverriddenBy), and those whose
// settings a backend's cluster takes from a policy on the backend of
// another family's kind (OnClusters).
func appendOverridden(hits []fieldHit, view []merge.EffectiveField, place string) []fieldHit {
	for _, e := range view {
		for _, c := range e.OnClusters {
			desc := fmt.Sprintf("the cluster of %s %s/%s port %d for %s (%s by %s field %s of %s; %s: %s)", c.Backend.Kind, c.Backend.Namespace, c.Backend.Name, c.Port,
				place, c.Path, c.Kind.GroupKind().Kind, c.Key, c.Field.Owner.Policy.Describe(), c.Decision.Rule, c.Decision.Detail)
			for _, ct := range e.Field.Contributors {
				hits = append(hits, fieldHit{shadowKey{ct.Policy, e.Key}, desc})
			}
		}
		o := e.OverriddenBy
		if o == nil || e.Field.Owner.IsBuiltIn() || !o.Path.OnRoute() {
			continue // a route rule's own value is no policy's to fix; a listener's path is its listener's (listenerOverrides)
		}
		desc := fmt.Sprintf("%s (%s by %s field %s of %s; %s: %s)", place, o.Path, o.Kind.GroupKind().Kind, o.Key, o.Field.Owner.Policy.Describe(), o.Decision.Rule, o.Decision.Detail)
		for _, c := range e.Field.Contributors {
			hits = append(hits, fieldHit{shadowKey{c.Policy, e.Key}, desc})
		}
	}
	return hits
}

// appendShadowed adds the fields a view's own (not inherited) results
// hide.
func appendShadowed(hits []fieldHit, view []merge.EffectiveField, place string) []fieldHit {
	for _, e := range view {
		if e.Inherited {
			continue
		}
		for _, s := range e.Shadowed {
			for _, c := range s.Contributors {
				desc := place
				if e.Field.Owner.IsBuiltIn() {
					desc += " (by the rule's own " + e.Key + ")"
				}
				// a whole-overriding kind shadows every field of the policy
				hits = append(hits, fieldHit{shadowKey{c.Policy, s.Key}, desc})
			}
		}
	}
	return hits
}

// appendMergedAlone adds the routed points whose one policy in effect
// sets a merge strategy: it had nothing to merge into.
func appendMergedAlone(hits []mergeHit, routed merge.Points, place string) []mergeHit {
	for _, pt := range routed {
		wo, ok := pt.Kind.(policy.WholeOverrider)
		if !ok || len(pt.Candidates) != 1 || wo.MergesInto(pt.Candidates[0].Policy) == "" {
			continue
		}
		hits = append(hits, mergeHit{pt.Candidates[0].Policy, place})
	}
	return hits
}

// listenerOverrides are the fields of the listeners' views another
// family's kind overrides on a path of the resources built for the
// listener (merge.PathOverride, policy.EnvoyPath.OnListener): reported
// once per listener rather than on every route it serves. None without
// policies of several families in the input.
func listenerOverrides(res *merge.Result) []fieldHit {
	if !res.MultiFamily() {
		return nil
	}
	var hits []fieldHit
	for _, gp := range res.Gateways {
		for _, lp := range gp.Listeners {
			for _, e := range res.Effective(nil, lp.Listener) {
				o := e.OverriddenBy
				if o == nil {
					continue
				}
				desc := fmt.Sprintf("listener %s (%s by %s field %s of %s; %s: %s)", lp.Listener.ID(), o.Path, o.Kind.GroupKind().Kind, o.Key, o.Field.Owner.Policy.Describe(), o.Decision.Rule, o.Decision.Detail)
				for _, c := range e.Field.Contributors {
					hits = append(hits, fieldHit{shadowKey{c.Policy, e.Key}, desc})
				}
			}
		}
	}
	return hits
}
