package attach

import (
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
	}{
		{"the judge alone accepts what the kind refuses", []diag.Diagnostic{own}, accepts, []string{"B"}, nil},
		{"the judge alone refuses what the kind accepts", nil, refuses, []string{"B"}, []string{"B refuses"}},
		{"no judgement of its own: the kind's rule", []diag.Diagnostic{own}, policy.Judgement{}, []string{"B"}, []string{"own rule refuses"}},
		{"another controller alone: the kind's rule", []diag.Diagnostic{own}, accepts, []string{"A"}, []string{"own rule refuses"}},
		{"both accept", nil, accepts, []string{"A", "B"}, nil},
		{"both refuse: both reasons", []diag.Diagnostic{own}, refuses, []string{"A", "B"}, []string{"own rule refuses", "B refuses"}},
		{"they disagree: refused, saying whose refusal", []diag.Diagnostic{own}, accepts, []string{"A", "B"},
			[]string{"A refuses it (other controllers using it accept it; gwpol applies a policy for all of them or none): own rule refuses"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &policy.Policy{Invalid: tc.own, Judgements: map[string]policy.Judgement{"B": tc.judgement}}
			var got []string
			for _, d := range settledInvalid(p, tc.controllers) {
				got = append(got, d.Message)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
