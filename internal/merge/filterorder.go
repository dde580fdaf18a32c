package merge

import (
	"cmp"
	"slices"

	"github.com/gwpol/gwpol/internal/policy"
)

// FilterStep is one Envoy filter a field in effect enables, in the order
// the filters run.
type FilterStep struct {
	Weight policy.FilterWeight
	// Policies set the field to call this filter's object.
	Policies []*policy.Policy
	// Rule put the step after the one before it: RuleWeight (a higher
	// filter weight) or RuleName (same weight, filter name order); "" for
	// the first step.
	Rule Rule
}

// FilterOrder lists the filters a field in effect enables when its values
// (the contributors, and those in effect beside them at less specific
// levels) call several objects that carry filter weights
// (policy.Policy.FilterWeights, which a kind sets where its controller
// orders one stage's filters by them): one step per object, higher weight
// first, then by name. Nil when fewer than two objects are called, or when they
// run in different stages.
func (e EffectiveField) FilterOrder() []FilterStep {
	var steps []FilterStep
	add := func(cs []*Candidate) {
		for _, c := range cs {
			w, ok := c.Policy.FilterWeights[e.Key]
			if !ok {
				continue
			}
			i := slices.IndexFunc(steps, func(s FilterStep) bool { return s.Weight.Object == w.Object })
			if i < 0 {
				steps = append(steps, FilterStep{Weight: w})
				i = len(steps) - 1
			}
			if !slices.Contains(steps[i].Policies, c.Policy) {
				steps[i].Policies = append(steps[i].Policies, c.Policy)
			}
		}
	}
	add(e.Field.Contributors)
	for _, b := range e.Beside {
		add(b.Contributors)
	}
	if len(steps) < 2 || slices.ContainsFunc(steps, func(s FilterStep) bool { return s.Weight.Stage != steps[0].Weight.Stage }) {
		return nil // filters of different stages run by stage first
	}
	slices.SortStableFunc(steps, func(a, b FilterStep) int {
		return cmp.Or(cmp.Compare(b.Weight.Weight, a.Weight.Weight), cmp.Compare(a.Weight.Object, b.Weight.Object))
	})
	for i := 1; i < len(steps); i++ {
		steps[i].Rule = RuleName
		if steps[i].Weight.Weight != steps[i-1].Weight.Weight {
			steps[i].Rule = RuleWeight
		}
	}
	return steps
}
