package attach

import (
	"maps"
	"slices"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

func TestSettledInvalid(t *testing.T) {
	own := diag.Diagnostic{Code: "GWP401", Field: "spec.a", Message: "own rule refuses"}
	foreign := diag.Diagnostic{Code: "GWP401", Field: "spec.b", Message: "B refuses"}
	accepts := policy.Judgement{Conditions: []policy.Condition{{Type: "Accepted", Status: "True"}}}
	refuses := policy.Judgement{Conditions: []policy.Condition{{Type: "Accepted", Status: "False"}}, Invalid: []diag.Diagnostic{foreign}}
	for _, tc := range []struct {
		name        string
		own         []diag.Diagnostic
		judgement   policy.Judgement
		controllers []string
		want        []string
		// refused are, per controller that refuses the policy when the
		// others accept it, its findings
		refused map[string][]string
	}{
		{"the judge alone accepts what the kind refuses", []diag.Diagnostic{own}, accepts, []string{"B"}, nil, nil},
		{"the judge alone refuses what the kind accepts", nil, refuses, []string{"B"}, []string{"B refuses"}, nil},
		{"no judgement of its own: the kind's rule", []diag.Diagnostic{own}, policy.Judgement{}, []string{"B"}, []string{"own rule refuses"}, nil},
		{"another controller alone: the kind's rule", []diag.Diagnostic{own}, accepts, []string{"A"}, []string{"own rule refuses"}, nil},
		{"both accept", nil, accepts, []string{"A", "B"}, nil, nil},
		{"both refuse: both reasons", []diag.Diagnostic{own}, refuses, []string{"A", "B"}, []string{"own rule refuses", "B refuses"}, nil},
		// each applies it by its own verdict: valid for the one that
		// accepts it, refused by the other, saying whose refusal
		{name: "they disagree: the kind's rule refuses, the judge accepts", own: []diag.Diagnostic{own}, judgement: accepts, controllers: []string{"A", "B"},
			refused: map[string][]string{"A": {"A refuses it (other controllers using it accept it and apply it on their Gateways; on A's it is invalid): own rule refuses"}}},
		{name: "they disagree: the judge refuses, the kind's rule accepts", judgement: refuses, controllers: []string{"A", "B"},
			refused: map[string][]string{"B": {"B refuses it (other controllers using it accept it and apply it on their Gateways; on B's it is invalid): B refuses"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &policy.Policy{Invalid: tc.own, Judgements: map[string]policy.Judgement{"B": tc.judgement}}
			invalid, refused := settledInvalid(p, tc.controllers)
			var got []string
			for _, d := range invalid {
				got = append(got, d.Message)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("invalid %q, want %q", got, tc.want)
			}
			gotRefused := map[string][]string{}
			for c, ds := range refused {
				for _, d := range ds {
					gotRefused[c] = append(gotRefused[c], d.Message)
				}
			}
			if tc.refused == nil {
				tc.refused = map[string][]string{}
			}
			if !maps.EqualFunc(gotRefused, tc.refused, slices.Equal) {
				t.Errorf("refused %q, want %q", gotRefused, tc.refused)
			}
		})
	}
}
