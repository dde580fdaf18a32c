package manifest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
)

// TestListsOver: bounds sharing a path prefix are checked in one walk;
// only the lists over their bound are reported, with their concrete
// paths and positions, through aliases and merge keys as the JSON form
// reads them; absent parts and values that are not lists are skipped.
func TestListsOver(t *testing.T) {
	objs, err := Parse("b.yaml", []byte(`apiVersion: v1
kind: Thing
metadata: {name: t}
shared: &two [a, b]
spec:
  targetRefs: [x, y, z]
  rules:
  - matches: [m1]
    filters: {not: a list}
  - matches: [m1, m2, m3]
    filters: [f1, f2, f3]
  - <<: {matches: *two}
  hostnames: *two
`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	b := NewListBounds([]ListBound{
		{Path: "spec.targetRefs", Max: 3},
		{Path: "spec.rules", Max: 2},
		{Path: "spec.rules[].matches", Max: 1},
		{Path: "spec.rules[].filters", Max: 2},
		{Path: "spec.hostnames", Max: 1},
		{Path: "spec.absent[].lists", Max: 0},
	})
	var got []string
	objs[0].ListsOver(b, func(path string, n, max int, pos diag.Position) {
		got = append(got, fmt.Sprintf("%s %d>%d %d:%d", path, n, max, pos.Line, pos.Col))
	})
	want := "spec.rules 3>2 8:3, spec.rules[1].matches 3>1 10:14, spec.rules[1].filters 3>2 11:14, spec.rules[2].matches 2>1 4:9, spec.hostnames 2>1 4:9"
	if g := strings.Join(got, ", "); g != want {
		t.Errorf("lists over bounds:\n%s\nwant\n%s", g, want)
	}
	var none []string
	objs[0].ListsOver(nil, func(path string, _, _ int, _ diag.Position) { none = append(none, path) })
	if none != nil {
		t.Errorf("no bounds reported %v", none)
	}
}
