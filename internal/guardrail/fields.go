package guardrail

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// selects reports whether a guardrail field name covers a field key
// whole: the key itself, or a prefix of it (rateLimit covers
// rateLimit.local, perPortPolicy perPortPolicy[80]).
func selects(name, key string) bool {
	return key == name || strings.HasPrefix(key, name+".") || strings.HasPrefix(key, name+"[")
}

// match says whether a guardrail field name is about a field key, and
// the sub-field path inside the key's value it names (nil: the whole
// value), e.g. timeouts.request → key timeouts, sub [request].
func match(name, key string) (sub []string, ok bool) {
	if selects(name, key) {
		return nil, true
	}
	if rest, found := strings.CutPrefix(name, key+"."); found && rest != "" {
		return strings.Split(rest, "."), true
	}
	return nil, false
}

// checkField refuses a field name that names no field of any registered
// kind, nor a sub-field of one (by its kind's ValueTyper), with the
// nearest name.
func checkField(reg *policy.Registry, name string) error {
	if name == "" {
		return fmt.Errorf("a field name is empty")
	}
	var names []string
	var subErr error
	for _, k := range reg.Kinds() {
		for _, fs := range k.Spec().Fields {
			key := fs.Key
			if fs.Family {
				if strings.HasPrefix(name, key) || key == name+"[" {
					return nil
				}
			} else if selects(name, key) {
				return nil
			}
			names = append(names, strings.TrimSuffix(key, "["))
			if top, _, nested := strings.Cut(key, "."); nested && !slices.Contains(names, top) {
				names = append(names, top)
			}
			sub, ok := match(name, key)
			if !ok || fs.Family {
				continue
			}
			vt, typed := k.(policy.ValueTyper)
			var t reflect.Type
			if typed {
				t = vt.FieldType(key)
			}
			if t == nil {
				return nil // the kind does not say its sub-fields
			}
			err := checkSub(t, key, sub)
			if err == nil {
				return nil
			}
			subErr = err
		}
	}
	if subErr != nil {
		return subErr
	}
	msg := fmt.Sprintf("unknown field %q", name)
	if best := diag.Nearest(name, names); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	} else {
		msg += " (fields are the names gwpol explain shows, e.g. extAuth, rateLimit.local, timeouts.request)"
	}
	return fmt.Errorf("%s", msg)
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// checkSub follows a sub-field path through a value type's JSON names.
func checkSub(t reflect.Type, key string, sub []string) error {
	at := key
	for _, seg := range sub {
		for !decodesItself(t) && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			t = t.Elem()
		}
		if t.Kind() == reflect.Map || t.Kind() == reflect.Interface || decodesItself(t) {
			return nil // keys of the user's own, or a shape the type decodes itself (raw JSON params)
		}
		if t.Kind() != reflect.Struct {
			return fmt.Errorf("unknown field %q: %s has no sub-fields", at+"."+seg, at)
		}
		names := jsonNames(t)
		ft, ok := names[seg]
		if !ok {
			known := slices.Sorted(mapKeys(names))
			msg := fmt.Sprintf("unknown field %q: %s has no %q", at+"."+seg, at, seg)
			if best := diag.Nearest(seg, known); best != "" {
				msg += fmt.Sprintf("; did you mean %q?", at+"."+best)
			} else {
				msg += fmt.Sprintf(" (it has %s)", strings.Join(known, ", "))
			}
			return fmt.Errorf("%s", msg)
		}
		t, at = ft, at+"."+seg
	}
	return nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// decodesItself reports whether a type reads its own JSON (raw JSON,
// quantities, times): its sub-fields are not the type's to say.
func decodesItself(t reflect.Type) bool {
	return t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler)
}

// jsonNames are a struct type's fields by JSON name, inline embeds
// flattened.
func jsonNames(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && (name == "" || strings.Contains(opts, "inline")) {
			et := f.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				for k, v := range jsonNames(et) {
					out[k] = v
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// leaf is one scalar of a value under a sub-field path.
type leaf struct {
	path  string // relative to the field's spec path: ".request", ".rules[0].limit"
	value any    // string, json.Number, bool
}

// decode turns a field value (a kind's typed value or raw JSON) into
// plain JSON data; nil when it cannot be marshalled.
func decode(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return nil
	}
	return out
}

// nodes are the parts of data a sub-field path names (every element of a
// list on the way), with their paths; none when the value has no such
// part.
func nodes(data any, sub []string) []leaf {
	cur := []leaf{{value: data}}
	for _, seg := range sub {
		var next []leaf
		for _, n := range cur {
			for _, e := range elems(n) {
				if m, ok := e.value.(map[string]any); ok {
					if v, ok := m[seg]; ok && v != nil {
						next = append(next, leaf{path: e.path + "." + seg, value: v})
					}
				}
			}
		}
		cur = next
	}
	return cur
}

// elems are a node's elements when it is a list, else the node.
func elems(n leaf) []leaf {
	l, ok := n.value.([]any)
	if !ok {
		return []leaf{n}
	}
	out := make([]leaf, 0, len(l))
	for i, v := range l {
		out = append(out, leaf{path: n.path + "[" + strconv.Itoa(i) + "]", value: v})
	}
	return out
}

// scalars are every scalar under the nodes, in path order.
func scalars(ns []leaf) []leaf {
	var out []leaf
	var walk func(leaf)
	walk = func(n leaf) {
		switch v := n.value.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(leaf{path: n.path + "." + k, value: v[k]})
			}
		case []any:
			for _, e := range elems(n) {
				walk(e)
			}
		case nil:
		default:
			out = append(out, n)
		}
	}
	for _, n := range ns {
		walk(n)
	}
	return out
}

// text is a scalar as a user writes it.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	default:
		return fmt.Sprint(x)
	}
}

// parseDuration reads a Go duration (30s, 1m30s, 100ms) or a whole
// number of days (1d), which HAPTIC periods use.
func parseDuration(s string) (time.Duration, bool) {
	if d, err := time.ParseDuration(s); err == nil {
		return d, true
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if v, err := strconv.ParseInt(n, 10, 32); err == nil {
			return time.Duration(v) * 24 * time.Hour, true
		}
	}
	return 0, false
}

// parseBound reads a max or min.
func parseBound(s string) (*Bound, error) {
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		return &Bound{Text: s, Number: n}, nil
	}
	if d, ok := parseDuration(s); ok {
		return &Bound{Text: s, IsDuration: true, Duration: d}, nil
	}
	return nil, fmt.Errorf("%q is neither a number nor a duration (like 60s, 500ms, 5m)", s)
}

// compare orders a scalar against the bound: ok false when the scalar is
// not of the bound's sort (a number against a duration).
func (b *Bound) compare(v any) (c int, ok bool) {
	if b.IsDuration {
		s, isStr := v.(string)
		if !isStr {
			return 0, false
		}
		d, parsed := parseDuration(s)
		if !parsed {
			return 0, false
		}
		return cmpOrder(d, b.Duration), true
	}
	n, isNum := v.(json.Number)
	if !isNum {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil {
		return 0, false
	}
	return cmpOrder(f, b.Number), true
}

func cmpOrder[T int64 | float64 | time.Duration](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
