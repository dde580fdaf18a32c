package policy

import (
	"slices"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
)

type defaultsKind struct{ fakeKind }

func (defaultsKind) Spec() KindSpec {
	return KindSpec{Fields: []FieldSpec{{Key: "timeout", SpecPath: "spec.timeout"}, {Key: "retry", SpecPath: "spec.retry"}, {Key: "cors", SpecPath: "spec.cors"}}}
}

// TestCRDDefaults: a field its object leaves out, which the CRD's default
// alone sets, is a whole default; a field written with defaults below it
// gives those; a field written without any, or a key no field names,
// gives none; a route rule's own field is judged at its path in the route.
func TestCRDDefaults(t *testing.T) {
	objs, err := manifest.Parse("in.yaml", []byte("apiVersion: g/v1\nkind: K\nmetadata: {name: p, namespace: n}\nspec:\n  retry: {retryOn: [reset]}\n  cors: {maxAge: 5}\n  rules: [{filters: [{requestRedirect: {hostname: a}}]}]\n"), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	key := func(path ...any) []manifest.Step {
		var out []manifest.Step
		for _, p := range path {
			switch p := p.(type) {
			case string:
				out = append(out, manifest.Step{Key: p, Index: -1})
			case int:
				out = append(out, manifest.Step{Index: p})
			}
		}
		return out
	}
	o.SetDefaults(manifest.NewDefaults([]manifest.Default{
		{Path: key("spec", "retry", "attempts"), Value: manifest.NewValue(int64(1))},
		{Path: key("spec", "rules", 0, "filters", 0, "requestRedirect", "statusCode"), Value: manifest.NewValue(int64(302))},
		{Path: key("spec", "timeout"), Value: manifest.NewValue(map[string]any{"request": "15s"})},
	}))
	p := &Policy{Kind: defaultsKind{}, Obj: o}
	rule := NewBuiltIn(defaultsKind{}, &model.Route{Src: o}, &model.Rule{}, []RuleField{{Key: "redirect", Path: "spec.rules[0].filters[0].requestRedirect"}})
	for _, tc := range []struct {
		p     *Policy
		key   string
		whole bool
		given []string
	}{
		{p, "timeout", true, []string{"spec.timeout"}},
		{p, "retry", false, []string{"spec.retry.attempts"}},
		{p, "cors", false, nil},
		{p, "nosuch", false, nil},
		{rule, "redirect", false, []string{"spec.rules[0].filters[0].requestRedirect.statusCode"}},
	} {
		whole, given := tc.p.CRDDefaults(tc.key)
		var paths []string
		for _, d := range given {
			paths = append(paths, manifest.FormatPath(d.Path))
		}
		if whole != tc.whole || !slices.Equal(paths, tc.given) {
			t.Errorf("%s: whole %v, given %q; want %v, %q", tc.key, whole, paths, tc.whole, tc.given)
		}
	}
}
