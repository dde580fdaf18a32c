package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFieldsFor: a field family expands, in the kind's order, to the keys
// of that family the values hold, each once, sorted as strings.
func TestFieldsFor(t *testing.T) {
	s := KindSpec{Fields: []FieldSpec{{Key: "a"}, {Key: "port[", SpecPath: "spec.perPort", Family: true}, {Key: "z"}}}
	got := s.FieldsFor(map[string]any{"port[8080]": 1, "a": 1}, map[string]any{"port[80]": 1, "port[8080]": 2})
	var keys []string
	for _, f := range got {
		keys = append(keys, f.Key)
		if f.Family {
			t.Errorf("%s is still a family", f.Key)
		}
	}
	if diff := cmp.Diff([]string{"a", "port[8080]", "port[80]", "z"}, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	plain := KindSpec{Fields: []FieldSpec{{Key: "a"}}}
	if got := plain.FieldsFor(); len(got) != 1 || &got[0] != &plain.Fields[0] {
		t.Error("a kind without families does not get its own Fields back")
	}
}
