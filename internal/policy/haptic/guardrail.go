package haptic

import (
	"reflect"

	"github.com/gwpol/gwpol/internal/policy"
)

var _ policy.ValueTyper = Kind{}

// FieldType implements policy.ValueTyper: each field's value is the
// spec's own type, whose JSON tags name its sub-fields (rateLimit.requests).
func (Kind) FieldType(key string) reflect.Type {
	switch key {
	case FieldJWT:
		return reflect.TypeFor[*JWT]()
	case FieldAPIKey:
		return reflect.TypeFor[*APIKey]()
	case FieldRateLimit:
		return reflect.TypeFor[*RateLimit]()
	case FieldWAF:
		return reflect.TypeFor[*WAF]()
	case FieldCache:
		return reflect.TypeFor[*Cache]()
	}
	return nil
}
