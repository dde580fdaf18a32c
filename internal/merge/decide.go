package merge

import (
	"fmt"
	"time"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/policy"
)

// Rule names what ordered two candidates at one merge point.
type Rule string

// The deciding rules, in the order they apply: GEP-713's (the more
// specific attachment, then the older policy, then the name), with a
// kind's weight (policy.KindSpec.WeightAnnotation) before age, and
// attachment order for a kind without precedence (KindSpec.Precedence).
const (
	// RuleLevel: the winner attached at a more specific level (rule over
	// route, listener over Gateway).
	RuleLevel Rule = "level"
	// RuleAttachment: same level, stronger attachment form (ExtensionRef
	// over sectionName over a whole-target targetRef).
	RuleAttachment Rule = "attachment"
	// RuleWeight: the policy with the higher weight comes first.
	RuleWeight Rule = "weight"
	// RuleAge: same weight, the older policy comes first.
	RuleAge Rule = "age"
	// RuleName: same weight and age; only the names decided (GWP303).
	RuleName Rule = "name"
	// RuleOrder: a kind without precedence keeps attachment order (rule
	// filter order, then policy key order).
	RuleOrder Rule = "order"
	// RulePort: a field for the listener's port replaces the kind's fields
	// for every port there (policy.PortScoper).
	RulePort Rule = "port"
)

// Decision is why one candidate precedes another: the rule and a
// sentence naming the values that decided.
type Decision struct {
	Rule   Rule
	Detail string
}

var viaWords = map[attach.Via]string{attach.ViaExtensionRef: "ExtensionRef filter", attach.ViaSection: "sectionName", attach.ViaTargetRef: "whole-target targetRef"}

// Decide explains why first precedes second in one group's precedence
// order. It reads the candidates only; the order itself was made by attach
// and Compute, and Decide names the first criterion on which they differ.
func Decide(first, second *Candidate) Decision {
	switch {
	case first.IsBuiltIn() && !second.IsBuiltIn() && specificity[first.Level] < specificity[second.Level]:
		// A delegating parent's rule value reaching a child: it wins by
		// being a rule's own value (layer), not by its level.
		return Decision{RuleLevel, fmt.Sprintf("a route rule's own setting (%s) comes before every policy, whatever their levels: policies fill only what the rules leave unset", levelWord(first))}
	case first.Level != second.Level:
		return Decision{RuleLevel, fmt.Sprintf("%s level is more specific than %s level", levelWord(first), levelWord(second))}
	case first.Rank != nil && second.Rank != nil:
		return decideRanked(*first.Rank, *second.Rank)
	case first.Via == attach.ViaTargetRef && second.Via == attach.ViaSection && first.Policy.Kind.Spec().WholeTargetFirst:
		return Decision{RuleAttachment, "the controller lists the policies on the whole backend ahead of a port's own (sectionName)"}
	case first.Via.Rank() != second.Via.Rank():
		return Decision{RuleAttachment, fmt.Sprintf("%s beats %s", viaWords[first.Via], viaWords[second.Via])}
	}
	a, b := first.Policy, second.Policy
	if !a.Kind.Spec().Precedence || !b.Kind.Spec().Precedence {
		return Decision{RuleOrder, "attached earlier (rule filter order, then policy name)"}
	}
	switch {
	case a.Weight != b.Weight:
		return Decision{RuleWeight, fmt.Sprintf("policy weight %d (%s) beats weight %d", a.Weight, weightSource(a), b.Weight)}
	case !a.Created.Equal(b.Created) && b.Created.IsZero():
		return Decision{RuleAge, fmt.Sprintf("created %s; the other has no creationTimestamp", stamp(a.Created))}
	case !a.Created.Equal(b.Created):
		return Decision{RuleAge, fmt.Sprintf("older: created %s, the other %s", stamp(a.Created), stamp(b.Created))}
	}
	return Decision{RuleName, fmt.Sprintf("same weight and age: name %s/%s sorts before %s/%s (GWP303)",
		a.Obj.Namespace, a.Obj.Name, b.Obj.Namespace, b.Obj.Name)}
}

// DecideField explains why a field's owner beat one of its losers. Under
// OverridableShallow the last candidate in precedence order wins, so the
// order is read the other way round — except where a route rule's own
// value beats a policy, which it does whatever the strategy (layer).
//
// When the two values call different extensions that carry weights of
// their own (policy.FilterWeight), the detail says that those did not
// decide: they order the extensions' filters in the chain, never the
// policies at a merge point.
func DecideField(f *Field, loser *Candidate) Decision {
	var d Decision
	if f.Strategy == policy.OverridableShallow && (!f.Owner.IsBuiltIn() || loser.IsBuiltIn()) {
		d = Decide(loser, f.Owner)
		d.Detail = "OverridableShallow: the later value overrides, and the loser came first (" + d.Detail + ")"
	} else {
		d = Decide(f.Owner, loser)
	}
	if note := filterWeightNote(f.Key, f.Owner, loser); note != "" {
		d.Detail += "; " + note
	}
	if x := takenInstance(f, loser); x != "" {
		d.Detail += "; a deep merge takes each named instance from the first value that configures it, and " + x + " was taken"
	}
	if r := resetBy(f, loser); r != nil {
		d = Decision{RuleOrder, fmt.Sprintf("a deep merge records the value of %s/%s, merged after the loser's, as the field's only origin so far: it resets the field (the loser's value came before it)",
			r.Policy.Obj.Namespace, r.Policy.Obj.Name)}
	}
	return d
}

// resetBy is the contributor whose value reset a deep-merged field
// (policy.DeepResetter) after the loser's value merged, which is why the
// loser lost; nil when none did (the loser lost for another reason).
func resetBy(f *Field, loser *Candidate) *Candidate {
	rs, ok := loser.Policy.Kind.(policy.DeepResetter)
	if !ok || (f.Strategy != policy.AugmentedDeep && f.Strategy != policy.OverridableDeep) {
		return nil
	}
	if takenInstance(f, loser) != "" {
		return nil
	}
	for i, c := range f.Contributors {
		if i < len(f.Values) && rs.ResetsDeepMerge(f.Key, f.Values[i]) {
			return c
		}
	}
	return nil
}

// takenInstance is the named instance (policy.Instancer) the loser's value
// of a deep-merged field configures that a contributor's value configures
// too — why the loser was left out (oncePerInstance); "" otherwise.
func takenInstance(f *Field, loser *Candidate) string {
	in, ok := loser.Policy.Kind.(policy.Instancer)
	if !ok || (f.Strategy != policy.AugmentedDeep && f.Strategy != policy.OverridableDeep) {
		return ""
	}
	x := in.Instance(f.Key, loser.Policy.Values[f.Key], loser.Policy.Obj.Namespace)
	if x == "" {
		return ""
	}
	for i, c := range f.Contributors {
		if i < len(f.Values) && in.Instance(f.Key, f.Values[i], c.Policy.Obj.Namespace) == x {
			return x
		}
	}
	return ""
}

// filterWeightNote names the filter weights of two candidates' values of
// a field when they call different objects, as weights that did not decide.
func filterWeightNote(key string, a, b *Candidate) string {
	wa, okA := a.Policy.FilterWeights[key]
	wb, okB := b.Policy.FilterWeights[key]
	if !okA || !okB || wa.Object == wb.Object {
		return ""
	}
	return fmt.Sprintf("the extensions' own %s and %s did not decide: they order only the filters in the chain", wa, wb)
}

func levelWord(c *Candidate) string {
	if c.Level == LevelParentRoute && c.Parent != "" {
		return "parent route (" + c.Parent + ")"
	}
	return string(c.Level)
}

// weightSource names where a non-zero weight came from, so a user knows
// which object to edit.
func weightSource(p *policy.Policy) string {
	if ann := p.Kind.Spec().WeightAnnotation; ann != "" {
		return "annotation " + ann + " on " + p.Kind.GroupKind().Kind + " " + p.Obj.Namespace + "/" + p.Obj.Name
	}
	return "on " + p.Kind.GroupKind().Kind + " " + p.Obj.Namespace + "/" + p.Obj.Name
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// decideRanked names why a controller that ranks a kind's policies on a
// backend target itself (policy.Controller.BackendRank) put a before b:
// their times, then their references, whatever their attachment form.
func decideRanked(a, b policy.BackendRankKey) Decision {
	const all = "the controller ranks the backend's policies by age alone, a port's own (sectionName) and the whole object's alike: "
	switch {
	case !a.At.Equal(b.At) && b.At.IsZero() && b.UndatedLast:
		return Decision{RuleAge, all + "created " + stamp(a.At) + "; the other has no creationTimestamp, which it ranks after every dated policy"}
	case !a.At.Equal(b.At) && a.At.IsZero():
		return Decision{RuleAge, all + "this one has no creationTimestamp, which it compares as the earliest time; the other was created " + stamp(b.At)}
	case !a.At.Equal(b.At):
		return Decision{RuleAge, all + fmt.Sprintf("older: created %s, the other %s", stamp(a.At), stamp(b.At))}
	}
	return Decision{RuleName, all + fmt.Sprintf("same age: reference %s sorts before %s (GWP303)", a.Ref, b.Ref)}
}
