package envoygateway

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// unrendered is the first field (as a dotted path under the value, JSON
// keys in sorted order) that the typed value v sets and the Go type t has
// no field for: t is the record of what a renderer consumes of Envoy
// Gateway's type (a subset of its fields), so a field it lacks would be
// dropped silently. "" when every set field is in t. Objects are walked
// into through struct fields, slices and pointers; a field of t of type
// json.RawMessage or a map takes any fields (its renderer reads them
// itself). at is where v was written: a field whose value is only the
// CRD's default (writtenAt.byDefault) is none the user set, and is not
// named.
func unrendered(at writtenAt, v any, t reflect.Type) string {
	return unrenderedValue(at, reflect.ValueOf(v), t)
}

func unrenderedValue(at writtenAt, v reflect.Value, t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if t == reflect.TypeFor[json.RawMessage]() || t.Kind() == reflect.Map {
		return ""
	}
	switch v.Kind() {
	case reflect.Slice:
		if t.Kind() != reflect.Slice {
			return ""
		}
		for i := range v.Len() {
			if k := unrenderedValue(at.index(i), v.Index(i), t.Elem()); k != "" {
				return k
			}
		}
	case reflect.Struct:
		if t.Kind() != reflect.Struct {
			return ""
		}
		fields := jsonFieldTypes(t)
		idx := jsonFieldIndexes(v.Type())
		keys := make([]string, 0, len(idx))
		for k := range idx {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fv, ok := fieldAt(v, idx[k])
			if !ok || fv.IsZero() || at.field(k).byDefault() {
				continue
			}
			ft, ok := fields[k]
			if !ok {
				return k
			}
			if sub := unrenderedValue(at.field(k), fv, ft); sub != "" {
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
