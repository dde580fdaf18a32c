package policy

import (
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
)

type effectKind struct{}

func (effectKind) GroupKind() model.GroupKind { return model.GroupKind{Group: "g", Kind: "K"} }
func (effectKind) Spec() KindSpec {
	return KindSpec{Fields: []FieldSpec{{Key: "a"}, {Key: "b"}}}
}
func (effectKind) Decode(*manifest.Object, *Env) *Policy { return nil }

// disablingKind's empty value of a switches its feature off.
type disablingKind struct{ effectKind }

func (disablingKind) Disables(key string, v any) bool { return key == "a" }

func TestNoEffect(t *testing.T) {
	type limits struct{ Max *int }
	off, five := false, 5
	tests := []struct {
		name   string
		values map[string]any
		want   bool
	}{
		{"sets nothing", map[string]any{}, true},
		{"only an empty block", map[string]any{"a": &limits{}}, true},
		{"empty list", map[string]any{"a": []string{}}, true},
		{"a value", map[string]any{"a": &limits{Max: &five}}, false},
		{"an explicit false", map[string]any{"a": &off}, false},
		{"one empty, one set", map[string]any{"a": &limits{}, "b": &limits{Max: &five}}, false},
	}
	for _, tt := range tests {
		p := &Policy{Kind: effectKind{}, Values: tt.values}
		if got := p.NoEffect(); got != tt.want {
			t.Errorf("%s: NoEffect = %v, want %v", tt.name, got, tt.want)
		}
	}
	if p := (&Policy{Kind: disablingKind{}, Values: map[string]any{"a": &struct{ Max *int }{}}}); p.NoEffect() {
		t.Error("an empty value that switches its feature off (kgateway's rateLimit.local: {}) has an effect")
	}
	invalid := &Policy{Kind: effectKind{}, Values: map[string]any{}, Invalid: []diag.Diagnostic{{Code: "GWP401"}}}
	if invalid.NoEffect() {
		t.Error("an invalid policy is reported as Invalid, not as having no effect")
	}
}
