package kgateway

import (
	"reflect"
	"testing"
)

// TestDisables: the values that switch a feature off where they apply —
// disable: {} on a field that has it, an empty rateLimit.local — and
// those that configure it.
func TestDisables(t *testing.T) {
	tests := []struct {
		key  string
		v    any
		want bool
	}{
		{"extAuth", &ExtAuthPolicy{Disable: &PolicyDisable{}}, true},
		{"extAuth", &ExtAuthPolicy{ExtensionRef: &NamespacedObjectReference{Name: "authz"}}, false},
		{"rateLimit.local", &LocalRateLimitPolicy{}, true},
		{"rateLimit.local", &LocalRateLimitPolicy{TokenBucket: &TokenBucket{MaxTokens: 1, FillInterval: "1s"}}, false},
		{"rateLimit.local", (*LocalRateLimitPolicy)(nil), false},
		{"timeouts", &Timeouts{}, false},
		{"statPrefix", new("x"), false},
	}
	for _, tt := range tests {
		if got := (Kind{}).Disables(tt.key, tt.v); got != tt.want {
			t.Errorf("Disables(%s, %+v) = %v, want %v", tt.key, tt.v, got, tt.want)
		}
	}
}

// TestFieldType: every field's value type is the type its decoder puts
// in Values.
func TestFieldType(t *testing.T) {
	for _, f := range fields {
		if (Kind{}).FieldType(f.key) == nil {
			t.Errorf("FieldType(%s) = nil", f.key)
		}
	}
	if got := (Kind{}).FieldType("timeouts"); got != reflect.TypeFor[*Timeouts]() {
		t.Errorf("FieldType(timeouts) = %v", got)
	}
	if got := (Kind{}).FieldType("rateLimit.local"); got != reflect.TypeFor[*LocalRateLimitPolicy]() {
		t.Errorf("FieldType(rateLimit.local) = %v", got)
	}
}
