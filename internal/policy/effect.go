package policy

import "reflect"

// NoEffect reports whether a valid policy sets no field that could take
// effect: none at all (only targetRefs, or only misspelled keys), or only
// empty ones (rateLimit: {}, timeouts: {}). Such a policy attaches and is
// reported Attached, yet changes nothing where it attaches. An empty value
// the kind says switches its feature off (Disabler: kgateway's
// rateLimit.local: {}) changes something: it clears a less specific
// level's; so does one it says switches its feature on with its defaults
// (Enabler: HAPTIC's cache: {}).
func (p *Policy) NoEffect() bool {
	if !p.IsValid() || len(p.Kind.Spec().Fields) == 0 {
		return false
	}
	d, disabler := p.Kind.(Disabler)
	e, enabler := p.Kind.(Enabler)
	for key, v := range p.Values {
		if !emptyValue(v) || (disabler && d.Disables(key, v)) || (enabler && e.Enables(key, v)) {
			return false // an empty value that switches a feature off clears a less specific level's (kgateway's rateLimit.local: {}); one that switches it on sets it
		}
	}
	return true
}

// emptyValue: nil, a nil or empty collection, or a pointer to a struct
// with nothing set. A pointer to a scalar (autoHostRewrite: false) is a
// setting, so it is not empty.
func emptyValue(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return true
		}
		e := rv.Elem()
		return e.Kind() == reflect.Struct && e.IsZero()
	case reflect.Slice, reflect.Map:
		return rv.Len() == 0
	case reflect.Struct:
		return rv.IsZero()
	}
	return false
}
