package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/topology"
)

// TestExtensionBackends: a controller's extension backends setting
// becomes topology's list; a bad entry is refused by Check, naming the
// entry and what is wrong with it.
func TestExtensionBackends(t *testing.T) {
	s := Setting{Key: "ext", Default: []any{}, Check: CheckExtensionBackends("ext")}
	r := NewRegistry()
	r.AddControllers(Controller{Name: "a", ExtensionBackends: &s}, Controller{Name: "b"})
	cfg := Config{Values: map[string]any{"ext": []any{
		map[string]any{"kind": "plug", "namespace": "ns", "name": "one", "port": 80},
		map[string]any{"group": "example.com", "kind": "Plug", "namespace": "ns", "name": "two"},
	}}}
	if err := s.Check(cfg.Values["ext"]); err != nil {
		t.Fatal(err)
	}
	want := []topology.ExtensionBackend{{Kind: "plug", Namespace: "ns", Name: "one", Port: 80}, {Group: "example.com", Kind: "Plug", Namespace: "ns", Name: "two"}}
	if got := r.ExtensionBackends(cfg); !slices.Equal(got, want) {
		t.Errorf("ExtensionBackends = %+v, want %+v", got, want)
	}
	if got := r.ExtensionBackends(Config{}); len(got) != 0 {
		t.Errorf("default: %+v, want none", got)
	}
	bad := []struct {
		entry any
		msg   string
	}{
		{"plug", "ext[0]: must be a map"},
		{map[string]any{"namespace": "ns", "name": "x"}, "ext[0]: kind is required"},
		{map[string]any{"kind": "k", "name": "x"}, "ext[0]: namespace is required"},
		{map[string]any{"kind": "k", "namespace": "ns"}, "ext[0]: name is required"},
		{map[string]any{"kind": "k", "namespace": "ns", "name": "x", "port": 70000}, "port must be a whole number from 0 to 65535"},
		{map[string]any{"kind": "k", "namespace": "ns", "name": "x", "port": "http"}, "port must be a whole number"},
		{map[string]any{"kind": 3, "namespace": "ns", "name": "x"}, "kind must be a string"},
		{map[string]any{"kind": "k", "namespace": "ns", "name": "x", "weight": 1}, `unknown key "weight"`},
	}
	for _, b := range bad {
		err := s.Check([]any{b.entry})
		if err == nil || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("Check(%v) = %v, want an error with %q", b.entry, err, b.msg)
		}
	}
}
