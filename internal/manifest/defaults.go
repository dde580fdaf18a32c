package manifest

import (
	"encoding/binary"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// What the API server stores of a custom resource is the object as
// written, pruned and then defaulted from its CRD's schema: every
// controller reads that object. The schema stage, which runs the API
// server's defaulting to validate, records the values it gave fields the
// object does not set (SetDefaults); Decode and its siblings decode them
// into the typed value after what is written, so that every stage reading
// an object typed reads what a controller would. The YAML tree, and so
// Lookup, Scalar, FieldPos and every position, stays the input as
// written: a default has no source position, and is no field the user
// set.

// A Step is one step of a field path: a key, or a list index when
// Index >= 0.
type Step struct {
	Key   string
	Index int
}

// A Default is a value the API server's defaulting gives a field an object
// does not set (or sets to null).
type Default struct {
	// Path is the field's path from the object's root.
	Path []Step
	// Value is the value given.
	Value Value
}

// A Value is a JSON value (as Unstructured holds one) made ready to decode
// into a typed field; one value may be shared by any number of defaults.
type Value struct{ n *yaml.Node }

// NewValue makes x, a JSON value (maps, slices, strings, bools, int64,
// float64 or nil), a Value.
func NewValue(x any) Value { return Value{valueNode(x)} }

// Interface is the value as encoding/json would decode it (numbers
// float64), for a view that prints it.
func (v Value) Interface() any {
	var out any
	if v.n != nil {
		_ = v.n.Decode(&out)
	}
	return out
}

func valueNode(x any) *yaml.Node {
	switch x := x.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, valueNode(x[k]))
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range x {
			n.Content = append(n.Content, valueNode(e))
		}
		return n
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: x}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}
	case int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(x, 10)}
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(x)}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(int64(x), 10)}
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(x, 'g', -1, 64)}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

// Defaults are the values the API server's defaulting gave an object's
// fields (SetDefaults), held compactly: an object may have dozens (a
// route's every backendRef has three), and a run holds them for every
// object. Each path is written as the number of steps it shares with the
// one before it and its other steps; nil holds none.
type Defaults struct {
	enc  string
	vals []*yaml.Node
}

// A DefaultsBuilder records defaults as a walk gives them: Push and Pop
// the steps down to a value, Add each default below the current one, a
// field before the fields below it.
type DefaultsBuilder struct {
	path, prev []Step
	enc        []byte
	vals       []*yaml.Node
}

// Push descends a step.
func (b *DefaultsBuilder) Push(s Step) { b.path = append(b.path, s) }

// Pop goes back up a step.
func (b *DefaultsBuilder) Pop() { b.path = b.path[:len(b.path)-1] }

// Add records v as the default of the field last below the current step.
func (b *DefaultsBuilder) Add(last Step, v Value) {
	b.Push(last)
	keep := 0
	for keep < len(b.prev) && keep < len(b.path) && b.prev[keep] == b.path[keep] {
		keep++
	}
	b.enc = binary.AppendUvarint(b.enc, uint64(keep))
	b.enc = binary.AppendUvarint(b.enc, uint64(len(b.path)-keep))
	for _, s := range b.path[keep:] {
		if s.Index >= 0 {
			b.enc = append(b.enc, 1)
			b.enc = binary.AppendUvarint(b.enc, uint64(s.Index))
			continue
		}
		b.enc = append(b.enc, 0)
		b.enc = binary.AppendUvarint(b.enc, uint64(len(s.Key)))
		b.enc = append(b.enc, s.Key...)
	}
	b.vals = append(b.vals, v.n)
	b.prev = append(b.prev[:0], b.path...)
	b.Pop()
}

// Defaults are the defaults recorded (copied: the builder may be Reset
// and used again); nil when none.
func (b *DefaultsBuilder) Defaults() *Defaults {
	if len(b.vals) == 0 {
		return nil
	}
	return &Defaults{enc: string(b.enc), vals: slices.Clone(b.vals)}
}

// Reset empties the builder, keeping its buffers for the next object.
func (b *DefaultsBuilder) Reset() {
	b.path, b.prev, b.enc, b.vals = b.path[:0], b.prev[:0], b.enc[:0], b.vals[:0]
}

// NewDefaults holds ds (each Path before the paths below it); nil when
// there are none.
func NewDefaults(ds []Default) *Defaults {
	var b DefaultsBuilder
	for _, d := range ds {
		if len(d.Path) == 0 {
			continue
		}
		b.path = append(b.path[:0], d.Path[:len(d.Path)-1]...)
		b.Add(d.Path[len(d.Path)-1], d.Value)
	}
	return b.Defaults()
}

// Len is the number of defaults held.
func (d *Defaults) Len() int {
	if d == nil {
		return 0
	}
	return len(d.vals)
}

// each calls f with every default's path (in buf, valid until f returns)
// and value, in order, until f returns false.
func (d *Defaults) each(buf []Step, f func(path []Step, v *yaml.Node) bool) {
	if d == nil {
		return
	}
	enc, path := d.enc, buf[:0]
	uvarint := func() int { // binary.Uvarint, on the string
		x, shift := 0, 0
		for {
			c := enc[0]
			enc = enc[1:]
			x |= int(c&0x7f) << shift
			if c < 0x80 {
				return x
			}
			shift += 7
		}
	}
	for _, v := range d.vals {
		keep := uvarint()
		path = path[:keep]
		for range uvarint() {
			tag := enc[0]
			enc = enc[1:]
			if tag == 1 {
				path = append(path, Step{Index: uvarint()})
				continue
			}
			n := uvarint()
			path = append(path, Step{Key: enc[:n], Index: -1})
			enc = enc[n:]
		}
		if !f(path, v) {
			return
		}
	}
}

// All are the defaults, a field before the fields below it.
func (d *Defaults) All() []Default {
	var out []Default
	d.each(nil, func(path []Step, v *yaml.Node) bool {
		out = append(out, Default{Path: slices.Clone(path), Value: Value{v}})
		return true
	})
	return out
}

// SetDefaults records the values the API server's defaulting gives the
// object's fields (nil: none). Decoding the object applies them.
func (o *Object) SetDefaults(d *Defaults) {
	if d == nil && o.more == nil {
		return
	}
	o.extra().defaults = d
}

// Defaults are the defaults recorded for the object (SetDefaults); nil
// when none. A stage that decoded the object with one set can tell a
// later SetDefaults by the pointer.
func (o *Object) Defaults() *Defaults {
	if o.more == nil {
		return nil
	}
	return o.more.defaults
}

// Defaulted reports whether the value at path (as in Lookup) is the CRD's
// default rather than anything the object sets: the field, or one above
// it, was given a default.
func (o *Object) Defaulted(path string) bool {
	ds := o.Defaults()
	if ds.Len() == 0 {
		return false
	}
	steps := parsePath(path)
	found := false
	var buf [16]Step
	ds.each(buf[:], func(p []Step, _ *yaml.Node) bool {
		found = len(p) <= len(steps) && equalSteps(p, steps[:len(p)])
		return !found
	})
	return found
}

// DefaultsAt are the defaults given at path (as in Lookup) or below it,
// a field before the fields below it; none when the object writes path
// and nothing below it is defaulted.
func (o *Object) DefaultsAt(path string) []Default {
	ds := o.Defaults()
	if ds.Len() == 0 {
		return nil
	}
	steps := parsePath(path)
	var out []Default
	var buf [16]Step
	ds.each(buf[:], func(p []Step, v *yaml.Node) bool {
		if len(p) >= len(steps) && equalSteps(steps, p[:len(steps)]) {
			out = append(out, Default{Path: slices.Clone(p), Value: Value{v}})
		}
		return true
	})
	return out
}

// FormatPath writes a path as Lookup reads it: spec.rules[0].matches.
func FormatPath(path []Step) string {
	var b strings.Builder
	for _, s := range path {
		if s.Index >= 0 {
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Key)
	}
	return b.String()
}

func equalSteps(a, b []Step) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// parsePath splits a path such as spec.rules[0].matches into its steps.
func parsePath(path string) []Step {
	var out []Step
	for path != "" {
		var seg string
		seg, path, _ = strings.Cut(path, ".")
		key, rest, _ := strings.Cut(seg, "[")
		if key != "" {
			out = append(out, Step{Key: key, Index: -1})
		}
		for rest != "" {
			var idx string
			idx, rest, _ = strings.Cut(rest, "]")
			i, err := strconv.Atoi(idx)
			if err != nil {
				i = -1
			}
			out = append(out, Step{Index: i})
			rest = strings.TrimPrefix(rest, "[")
		}
	}
	return out
}

// applyDefaults decodes the object's defaults below the decoder's base
// path into v, after what is written: each at its path, as if written
// there. A default at a place v's type has no field for is not v's to
// hold.
func (d *decoder) applyDefaults(v reflect.Value, p *plan) {
	ds := d.o.Defaults()
	if ds.Len() == 0 {
		return
	}
	var base []Step
	if d.base != "" {
		base = parsePath(d.base)
	}
	// Neither unknown keys nor errors: the values are the CRD's, valid
	// under its schema, and have no position in the input.
	strict, collect := d.strict, d.collect
	d.strict, d.collect = false, true
	errs := len(d.errs)
	var buf [16]Step
	ds.each(buf[:], func(path []Step, n *yaml.Node) bool {
		if len(path) > len(base) && equalSteps(base, path[:len(base)]) {
			d.setAt(v, p, path[len(base):], n)
		}
		return true
	})
	d.strict, d.collect, d.errs = strict, collect, d.errs[:errs]
}

// setAt decodes n into the value at path below v, unless decoding what
// is written set it already: a key written in another case that
// DecodeFieldAllFolded read as the field's (the API server prunes it and
// defaults the field; a controller decoding with encoding/json, which
// folds case, reads it).
func (d *decoder) setAt(v reflect.Value, p *plan, path []Step, n *yaml.Node) {
	if len(path) == 0 {
		if v.IsZero() {
			_ = d.value(n, v, p)
		}
		return
	}
	if p.how != direct {
		return // a type that decodes itself: whole values only
	}
	s := path[0]
	switch p.typ.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(p.typ.Elem()))
		}
		d.setAt(v.Elem(), p.elem, path, n)
	case reflect.Struct:
		f, ok := p.fields[s.Key]
		if s.Index >= 0 || !ok {
			return
		}
		for _, i := range f.embedded {
			if v = v.Field(i); v.Kind() != reflect.Pointer {
				continue
			}
			if v.IsNil() {
				if !v.CanSet() {
					return
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		d.setAt(v.Field(f.index), f.plan, path[1:], n)
	case reflect.Slice:
		if s.Index < 0 || s.Index >= v.Len() {
			return
		}
		d.setAt(v.Index(s.Index), p.elem, path[1:], n)
	case reflect.Map:
		if s.Index >= 0 {
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(p.typ))
		}
		key := reflect.New(p.typ.Key()).Elem()
		key.SetString(s.Key)
		elem := reflect.New(p.typ.Elem()).Elem()
		if cur := v.MapIndex(key); cur.IsValid() {
			elem.Set(cur)
		}
		d.setAt(elem, p.elem, path[1:], n)
		v.SetMapIndex(key, elem)
	}
}
