package merge

import (
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
	f := combine("a", policy.OverridableShallow, []*Candidate{a, b})
	if f.Owner != b || len(f.Losers) != 1 {
		t.Fatalf("owner %s, losers %d", f.Owner.Policy.Obj.Name, len(f.Losers))
	}
	if d := DecideField(f, a); d.Rule != RuleLevel {
		t.Errorf("DecideField = %+v, want level", d)
	}
}
