package manifest

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"
)

// Decode decodes the whole object into v, a pointer to a typed Kubernetes
// object. Errors name the file, line and column of the value that did not
// fit.
func (o *Object) Decode(v any) error { return o.DecodeField("", v) }

// DecodeField decodes one field (path as in Lookup) into v. A missing field
// decodes as null.
func (o *Object) DecodeField(path string, v any) error {
	_, err := o.decode(path, v, false)
	return err
}

// DecodeStrict is Decode that also returns the keys v's type has no field
// for, as UnknownFields would, found in the same walk.
func (o *Object) DecodeStrict(v any) ([]UnknownField, error) {
	return o.decode("", v, true)
}

// DecodeAll is DecodeStrict that does not stop at the first value that
// does not fit: it reports every one, each at its own position, and
// decodes everything else, so one run shows every mistake of a document.
func (o *Object) DecodeAll(v any) ([]UnknownField, []error) {
	return o.DecodeFieldAll("", v)
}

// DecodeFieldAll is DecodeAll for one field (path as in Lookup): the
// unknown keys and errors it reports have paths below it.
func (o *Object) DecodeFieldAll(path string, v any) ([]UnknownField, []error) {
	unknown, _, errs := o.decodeAll(path, v, false)
	return unknown, errs
}

// DecodeFieldAllFolded is DecodeFieldAll reading keys as encoding/json
// does: a key that names no field exactly sets the field whose name it
// matches in any case (a controller that decodes its input with
// encoding/json takes Name for name). folded are the keys read that way;
// unknown are only those that match no field at all.
func (o *Object) DecodeFieldAllFolded(path string, v any) (unknown, folded []UnknownField, errs []error) {
	return o.decodeAll(path, v, true)
}

func (o *Object) decodeAll(path string, v any, fold bool) (unknown, folded []UnknownField, errs []error) {
	d, err := o.newDecoder(path, v, true)
	if err != nil {
		return nil, nil, []error{err}
	}
	defer d.release()
	d.collect, d.fold = true, fold
	p := planFor(d.rv.Elem().Type())
	d.errs = appendErr(d.errs, d.value(d.root, d.rv.Elem(), p))
	if len(d.errs) == 0 {
		d.applyDefaults(d.rv.Elem(), p)
	}
	return d.unknowns, d.folded, d.errs
}

func appendErr(errs []error, err error) []error {
	if err == nil {
		return errs
	}
	return append(errs, err)
}

// A decoder goes from the YAML tree straight into Go values, reading them as
// encoding/json would read the object's JSON form (see writeJSON), except
// that keys match field names exactly, as in Kubernetes' decoder (unless
// fold: DecodeFieldAllFolded). Values
// only encoding/json knows how to decode are handed to it as JSON.
//
// It recurses along the tree without a depth guard: Parse has refused
// documents nested deeper than Limits.MaxDepth, which also rules out
// aliases that contain themselves.
type decoder struct {
	o        *Object
	base     string // the path decoded, prefix of every reported path
	steps    []step // where the walk is below base
	strict   bool   // whether unknown keys are wanted
	unknowns []UnknownField
	collect  bool    // whether to go on past values that do not fit
	errs     []error // those values' errors, when collecting
	fold     bool    // whether a key matches a field's name in any case
	folded   []UnknownField
	root     *yaml.Node
	rv       reflect.Value
	buf      bytes.Buffer // JSON for encoding/json, reused
	stepBuf  [16]step
}

// A step is one level of the path: a mapping key, or a list index when
// index >= 0.
type step struct {
	key   string
	index int
}

func (o *Object) decode(path string, v any, strict bool) ([]UnknownField, error) {
	d, err := o.newDecoder(path, v, strict)
	if err != nil {
		return nil, err
	}
	defer d.release()
	p := planFor(d.rv.Elem().Type())
	if err := d.value(d.root, d.rv.Elem(), p); err != nil {
		return nil, err
	}
	d.applyDefaults(d.rv.Elem(), p)
	return d.unknowns, nil
}

func (o *Object) newDecoder(path string, v any, strict bool) (*decoder, error) {
	n := o.tree()
	if path != "" {
		if n = o.Lookup(path); n == nil {
			at := o.FieldPos(path)
			n = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null", Line: at.Line - int(o.lineBase), Column: at.Col}
		}
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, Errorf(o.posOf(n), "%s %s: %v", o.Kind, o.Name, &json.InvalidUnmarshalError{Type: reflect.TypeOf(v)})
	}
	d := decoders.Get().(*decoder)
	buf := d.buf
	buf.Reset()
	*d = decoder{o: o, base: path, strict: strict, root: n, rv: rv, buf: buf}
	d.steps = d.stepBuf[:0]
	return d, nil
}

// decoders are reused: a model decodes tens of thousands of objects, and
// a decoder with its path steps and JSON buffer was an allocation of half
// a kilobyte per object.
var decoders = sync.Pool{New: func() any { return new(decoder) }}

// release returns d to the pool, keeping only its buffers: what it
// decoded and found belongs to the caller.
func (d *decoder) release() {
	buf := d.buf
	*d = decoder{buf: buf}
	decoders.Put(d)
}

// settle is where a value's error goes: back to the caller, or, when
// collecting, onto the list while the walk goes on with the next value.
func (d *decoder) settle(err error) error {
	if err == nil || !d.collect {
		return err
	}
	d.errs = append(d.errs, err)
	return nil
}

func (d *decoder) value(n *yaml.Node, v reflect.Value, p *plan) error {
	n = resolve(n)
	for n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = resolve(n.Content[0])
	}
	kind := p.typ.Kind()
	if p.how == viaJSON && kind != reflect.Pointer {
		return d.viaJSON(n, v, p) // Unmarshalers see null too
	}
	typ, text, err := nodeJSON(n, d.o)
	if err != nil {
		return err
	}
	if typ == jsonNull {
		if kind == reflect.Pointer || kind == reflect.Slice || kind == reflect.Map {
			v.SetZero()
		}
		return nil
	}
	switch p.how {
	case viaJSON:
		return d.viaJSON(n, v, p)
	case viaText:
		return d.text(n, typ, text, v, p)
	}
	switch kind {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(p.typ.Elem()))
		}
		return d.value(n, v.Elem(), p.elem)
	case reflect.Struct:
		if typ != jsonObject {
			break
		}
		return d.object(n, v, p)
	case reflect.Map:
		if typ != jsonObject {
			break
		}
		return d.mapping(n, v, p)
	case reflect.Slice:
		if typ != jsonArray {
			break
		}
		return d.list(n, v, p)
	case reflect.String:
		if typ != jsonString {
			break
		}
		v.SetString(text)
		return nil
	case reflect.Bool:
		if typ != jsonBool {
			break
		}
		v.SetBool(text == "true")
		return nil
	default:
		if typ != jsonNumber {
			break
		}
		return d.number(n, text, v, p)
	}
	return d.typeError(n, d.path(), p.typ, typ.String())
}

// number sets an int, uint or float as encoding/json does: integers must be
// written as integers, and every number must fit the type.
func (d *decoder) number(n *yaml.Node, text string, v reflect.Value, p *plan) error {
	ok := false
	switch p.typ.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := strconv.ParseInt(text, 10, 64)
		if ok = err == nil && !v.OverflowInt(i); ok {
			v.SetInt(i)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u, err := strconv.ParseUint(text, 10, 64)
		if ok = err == nil && !v.OverflowUint(u); ok {
			v.SetUint(u)
		}
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(text, p.typ.Bits())
		if ok = err == nil && !v.OverflowFloat(f); ok {
			v.SetFloat(f)
		}
	default:
		return d.typeError(n, d.path(), p.typ, "number")
	}
	if !ok {
		return d.mismatch(n, d.path(), integerRange(p.typ), "number "+text)
	}
	return nil
}

func (d *decoder) object(n *yaml.Node, v reflect.Value, p *plan) error {
	var err error
	eachPair(n, func(k, val *yaml.Node) {
		if err == nil {
			err = d.settle(d.field(k, val, v, p))
		}
	})
	return err
}

func (d *decoder) field(k, n *yaml.Node, v reflect.Value, p *plan) error {
	key := resolve(k).Value
	f, ok := p.fields[key]
	if !ok && d.fold {
		if f, ok = p.foldedField(key); ok && d.strict {
			d.folded = append(d.folded, UnknownField{Path: joinPath(d.path(), key), Pos: d.o.posOf(k), Known: p.keys()})
		}
	}
	if !ok {
		if d.strict {
			d.unknowns = append(d.unknowns, UnknownField{Path: joinPath(d.path(), key), Pos: d.o.posOf(k), Known: p.keys()})
		}
		return nil
	}
	for _, i := range f.embedded {
		if v = v.Field(i); v.Kind() != reflect.Pointer {
			continue
		}
		// A pointer to an embedded struct: allocated as encoding/json does.
		if v.IsNil() {
			if !v.CanSet() {
				return Errorf(d.o.posOf(k), "%s %s: %s: cannot set embedded pointer to unexported struct %v", d.o.Kind, d.o.Name, joinPath(d.path(), key), v.Type().Elem())
			}
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	d.steps = append(d.steps, step{key: key, index: -1})
	err := d.value(n, v.Field(f.index), f.plan)
	d.steps = d.steps[:len(d.steps)-1]
	return err
}

func (d *decoder) mapping(n *yaml.Node, v reflect.Value, p *plan) error {
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(p.typ, len(n.Content)/2))
	}
	// One key and one element serve every entry: SetMapIndex copies them.
	key := reflect.New(p.typ.Key()).Elem()
	elem := reflect.New(p.typ.Elem()).Elem()
	var err error
	eachPair(n, func(k, val *yaml.Node) {
		if err != nil {
			return
		}
		name := resolve(k).Value
		key.SetString(name)
		elem.SetZero()
		d.steps = append(d.steps, step{key: name, index: -1})
		err = d.settle(d.value(val, elem, p.elem))
		d.steps = d.steps[:len(d.steps)-1]
		v.SetMapIndex(key, elem)
	})
	return err
}

func (d *decoder) list(n *yaml.Node, v reflect.Value, p *plan) error {
	if len(n.Content) == 0 {
		v.Set(reflect.MakeSlice(p.typ, 0, 0)) // [] is empty, not nil
		return nil
	}
	// Grown in place: MakeSlice would allocate a slice header as well.
	v.SetZero()
	v.Grow(len(n.Content))
	v.SetLen(len(n.Content))
	for i, c := range n.Content {
		d.steps = append(d.steps, step{index: i})
		err := d.settle(d.value(c, v.Index(i), p.elem))
		d.steps = d.steps[:len(d.steps)-1]
		if err != nil {
			return err
		}
	}
	return nil
}

// text decodes an encoding.TextUnmarshaler, which takes strings only.
func (d *decoder) text(n *yaml.Node, typ jsonType, text string, v reflect.Value, p *plan) error {
	if typ != jsonString {
		return d.typeError(n, d.path(), p.typ, typ.String())
	}
	if err := d.target(v).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(text)); err != nil {
		return Errorf(d.o.posOf(n), "%s %s: %v", d.o.Kind, d.o.Name, err)
	}
	return nil
}

// viaJSON has encoding/json decode n's JSON form into v: for types that
// decode themselves, for interfaces (whose numbers must stay float64) and
// for the rare shapes only it implements. Unknown keys inside are still
// reported as UnknownFields would.
func (d *decoder) viaJSON(n *yaml.Node, v reflect.Value, p *plan) error {
	d.buf.Reset()
	if err := writeJSON(&d.buf, n, d.o); err != nil {
		return err
	}
	if err := json.Unmarshal(d.buf.Bytes(), d.target(v).Interface()); err != nil {
		return d.jsonError(n, err)
	}
	if d.strict {
		d.o.unknown(n, p.typ, d.path(), &d.unknowns)
	}
	return nil
}

// target is the pointer encoding/json or UnmarshalText decodes through: v
// itself when it is a pointer (allocated if nil), else v's address.
func (d *decoder) target(v reflect.Value) reflect.Value {
	if v.Kind() != reflect.Pointer {
		return v.Addr()
	}
	if v.IsNil() {
		v.Set(reflect.New(v.Type().Elem()))
	}
	return v
}

// jsonError places an error from encoding/json. Its type errors name the
// field below n without list indexes: the first value of the reported
// JSON type along that path is taken to be the culprit.
func (d *decoder) jsonError(n *yaml.Node, err error) error {
	te, ok := err.(*json.UnmarshalTypeError)
	if !ok {
		return Errorf(d.o.posOf(n), "%s %s: %v", d.o.Kind, d.o.Name, err)
	}
	at, path := n, d.path()
	if te.Field != "" {
		path = joinPath(path, te.Field)
		kind, _, _ := strings.Cut(te.Value, " ")
		if f := d.o.findOfKind(n, strings.Split(te.Field, "."), kind); f != nil {
			at = f
		}
	}
	return d.typeError(at, path, te.Type, te.Value)
}

func (d *decoder) typeError(n *yaml.Node, path string, t reflect.Type, got string) error {
	return d.mismatch(n, path, jsonTypeName(t), got)
}

// mismatch is the error of a value (got) that is not what the field at
// path takes (want, as jsonTypeName words it).
func (d *decoder) mismatch(n *yaml.Node, path, want, got string) error {
	err := Errorf(d.o.posOf(n), "%s %s: %s must be %s, not %s", d.o.Kind, d.o.Name, path, want, got)
	var pe *PosError
	if errors.As(err, &pe) {
		pe.Field = path
	}
	return err
}

// integerRange says which numbers an integer type takes, for a number
// that does not fit it (a fraction, a negative number for an unsigned
// type, one out of range); jsonTypeName's words for another type.
func integerRange(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		return "a whole number from " + strconv.FormatInt(-1<<(bits-1), 10) + " to " + strconv.FormatInt(1<<(bits-1)-1, 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a whole number from 0 to " + strconv.FormatUint(uint64(1)<<t.Bits()-1, 10)
	}
	return jsonTypeName(t)
}

// jsonTypeName says what JSON a Go type takes, for messages.
func jsonTypeName(t reflect.Type) string {
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		return "a string"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map:
		return "a map"
	}
	return "an object (" + t.String() + ")"
}

// path renders where the walk is, as UnknownField paths read:
// spec.rules[0].matches. It is only built for findings and errors.
func (d *decoder) path() string {
	var b strings.Builder
	b.WriteString(d.base)
	for _, s := range d.steps {
		if s.index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

// A plan is how values of one Go type are decoded, worked out once per type
// so that the walk does no tag parsing and no interface checks.
type plan struct {
	typ    reflect.Type
	how    how
	elem   *plan                 // pointers, slices and maps
	fields map[string]*fieldPlan // structs, by exact JSON key
}

// keys are the JSON keys a struct plan knows, sorted: what an unknown key
// is compared with for "did you mean".
func (p *plan) keys() []string {
	keys := make([]string, 0, len(p.fields))
	for k := range p.fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// foldedField is the field whose JSON key equals key in any case, as
// encoding/json matches one that names none exactly; of several, the
// first in key order.
func (p *plan) foldedField(key string) (*fieldPlan, bool) {
	for _, k := range p.keys() {
		if strings.EqualFold(k, key) {
			return p.fields[k], true
		}
	}
	return nil, false
}

type fieldPlan struct {
	embedded []int // indexes of the flattened structs the field is in
	index    int
	plan     *plan
}

type how uint8

const (
	direct  how = iota // walked by the decoder
	viaJSON            // handed to encoding/json
	viaText            // an encoding.TextUnmarshaler
)

var (
	plans  sync.Map // reflect.Type → *plan; complete plans only
	planMu sync.Mutex
)

func planFor(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	planMu.Lock()
	defer planMu.Unlock()
	building := map[reflect.Type]*plan{}
	p := buildPlan(t, building)
	// Published only now: a recursive type's plan is complete once the
	// outermost call returns.
	for t, p := range building {
		plans.Store(t, p)
	}
	return p
}

func buildPlan(t reflect.Type, building map[reflect.Type]*plan) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &plan{typ: t, how: howOf(t)}
	building[t] = p
	if p.how != direct {
		return p
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		p.elem = buildPlan(t.Elem(), building)
	case reflect.Struct:
		p.fields = map[string]*fieldPlan{}
		for name, f := range jsonFields(t) {
			if f.quoted {
				// Only encoding/json reads values from inside strings.
				p.how, p.fields = viaJSON, nil
				break
			}
			fp := &fieldPlan{embedded: f.index[:len(f.index)-1], index: f.index[len(f.index)-1]}
			fp.plan = buildPlan(f.typ, building)
			p.fields[name] = fp
		}
	}
	return p
}

var numberType = reflect.TypeFor[json.Number]()

// howOf decides who decodes a type. encoding/json looks for the methods on
// the pointer it decodes through: the pointer itself, or a value's address.
func howOf(t reflect.Type) how {
	pt := t
	if t.Kind() != reflect.Pointer {
		pt = reflect.PointerTo(t)
	}
	switch {
	case pt.Implements(jsonUnmarshaler):
		return viaJSON
	case pt.Implements(textUnmarshaler):
		return viaText
	}
	switch t.Kind() {
	case reflect.Interface, reflect.Array:
		return viaJSON
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return viaJSON // base64
		}
	case reflect.Map:
		if k := t.Key(); k.Kind() != reflect.String || reflect.PointerTo(k).Implements(textUnmarshaler) {
			return viaJSON
		}
	case reflect.String:
		if t == numberType {
			return viaJSON
		}
	}
	return direct
}
