package envoygateway

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// unrendered is the first key (as a dotted path under the value, sorted
// order) that v sets and the Go type t a renderer decodes it into has no
// field for: the renderer's type is the record of what it consumes, so a
// key it lacks would be dropped silently by encoding/json. "" when every
// key is known (matched as encoding/json matches them, case aside).
// Objects are walked into through struct fields, slices and
// pointers; a field of type json.RawMessage or a map takes any keys (its
// renderer reads them itself).
func unrendered(v json.RawMessage, t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice:
		if t == reflect.TypeFor[json.RawMessage]() {
			return ""
		}
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			return ""
		}
		for _, it := range items {
			if k := unrendered(it, t.Elem()); k != "" {
				return k
			}
		}
	case reflect.Struct:
		var keys map[string]json.RawMessage
		if json.Unmarshal(v, &keys) != nil {
			return ""
		}
		fields := jsonFieldTypes(t)
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			ft, ok := fields[k]
			if !ok {
				// encoding/json, which the renderers decode with, also
				// takes a key that differs only in case
				for name, t := range fields {
					if strings.EqualFold(name, k) {
						ft, ok = t, true
						break
					}
				}
			}
			if !ok {
				return k
			}
			if sub := unrendered(keys[k], ft); sub != "" {
				return k + "." + sub
			}
		}
	}
	return ""
}

// jsonFieldTypes maps a struct's JSON keys to their field types, through
// embedded structs.
func jsonFieldTypes(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFieldTypes(ft) {
					out[k] = v
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
