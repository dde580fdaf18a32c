package policy

import (
	"testing"
	"time"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
)

type fakeKind struct{}

func (fakeKind) GroupKind() model.GroupKind            { return model.GroupKind{Group: "g", Kind: "K"} }
func (fakeKind) Spec() KindSpec                        { return KindSpec{} }
func (fakeKind) Decode(*manifest.Object, *Env) *Policy { return nil }

func p(ns, name string, weight int32, created int64) *Policy {
	pol := &Policy{Kind: fakeKind{}, Obj: &manifest.Object{Namespace: ns, Name: name}, Weight: weight}
	if created > 0 {
		pol.Created = time.Unix(created, 0)
	}
	return pol
}

func TestPrecedes(t *testing.T) {
	tests := []struct {
		name           string
		a, b           *Policy
		before, byName bool
	}{
		{"higher weight first", p("x", "z", 5, 0), p("a", "a", 0, 0), true, false},
		{"lower weight after", p("a", "a", -1, 0), p("x", "z", 0, 0), false, false},
		{"older first", p("x", "z", 0, 10), p("a", "a", 0, 20), true, false},
		{"a dated policy before an undated one", p("x", "z", 0, 10), p("a", "a", 0, 0), true, false},
		{"then namespace/name, flagged", p("a", "b", 0, 0), p("b", "a", 0, 0), true, true},
		{"same age, name decides, flagged", p("ns", "b", 0, 5), p("ns", "a", 0, 5), false, true},
	}
	for _, tt := range tests {
		before, byName := Precedes(tt.a, tt.b)
		if before != tt.before || byName != tt.byName {
			t.Errorf("%s: Precedes = %v, %v; want %v, %v", tt.name, before, byName, tt.before, tt.byName)
		}
		if back, _ := Precedes(tt.b, tt.a); back == before {
			t.Errorf("%s: order is not antisymmetric", tt.name)
		}
	}
}

func TestIDAndSortIDs(t *testing.T) {
	if id := p("infra", "rl", 0, 0).ID(); id != "g/K/infra/rl" {
		t.Errorf("ID = %q", id)
	}
	builtIn := p("team", "r", 0, 0)
	builtIn.BuiltIn = &BuiltIn{Route: model.GroupKind{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}}
	for _, pol := range []*Policy{p("infra", "rl", 0, 0), builtIn} {
		if got := string(pol.AppendID([]byte("x,"))); got != "x,"+pol.ID() {
			t.Errorf("AppendID = %q, want x,%s", got, pol.ID())
		}
	}
	got := SortIDs([]string{"b", "a", "b"})
	if len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("SortIDs = %v", got)
	}
}

// TestBuiltInFindingAfterRelease: a finding on a rule's own field keeps
// its position after render released the route's YAML tree (reading the
// tree then would panic, as it did for an unrenderable retry).
func TestBuiltInFindingAfterRelease(t *testing.T) {
	objs, err := manifest.Parse("route.yaml", []byte("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: ns}\nspec:\n  rules:\n  - retry: {attempts: 2}\n"), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{})
	rt := m.Routes[0]
	b := NewBuiltIn(fakeKind{}, rt, rt.Rules[0], []RuleField{{Key: "retry", Value: 2, Path: "spec.rules[0].retry"}})
	want := rt.Src.FieldPos("spec.rules[0].retry")
	rt.Src.Release()
	d := b.Diag("GWP401", 0, b.FieldPath("retry"), "cannot render")
	if d.Pos != want || want.Line != 6 {
		t.Errorf("position after release = %+v, want %+v (line 6)", d.Pos, want)
	}
}
