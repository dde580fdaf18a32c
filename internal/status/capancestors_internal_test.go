package status

import (
	"slices"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestCapAncestorsNeverKeepsMore: the cut keeps at most max entries,
// also when two equal entries (same reference, same controller) fall on
// both sides of it: one inside the cut keeps one, not both (before: kept
// entries were marked, not counted, so both stayed). The end-to-end
// shapes are TestAncestorsCutAsWritten's.
func TestCapAncestorsNeverKeepsMore(t *testing.T) {
	gw := func(name string) Ancestor {
		return Ancestor{AncestorRef: AncestorRef{Group: "gateway.networking.k8s.io", Kind: "Gateway", Namespace: "ns", Name: name}, ControllerName: "c"}
	}
	for _, tc := range []struct {
		name string
		in   []Ancestor
		max  int
		want []string
	}{
		{"under the cap: all", []Ancestor{gw("a"), gw("b")}, 2, []string{"a", "b"}},
		{"by name: the first two", []Ancestor{gw("c"), gw("a"), gw("b")}, 2, []string{"a", "b"}},
		{"a repeat inside and past the cut: one kept", []Ancestor{gw("a"), gw("b"), gw("b"), gw("c")}, 2, []string{"a", "b"}},
		{"a repeat wholly inside the cut: both", []Ancestor{gw("a"), gw("a"), gw("b")}, 2, []string{"a", "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := capAncestors(append([]Ancestor(nil), tc.in...), tc.max, policy.AncestorReport{KeepByName: true})
			var names []string
			for _, a := range got {
				names = append(names, a.AncestorRef.Name)
			}
			if !slices.Equal(names, tc.want) {
				t.Fatalf("kept %v, want %v", names, tc.want)
			}
		})
	}
}
