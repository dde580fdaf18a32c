package kgateway

import (
	"reflect"

	"github.com/gwpol/gwpol/internal/policy"
)

// The hooks guardrails read.
var (
	_ policy.Disabler   = Kind{}
	_ policy.ValueTyper = Kind{}
)

// Disables implements policy.Disabler: a value with disable: {} switches
// its filter off where it applies (kgateway's PolicyDisable on extAuth,
// extProc, buffer, compression…), and an empty rateLimit.local disables
// any local rate limit applied to the target (kgateway's
// toLocalRateLimitFilterConfig builds a disabled one for it).
func (Kind) Disables(key string, v any) bool {
	if key == "rateLimit.local" {
		l, ok := v.(*LocalRateLimitPolicy)
		return ok && l != nil && *l == (LocalRateLimitPolicy{})
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return false
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return false
	}
	d := rv.FieldByName("Disable")
	return d.IsValid() && d.Type() == reflect.TypeFor[*PolicyDisable]() && !d.IsNil()
}

// FieldType implements policy.ValueTyper: the type each field's getter
// returns (the spec's own type, whose JSON tags are the spec's names).
func (Kind) FieldType(key string) reflect.Type {
	probe := &TrafficPolicySpec{RateLimit: &RateLimit{}, Compression: &Compression{}}
	for _, f := range fields {
		if f.key == key {
			if v := f.get(probe); v != nil {
				return reflect.TypeOf(v)
			}
		}
	}
	return nil
}
