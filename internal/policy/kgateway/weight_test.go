package kgateway

import (
	"math"
	"strconv"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestPolicyWeightParsing (issue 16): the weight is what kgateway parses;
// anything that is not an int32 — out of range included, where ParseInt
// returns the bound — makes the policy invalid with weight 0, never
// 2147483647.
func TestPolicyWeightParsing(t *testing.T) {
	for _, c := range []struct {
		value   string
		weight  int32
		invalid bool
	}{
		{"7", 7, false},
		{"-7", -7, false},
		{strconv.Itoa(math.MaxInt32), math.MaxInt32, false},
		{strconv.Itoa(math.MinInt32), math.MinInt32, false},
		{"2147483648", 0, true},
		{"-2147483649", 0, true},
		{"99999999999999999999", 0, true},
		{"ten", 0, true},
		{"", 0, true},
	} {
		doc := "apiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata:\n  name: p\n  namespace: default\n  annotations:\n    kgateway.dev/policy-weight: \"" + c.value + "\"\nspec: {}\n"
		objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
		if err != nil || len(objs) != 1 {
			t.Fatalf("%q: %v", c.value, err)
		}
		p := Kind{}.Decode(objs[0], &policy.Env{Model: model.Build(&manifest.Set{}, model.Options{})})
		if p.Weight != c.weight || (len(p.Invalid) > 0) != c.invalid {
			t.Errorf("%q: weight %d, invalid %v; want %d, %v", c.value, p.Weight, p.Invalid, c.weight, c.invalid)
		}
		for _, d := range p.Invalid {
			if d.Pos.Line != 7 {
				t.Errorf("%q: finding at line %d, want 7 (the annotation)", c.value, d.Pos.Line)
			}
		}
	}
}
