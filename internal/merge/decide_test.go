package merge

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/policy"
)

// precKind is testKind ordered by weight, age and name.
type precKind struct{ testKind }

func (precKind) Spec() policy.KindSpec {
	s := testKind{}.Spec()
	s.Precedence, s.WeightAnnotation = true, "test.gwpol.dev/weight"
	return s
}

func TestDecide(t *testing.T) {
	withKind := func(p *policy.Policy, k policy.Kind) *policy.Policy { p.Kind = k; return p }
	prec := func(name string, weight int32, age int) *policy.Policy {
		return withKind(pol(name, weight, age, nil), precKind{})
	}
	at := func(p *policy.Policy, lvl Level, via attach.Via) *Candidate {
		return &Candidate{Policy: p, Level: lvl, Via: via}
	}
	tests := []struct {
		name          string
		first, second *Candidate
		want          Rule
	}{
		{"rule over route", at(prec("a", 0, 0), LevelRule, attach.ViaSection), at(prec("b", 9, 0), LevelRoute, attach.ViaTargetRef), RuleLevel},
		{"ExtensionRef over section", at(prec("a", 0, 0), LevelRule, attach.ViaExtensionRef), at(prec("b", 9, 0), LevelRule, attach.ViaSection), RuleAttachment},
		{"weight", at(prec("z", 5, 9), LevelRoute, attach.ViaTargetRef), at(prec("a", 0, 1), LevelRoute, attach.ViaTargetRef), RuleWeight},
		{"age", at(prec("z", 0, 1), LevelRoute, attach.ViaTargetRef), at(prec("a", 0, 2), LevelRoute, attach.ViaTargetRef), RuleAge},
		{"dated before undated", at(prec("z", 0, 1), LevelRoute, attach.ViaTargetRef), at(prec("a", 0, 0), LevelRoute, attach.ViaTargetRef), RuleAge},
		{"name", at(prec("a", 0, 0), LevelRoute, attach.ViaTargetRef), at(prec("b", 0, 0), LevelRoute, attach.ViaTargetRef), RuleName},
		{"kind without precedence", at(pol("b", 0, 0, nil), LevelRoute, attach.ViaTargetRef), at(pol("a", 0, 0, nil), LevelRoute, attach.ViaTargetRef), RuleOrder},
	}
	for _, tt := range tests {
		d := Decide(tt.first, tt.second)
		if d.Rule != tt.want || d.Detail == "" {
			t.Errorf("%s: Decide = %+v, want rule %s with a detail", tt.name, d, tt.want)
		}
	}
}

// TestDecideFieldOverridable: under OverridableShallow the owner is last
// in precedence order, and the decision is read that way round.
func TestDecideFieldOverridable(t *testing.T) {
	a := &Candidate{Policy: pol("a", 0, 0, map[string]any{"a": 1}), Level: LevelRule}
	b := &Candidate{Policy: pol("b", 0, 0, map[string]any{"a": 2}), Level: LevelRoute}
	f := combine(testKind{}, "a", policy.OverridableShallow, []*Candidate{a, b})
	if f.Owner != b || len(f.Losers) != 1 {
		t.Fatalf("owner %s, losers %d", f.Owner.Policy.Obj.Name, len(f.Losers))
	}
	if d := DecideField(f, a); d.Rule != RuleLevel {
		t.Errorf("DecideField = %+v, want level", d)
	}
}

// TestFilterWeightsDoNotDecide: the weights on the objects two values
// call never order the policies; the decision names them as weights that
// did not decide, and FilterOrder orders the filters by them.
func TestFilterWeightsDoNotDecide(t *testing.T) {
	calls := func(p *policy.Policy, ext string, w int32) *policy.Policy {
		p.Kind = precKind{}
		p.FilterWeights = map[string]policy.FilterWeight{"a": {Object: "Ext ns/" + ext, Source: "annotation w", Weight: w}}
		return p
	}
	tests := []struct {
		name      string
		ps        []*policy.Policy
		wantOwner string
		wantRule  Rule
		wantOrder []string // filter objects in run order under deep merge
	}{
		{"policy weight wins over a higher extension weight", []*policy.Policy{
			calls(pol("heavy", 1, 0, map[string]any{"a": 1}), "low", 0),
			calls(pol("light", 0, 0, map[string]any{"a": 2}), "high", 9)},
			"heavy", RuleWeight, []string{"Ext ns/high", "Ext ns/low"}},
		{"age decides, extension weight does not", []*policy.Policy{
			calls(pol("young", 0, 2, map[string]any{"a": 1}), "x", 5),
			calls(pol("old", 0, 1, map[string]any{"a": 2}), "y", -5)},
			"old", RuleAge, []string{"Ext ns/x", "Ext ns/y"}},
		{"same extension weight: filters by name", []*policy.Policy{
			calls(pol("p", 0, 0, map[string]any{"a": 1}), "b", 0),
			calls(pol("q", 0, 0, map[string]any{"a": 2}), "a", 0)},
			"p", RuleName, []string{"Ext ns/a", "Ext ns/b"}},
	}
	for _, tt := range tests {
		cs := cands(tt.ps...)
		slices.SortStableFunc(cs, func(a, b *Candidate) int { return policy.ComparePrecedence(a.Policy, b.Policy) })
		f := combine(testKind{}, "a", policy.AugmentedShallow, cs)
		if f.Owner.Policy.Obj.Name != tt.wantOwner {
			t.Errorf("%s: owner %s, want %s", tt.name, f.Owner.Policy.Obj.Name, tt.wantOwner)
			continue
		}
		d := DecideField(f, f.Losers[0])
		if d.Rule != tt.wantRule || !strings.Contains(d.Detail, "did not decide: they order only the filters") {
			t.Errorf("%s: decision %+v, want rule %s naming the filter weights", tt.name, d, tt.wantRule)
		}
		deep := EffectiveField{Key: "a", Field: combine(testKind{}, "a", policy.AugmentedDeep, cs)}
		var got []string
		for _, st := range deep.FilterOrder() {
			got = append(got, st.Weight.Object)
		}
		if !slices.Equal(got, tt.wantOrder) {
			t.Errorf("%s: filter order %v, want %v", tt.name, got, tt.wantOrder)
		}
	}
}
