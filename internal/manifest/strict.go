package manifest

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gwpol/gwpol/internal/diag"
	yaml "go.yaml.in/yaml/v3"
)

// UnknownField is a key in the input that the typed object has no field for.
type UnknownField struct {
	Path string // e.g. spec.rules[0].matchs
	Pos  diag.Position
	// Known are the keys the type does know at that level, sorted.
	Known []string
}

// Suggestion is the known key the unknown one is most likely a typo of
// ("" when none is near).
func (u UnknownField) Suggestion() string {
	key := u.Path
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		key = key[i+1:]
	}
	return diag.Nearest(key, u.Known)
}

// UnknownFields walks the object's YAML alongside the JSON shape of typ (a
// Go struct type, usually the typed Kubernetes object) and returns every key
// the type does not know, with the key's position. Unlike a strict JSON
// decoder it reports all of them, not just the first, and where they are.
func (o *Object) UnknownFields(typ reflect.Type) []UnknownField {
	var out []UnknownField
	o.unknown(o.tree(), typ, "", &out)
	return out
}

// UnknownFieldsAt is UnknownFields for one field path of the object.
func (o *Object) UnknownFieldsAt(path string, typ reflect.Type) []UnknownField {
	n := o.Lookup(path)
	if n == nil {
		return nil
	}
	var out []UnknownField
	o.unknown(n, typ, path, &out)
	return out
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func (o *Object) unknown(n *yaml.Node, t reflect.Type, path string, out *[]UnknownField) {
	n = resolve(n)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	// Types that decode themselves (times, quantities, IntOrString, raw JSON)
	// accept their own shapes; nothing to check inside.
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return
		}
		fields := jsonFields(t)
		eachPair(n, func(k, v *yaml.Node) {
			key := resolve(k).Value
			p := joinPath(path, key)
			f, ok := fields[key]
			if !ok {
				*out = append(*out, UnknownField{Path: p, Pos: o.posOf(k), Known: sortedKeys(fields)})
				return
			}
			o.unknown(v, f.typ, p, out)
		})
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode || t.Elem().Kind() == reflect.Uint8 {
			return
		}
		for i, c := range n.Content {
			o.unknown(c, t.Elem(), path+"["+strconv.Itoa(i)+"]", out)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return
		}
		eachPair(n, func(k, v *yaml.Node) {
			o.unknown(v, t.Elem(), joinPath(path, resolve(k).Value), out)
		})
	}
}

func sortedKeys(fields map[string]jsonField) []string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// A jsonField is a struct field as JSON keys see it.
type jsonField struct {
	index  []int // through the flattened structs, outermost first
	typ    reflect.Type
	quoted bool // the ,string option applies
}

var fieldCache sync.Map // reflect.Type → map[string]jsonField

// jsonFields maps a struct's JSON keys to its fields, flattening embedded
// and `,inline` structs the way encoding/json and Kubernetes do. Keys are
// matched exactly, as Kubernetes' decoder does and encoding/json (which
// also takes case-folded keys) does not.
func jsonFields(t reflect.Type) map[string]jsonField {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]jsonField)
	}
	m := map[string]jsonField{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if (f.Anonymous && name == "") || hasOption(opts, "inline") {
			if ft.Kind() == reflect.Struct {
				for k, sub := range jsonFields(ft) {
					if _, dup := m[k]; !dup {
						sub.index = append([]int{i}, sub.index...)
						m[k] = sub
					}
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
		m[name] = jsonField{index: []int{i}, typ: f.Type, quoted: hasOption(opts, "string") && quotable(f.Type)}
	}
	fieldCache.Store(t, m)
	return m
}

func hasOption(opts, opt string) bool {
	return strings.Contains(","+opts+",", ","+opt+",")
}

// quotable reports whether encoding/json honours the ,string option on a
// field of type t: scalars, or an unnamed pointer to one.
func quotable(t reflect.Type) bool {
	if t.Name() == "" && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}
