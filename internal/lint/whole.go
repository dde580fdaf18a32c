package lint

import (
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// Kinds whose policies override whole (policy.WholeOverrider) do not lose
// fields to each other at a merge point the way field-merging kinds do: per route rule, the most specific policy replaces the
// others whole or merges into the next one, and policies of one level
// conflict. lossFindings and tiesByName leave them out; the findings
// below read the merge points by level and merge.Result.Routed instead
// (GWP304 reads Effective, which applies the override).

// overridesWhole reports whether a kind's policies override whole.
func overridesWhole(k policy.Kind) bool {
	wo, ok := k.(policy.WholeOverrider)
	return ok && wo.OverridesWhole()
}

// wholeConflicts (GWP301) reports the policies their controller
// rejected as Conflicted on a target (the verdict attach keeps,
// merge.Result.Verdicts: Accepted=False Conflicted, where
// another policy of the kind at the same level came first in its
// processing order): none of their fields take effect there. It reads the
// verdict; it does not order the policies again.
func wholeConflicts(in *Input) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, p := range in.Result.Policies.Policies {
		var places []string
		for _, v := range in.Result.Verdicts(p) {
			if v.Rejection.Verdict != policy.VerdictConflicted {
				continue
			}
			place := v.Desc()
			if by := v.Rejection.By; by != nil {
				place += " (taken by " + by.ID()
				if why := v.Rejection.Why; why != "" {
					place += ": " + why
				}
				place += ")"
			}
			places = append(places, place)
		}
		if len(places) == 0 {
			continue
		}
		out = append(out, p.Diag(PolicyOverridden.Code, 0, "metadata.name", "%s is conflicted (none of its fields take effect) at %s: another policy of its kind at the same level came first in its controller's processing order and took the target; target each object with one policy, or merge them",
			p.ID(), strings.Join(places, "; ")))
	}
	return out
}

// mergedIntoNothing (GWP405) reports policies that set a merge type where
// no less specific policy of their kind applies: there is nothing to
// merge into, and the mergeType has no effect there.
func mergedIntoNothing(in *Input) []diag.Diagnostic {
	var found policyPlaces
	for _, hs := range in.views().merges {
		for _, h := range hs {
			found.add(h.p, h.place)
		}
	}
	var out []diag.Diagnostic
	for _, en := range found.order {
		out = append(out, en.p.Diag(PolicyNoEffect.Code, 0, "spec.mergeType", "%s sets mergeType but no Gateway, ListenerSet or listener policy of its kind applies at %s: it merges into nothing and applies alone there",
			en.p.ID(), strings.Join(en.places, "; ")))
	}
	return out
}

// policyPlaces collects, per policy in the order first met, the distinct
// places a finding about it names.
type policyPlaces struct {
	order []*placedPolicy
	by    map[*policy.Policy]*placedPolicy
}

type placedPolicy struct {
	p      *policy.Policy
	places []string
}

func (pp *policyPlaces) add(p *policy.Policy, place string) {
	if pp.by == nil {
		pp.by = map[*policy.Policy]*placedPolicy{}
	}
	en := pp.by[p]
	if en == nil {
		en = &placedPolicy{p: p}
		pp.by[p] = en
		pp.order = append(pp.order, en)
	}
	if !slices.Contains(en.places, place) {
		en.places = append(en.places, place)
	}
}
