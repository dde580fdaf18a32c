package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
)

// lostToRule reports, once per policy and field, the route rules whose own
// Gateway API value took a field the policy sets (GWP305).
func lostToRule(in *Input) []diag.Diagnostic {
	type key struct {
		p     *policy.Policy
		field string
	}
	places := map[key][]string{}
	var order []key
	in.Result.EachPoint(func(t merge.Target, pts merge.Points) {
		for _, pt := range pts {
			for _, f := range pt.Fields {
				if !f.Owner.IsBuiltIn() {
					continue
				}
				for _, c := range f.Losers {
					if c.IsBuiltIn() {
						continue // a parent rule's own value, lost to the child's
					}
					k := key{c.Policy, f.Key}
					if _, ok := places[k]; !ok {
						order = append(order, k)
					}
					where := t.Desc
					if f.Owner.Parent != "" {
						where += " (set by its delegating parent " + f.Owner.Policy.Describe() + ")"
					}
					places[k] = append(places[k], where)
				}
			}
		}
	})
	var out []diag.Diagnostic
	for _, k := range order {
		out = append(out, k.p.Diag(FieldOverriddenByRouteRule.Code, 0, k.p.FieldPath(k.field), "%s of %s has no effect at %s: the route rule sets it itself, which takes precedence over any policy (status and %s merge metadata still list the policy); remove the field from the policy or from the rule",
			k.field, k.p.ID(), strings.Join(places[k], "; "), controllerOf(in.Result.Registry, k.p)))
	}
	return out
}

// controllerOf names, possessively, the controller of p's kind (the one
// whose API groups hold it); "the controller's" when none is registered.
func controllerOf(reg *policy.Registry, p *policy.Policy) string {
	if reg != nil {
		group := p.Kind.GroupKind().Group
		for _, c := range reg.Controllers() {
			if slices.Contains(c.Groups, group) {
				return c.Title + "'s"
			}
		}
	}
	return "the controller's"
}

// losses describes, for one policy at one point, the fields it lost and to whom.
func losses(pt *merge.Point, p *policy.Policy) (lost []string, won int) {
	for _, f := range pt.Fields {
		if _, sets := p.Values[f.Key]; !sets || f.Owner.IsBuiltIn() {
			continue // a route rule's own field wins it: GWP305, not a status
		}
		if slices.ContainsFunc(f.Contributors, func(c *merge.Candidate) bool { return c.Policy == p }) {
			won++
			continue
		}
		lost = append(lost, fmt.Sprintf("%s (won by %s)", f.Key, f.Owner.Policy.ID()))
	}
	return lost, won
}

func overridden(in *Input) []diag.Diagnostic {
	return append(lossFindings(in, false), wholeConflicts(in)...)
}
func merged(in *Input) []diag.Diagnostic { return lossFindings(in, true) }

// lossFindings reports, once per policy, the targets where it lost all
// (GWP301) or some (GWP302) of its fields, naming the fields and winners.
func lossFindings(in *Input, partial bool) []diag.Diagnostic {
	type entry struct {
		p      *policy.Policy
		places []string
		first  string
	}
	var order []*entry
	byPolicy := map[*policy.Policy]*entry{}
	in.Result.EachPoint(func(t merge.Target, pts merge.Points) {
		for _, pt := range pts {
			if overridesWhole(pt.Kind) {
				continue // see whole.go
			}
			for _, c := range pt.Candidates {
				lost, won := losses(pt, c.Policy)
				if len(lost) == 0 || (won > 0) != partial {
					continue
				}
				e := byPolicy[c.Policy]
				if e == nil {
					e = &entry{p: c.Policy, first: firstKey(lost)}
					byPolicy[c.Policy] = e
					order = append(order, e)
				}
				e.places = append(e.places, t.Desc+": "+strings.Join(lost, ", "))
			}
		}
	})
	var out []diag.Diagnostic
	for _, e := range order {
		code, verb := PolicyOverridden.Code, "is overridden (none of its fields take effect) at"
		hint := "remove it, or raise its priority if it should win"
		if w := e.p.Kind.Spec().WeightAnnotation; w != "" {
			hint = "raise its " + w + " annotation if it should win, or remove it"
		}
		if partial {
			code, verb, hint = PolicyMerged.Code, "is merged (some fields lose) at", "fields listed lose to the named policies"
		}
		out = append(out, e.p.Diag(code, 0, e.p.FieldPath(e.first), "%s %s %s; %s", e.p.ID(), verb, strings.Join(e.places, "; "), hint))
	}
	return out
}

func firstKey(lost []string) string {
	k, _, _ := strings.Cut(lost[0], " ")
	return k
}

func tiesByName(in *Input) []diag.Diagnostic {
	var out []diag.Diagnostic
	seen := map[[2]*policy.Policy]bool{}
	in.Result.EachPoint(func(t merge.Target, pts merge.Points) {
		for _, pt := range pts {
			if overridesWhole(pt.Kind) {
				continue // conflicts, not ties: see whole.go
			}
			for _, tie := range pt.Ties {
				k := [2]*policy.Policy{tie.First.Policy, tie.Second.Policy}
				if seen[k] {
					continue
				}
				seen[k] = true
				d := tie.Second.Policy.Diag(PrecedenceByName.Code, 0, "metadata.name", "%s and %s both set %s at %s with the same weight and age; only their names order them here (%s wins). %s",
					tie.First.Policy.ID(), tie.Second.Policy.ID(), strings.Join(tie.Fields, ", "), t.Desc, tie.First.Policy.ID(), tieHint(tie.Second.Policy)+extensionTieNote(tie))
				out = append(out, d)
			}
		}
	})
	return out
}

// tieHint is the advice for a tie only names decide. creationTimestamp
// is set by the API server, never by a manifest: in a cluster the policy
// created first wins, an order a repository cannot control, so the
// advice is the weight annotation where the kind has one.
func tieHint(p *policy.Policy) string {
	const cluster = "In a cluster the older creationTimestamp would decide, which the API server sets and a repository cannot control"
	if w := p.Kind.Spec().WeightAnnotation; w != "" {
		return fmt.Sprintf("Set the %s annotation (higher wins) on the policy that should win. %s", w, cluster)
	}
	return cluster + "; make their fields disjoint or merge them into one policy"
}

// extensionTieNote warns, for tied fields whose values call different
// objects carrying filter weights (policy.Policy.FilterWeights, set by the
// kinds whose controller orders those filters by them), that those
// weights do not settle the tie: they order the filters in the chain
// (merge.EffectiveField.FilterOrder), never the policies at a merge point.
// The family's note on the rule says what its controller documents.
func extensionTieNote(tie merge.Tie) string {
	var notes []string
	for _, key := range tie.Fields {
		a, okA := tie.First.Policy.FilterWeights[key]
		b, okB := tie.Second.Policy.FilterWeights[key]
		if okA && okB && a.Object != b.Object {
			notes = append(notes, fmt.Sprintf("%s, the %s and the %s do not decide which policy wins, only the order of their filters", key, a, b))
		}
	}
	if len(notes) == 0 {
		return ""
	}
	return ". For " + strings.Join(notes, "; for ")
}

// placesByField groups hits by policy and field, in the order each was
// first met, each one's places (the hits' descs) once and sorted: a
// finding per policy field names every place.
func placesByField(lists [][]fieldHit) ([]shadowKey, map[shadowKey][]string) {
	places := map[shadowKey][]string{}
	seen := map[fieldHit]bool{}
	var order []shadowKey
	for _, hs := range lists {
		for _, h := range hs {
			if seen[h] {
				continue
			}
			seen[h] = true
			if _, ok := places[h.k]; !ok {
				order = append(order, h.k)
			}
			places[h.k] = append(places[h.k], h.desc)
		}
	}
	for _, ps := range places {
		slices.Sort(ps)
	}
	return order, places
}

// shadowed (GWP304) reports, once per policy and field, the route rules
// on which a route-level result hides a less specific policy's field.
func shadowed(in *Input) []diag.Diagnostic {
	order, routes := placesByField(in.views().shadow)
	var out []diag.Diagnostic
	for _, k := range order {
		rs := routes[k]
		out = append(out, k.p.Diag(GatewayFieldShadowed.Code, 0, k.p.FieldPath(k.field), "%s of %s is shadowed by a route-level policy on %d route rule(s): %s",
			k.field, k.p.ID(), len(rs), strings.Join(rs, ", ")))
	}
	return out
}

// overriddenAcrossFamilies (GWP307) reports, once per policy and field,
// the listeners and route rules where a field of another family's kind
// wins an Envoy path the field writes (merge.PathOverride), naming the
// path and the winner.
func overriddenAcrossFamilies(in *Input) []diag.Diagnostic {
	order, places := placesByField(append([][]fieldHit{listenerOverrides(in.Result)}, in.views().cross...))
	var out []diag.Diagnostic
	for _, k := range order {
		ps := places[k]
		out = append(out, k.p.Diag(FieldOverriddenAcrossFamilies.Code, 0, k.p.FieldPath(k.field),
			"%s of %s has no effect on %s: a policy of another controller family's kind writes the same Envoy path there and wins it; give the Gateway a GatewayClass of the controller meant to serve it, or keep one family's policies on the route or listener",
			k.field, k.p.ID(), strings.Join(ps, "; ")))
	}
	return out
}

// clusterFromFirst (GWP308) reports, once per policy and field, the route
// rules and listeners where the field's cluster settings are not on the
// cluster the rule's route sends to: the rule's route on another listener
// shaped the rule's one cluster (merge.ClusterShape).
func clusterFromFirst(in *Input) []diag.Diagnostic {
	order, places := placesByField(in.views().cluster)
	var out []diag.Diagnostic
	for _, k := range order {
		ps := places[k]
		out = append(out, k.p.Diag(ClusterFromFirstListener.Code, 0, k.p.FieldPath(k.field),
			"%s of %s is not on the cluster of %s: the controller builds a route rule's one cluster from its route on the first listener serving it; set it where that route takes it (that listener, the Gateway or the route), or attach the route through one listener",
			k.field, k.p.ID(), strings.Join(ps, "; ")))
	}
	return out
}
