package envoy

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/structpb"
)

// jsonWriter writes proto messages as the JSON protojson.Marshal with
// UseProtoNames writes, already indented the way json.Indent lays it out
// (or compact), in one pass. protojson sorts every message's fields,
// re-decodes each Any and leaves indentation to a second pass over the
// text; for the tens of megabytes a large platform renders to, that was
// most of the render time. The output is byte-for-byte what
// protojson + json.Indent give, which a test checks on every golden.
type jsonWriter struct {
	buf    []byte
	indent bool
	depth  int // indentation level of the value being written
	free   []*[]fieldValue
	// collect appends to filling: populated's Range callback.
	collect func(protoreflect.FieldDescriptor, protoreflect.Value) bool
	filling *[]fieldValue

	// skip is a field left out wherever it occurs (a RouteConfiguration's
	// virtual hosts, written as units of their own); hole is the offset it
	// would have been written at, after hole members of its object.
	skip         protoreflect.FieldDescriptor
	hole, holeAt int
	// anys caches expanded Any values by depth, type and bytes: the same
	// per-filter config recurs on many routes, and decoding it again for
	// each would be most of the writing.
	anys map[uint64]anyOut
}

// anyOut is one expanded Any, with what it was expanded from so that a
// hash collision is never mistaken for a hit.
type anyOut struct {
	depth   int
	typeURL string
	value   []byte
	out     []byte
}

var anySeed = maphash.MakeSeed()

// cachedAny is where the Any's expansion at the writer's depth is cached.
func (w *jsonWriter) cachedAny(typeURL string, value []byte) (uint64, *anyOut) {
	var h maphash.Hash
	h.SetSeed(anySeed)
	h.WriteByte(byte(w.depth))
	h.WriteString(typeURL)
	h.Write(value)
	key := h.Sum64()
	if e, ok := w.anys[key]; ok && e.depth == w.depth && e.typeURL == typeURL && bytes.Equal(e.value, value) {
		return key, &e
	}
	return key, nil
}

// message appends m at the writer's depth.
func (w *jsonWriter) message(m protoreflect.Message) error {
	if wkt := wellKnown(m.Descriptor().FullName()); wkt != nil {
		return wkt(w, m)
	}
	return w.fields(m, "")
}

// fields writes m's populated fields in declaration order (protojson's
// order), after an "@type" member when typeURL is set (an expanded Any).
func (w *jsonWriter) fields(m protoreflect.Message, typeURL string) error {
	w.buf = append(w.buf, '{')
	n := 0
	if typeURL != "" {
		w.name(n, "@type")
		n++
		if err := w.str(typeURL); err != nil {
			return err
		}
	}
	set := w.populated(m)
	defer w.release(set)
	for _, f := range *set {
		if f.fd == w.skip {
			w.hole, w.holeAt = n, len(w.buf)
			continue
		}
		w.name(n, f.fd.TextName())
		n++
		if err := w.value(f.v, f.fd); err != nil {
			return err
		}
	}
	w.close(n, '}')
	return nil
}

type fieldValue struct {
	fd protoreflect.FieldDescriptor
	v  protoreflect.Value
}

// populated lists m's set fields by declaration index. Range visits
// oneofs after the other fields; the lists are short and nearly sorted,
// so an insertion sort in a reused slice is cheapest. Range's callback is
// made once per writer (a closure per call would be an allocation per
// message).
func (w *jsonWriter) populated(m protoreflect.Message) *[]fieldValue {
	var set *[]fieldValue
	if k := len(w.free); k > 0 {
		set, w.free = w.free[k-1], w.free[:k-1]
	} else {
		set = new([]fieldValue)
	}
	if w.collect == nil {
		w.collect = func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if !fd.IsExtension() {
				*w.filling = append(*w.filling, fieldValue{fd, v})
			}
			return true
		}
	}
	w.filling = set
	m.Range(w.collect)
	w.filling = nil
	s := *set
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].fd.Index() < s[j-1].fd.Index(); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return set
}

func (w *jsonWriter) release(set *[]fieldValue) {
	clear(*set)
	*set = (*set)[:0]
	w.free = append(w.free, set)
}

// name starts the n-th member of an object.
func (w *jsonWriter) name(n int, name string) {
	w.member(n)
	w.buf = append(w.buf, '"') // field names are proto identifiers: nothing to escape
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, '"')
	w.colon()
}

// key starts the n-th member of a map or Struct, whose key may need
// escaping.
func (w *jsonWriter) key(n int, key string) error {
	w.member(n)
	if err := w.str(key); err != nil {
		return err
	}
	w.colon()
	return nil
}

func (w *jsonWriter) colon() {
	w.buf = append(w.buf, ':')
	if w.indent {
		w.buf = append(w.buf, ' ')
	}
}

// member starts the n-th element of an object or array.
func (w *jsonWriter) member(n int) {
	if n > 0 {
		w.buf = append(w.buf, ',')
	} else {
		w.depth++
	}
	w.newline()
}

// close ends an object or array that got n members.
func (w *jsonWriter) close(n int, c byte) {
	if n > 0 {
		w.depth--
		w.newline()
	}
	w.buf = append(w.buf, c)
}

func (w *jsonWriter) newline() {
	if !w.indent {
		return
	}
	w.buf = append(w.buf, '\n')
	for n := 2 * w.depth; n > 0; n -= len(spaces) {
		w.buf = append(w.buf, spaces[:min(n, len(spaces))]...)
	}
}

// spaces is indentation, appended a slice at a time: in indented Envoy
// config about half of the bytes are spaces.
const spaces = "                                                                " +
	"                                                                "

func (w *jsonWriter) value(v protoreflect.Value, fd protoreflect.FieldDescriptor) error {
	switch {
	case fd.IsList():
		return w.list(v.List(), fd)
	case fd.IsMap():
		return w.mapValue(v.Map(), fd)
	}
	return w.singular(v, fd)
}

func (w *jsonWriter) list(l protoreflect.List, fd protoreflect.FieldDescriptor) error {
	w.buf = append(w.buf, '[')
	for i := range l.Len() {
		w.member(i)
		if err := w.singular(l.Get(i), fd); err != nil {
			return err
		}
	}
	w.close(l.Len(), ']')
	return nil
}

func (w *jsonWriter) mapValue(mp protoreflect.Map, fd protoreflect.FieldDescriptor) error {
	keys := make([]protoreflect.MapKey, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	slices.SortFunc(keys, compareKeys)
	w.buf = append(w.buf, '{')
	for i, k := range keys {
		if err := w.key(i, k.String()); err != nil {
			return err
		}
		if err := w.singular(mp.Get(k), fd.MapValue()); err != nil {
			return err
		}
	}
	w.close(len(keys), '}')
	return nil
}

// compareKeys orders map keys as protojson does: false before true,
// numbers ascending, strings by code point.
func compareKeys(x, y protoreflect.MapKey) int {
	switch x.Interface().(type) {
	case bool:
		return boolCmp(x.Bool(), y.Bool())
	case int32, int64:
		return cmpOrdered(x.Int(), y.Int())
	case uint32, uint64:
		return cmpOrdered(x.Uint(), y.Uint())
	}
	return strings.Compare(x.String(), y.String())
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func cmpOrdered[T int64 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (w *jsonWriter) singular(v protoreflect.Value, fd protoreflect.FieldDescriptor) error {
	if !v.IsValid() {
		w.buf = append(w.buf, "null"...)
		return nil
	}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		w.buf = strconv.AppendBool(w.buf, v.Bool())
	case protoreflect.StringKind:
		if err := w.str(v.String()); err != nil {
			return fmt.Errorf("field %s: %w", fd.FullName(), err)
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		w.buf = strconv.AppendInt(w.buf, v.Int(), 10)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		w.buf = strconv.AppendUint(w.buf, v.Uint(), 10)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		w.buf = append(w.buf, '"')
		w.buf = strconv.AppendInt(w.buf, v.Int(), 10)
		w.buf = append(w.buf, '"')
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		w.buf = append(w.buf, '"')
		w.buf = strconv.AppendUint(w.buf, v.Uint(), 10)
		w.buf = append(w.buf, '"')
	case protoreflect.FloatKind:
		w.buf = appendFloat(w.buf, v.Float(), 32)
	case protoreflect.DoubleKind:
		w.buf = appendFloat(w.buf, v.Float(), 64)
	case protoreflect.BytesKind:
		w.buf = append(w.buf, '"')
		w.buf = base64.StdEncoding.AppendEncode(w.buf, v.Bytes())
		w.buf = append(w.buf, '"')
	case protoreflect.EnumKind:
		w.enum(v.Enum(), fd.Enum())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return w.message(v.Message())
	default:
		return fmt.Errorf("field %s has unknown kind %v", fd.FullName(), fd.Kind())
	}
	return nil
}

func (w *jsonWriter) enum(n protoreflect.EnumNumber, ed protoreflect.EnumDescriptor) {
	if ed.FullName() == "google.protobuf.NullValue" {
		w.buf = append(w.buf, "null"...)
		return
	}
	if vd := ed.Values().ByNumber(n); vd != nil {
		w.buf = append(w.buf, '"')
		w.buf = append(w.buf, vd.Name()...)
		w.buf = append(w.buf, '"')
		return
	}
	w.buf = strconv.AppendInt(w.buf, int64(n), 10)
}

// appendFloat formats like encoding/json (and so protojson): shortest
// representation, exponent form outside [1e-6, 1e21), quoted NaN and
// infinities.
func appendFloat(out []byte, n float64, bits int) []byte {
	switch {
	case math.IsNaN(n):
		return append(out, `"NaN"`...)
	case math.IsInf(n, 1):
		return append(out, `"Infinity"`...)
	case math.IsInf(n, -1):
		return append(out, `"-Infinity"`...)
	}
	format := byte('f')
	if abs := math.Abs(n); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	out = strconv.AppendFloat(out, n, format, -1, bits)
	if format == 'e' { // e-07 → e-7
		if k := len(out); k >= 4 && out[k-4] == 'e' && out[k-3] == '-' && out[k-2] == '0' {
			out[k-2] = out[k-1]
			out = out[:k-1]
		}
	}
	return out
}

var errInvalidUTF8 = errors.New("invalid UTF-8")

// str appends s as a JSON string escaped as protojson escapes it: only
// quotes, backslashes and control characters; invalid UTF-8 is an error.
func (w *jsonWriter) str(s string) error {
	w.buf = append(w.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return errInvalidUTF8
			}
			i += size
			continue
		}
		if c >= ' ' && c != '"' && c != '\\' {
			i++
			continue
		}
		w.buf = append(w.buf, s[start:i]...)
		w.buf = appendEscape(w.buf, c)
		i++
		start = i
	}
	w.buf = append(w.buf, s[start:]...)
	w.buf = append(w.buf, '"')
	return nil
}

func appendEscape(out []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(out, '\\', c)
	case '\b':
		return append(out, '\\', 'b')
	case '\f':
		return append(out, '\\', 'f')
	case '\n':
		return append(out, '\\', 'n')
	case '\r':
		return append(out, '\\', 'r')
	case '\t':
		return append(out, '\\', 't')
	}
	const hex = "0123456789abcdef"
	return append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}

// wellKnown is the special JSON form of a google.protobuf type, or nil.
func wellKnown(name protoreflect.FullName) func(*jsonWriter, protoreflect.Message) error {
	if !strings.HasPrefix(string(name), "google.protobuf.") {
		return nil
	}
	switch name.Name() {
	case "Any":
		return (*jsonWriter).anyValue
	case "Duration":
		return (*jsonWriter).duration
	case "Timestamp":
		return (*jsonWriter).timestamp
	case "BoolValue", "Int32Value", "Int64Value", "UInt32Value", "UInt64Value",
		"FloatValue", "DoubleValue", "StringValue", "BytesValue":
		return (*jsonWriter).wrapper
	case "Struct":
		return (*jsonWriter).structValue
	case "ListValue":
		return (*jsonWriter).listValue
	case "Value":
		return (*jsonWriter).knownValue
	case "FieldMask":
		return (*jsonWriter).fieldMask
	case "Empty":
		return (*jsonWriter).empty
	}
	return nil
}

// anyValue expands an Any into its message's fields after "@type", or
// {"@type", "value"} when the message itself has a special form.
func (w *jsonWriter) anyValue(m protoreflect.Message) error {
	fds := m.Descriptor().Fields()
	typeURL, value := m.Get(fds.ByNumber(1)).String(), m.Get(fds.ByNumber(2)).Bytes()
	if typeURL == "" {
		if len(value) > 0 {
			return errors.New("google.protobuf.Any: type_url is not set")
		}
		w.buf = append(w.buf, '{', '}')
		return nil
	}
	key, hit := w.cachedAny(typeURL, value)
	if hit != nil {
		w.buf = append(w.buf, hit.out...)
		return nil
	}
	start := len(w.buf)
	if err := w.expandAny(typeURL, value); err != nil {
		return err
	}
	if w.anys == nil {
		w.anys = map[uint64]anyOut{}
	}
	w.anys[key] = anyOut{depth: w.depth, typeURL: typeURL, value: value, out: slices.Clone(w.buf[start:])}
	return nil
}

func (w *jsonWriter) expandAny(typeURL string, value []byte) error {
	mt, err := protoregistry.GlobalTypes.FindMessageByURL(typeURL)
	if err != nil {
		return fmt.Errorf("google.protobuf.Any: unable to resolve %q: %w", typeURL, err)
	}
	inner := mt.New()
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(value, inner.Interface()); err != nil {
		return fmt.Errorf("google.protobuf.Any: unable to unmarshal %q: %w", typeURL, err)
	}
	wkt := wellKnown(mt.Descriptor().FullName())
	if wkt == nil {
		return w.fields(inner, typeURL)
	}
	w.buf = append(w.buf, '{')
	w.name(0, "@type")
	if err := w.str(typeURL); err != nil {
		return err
	}
	w.name(1, "value")
	if err := wkt(w, inner); err != nil {
		return err
	}
	w.close(2, '}')
	return nil
}

func (w *jsonWriter) wrapper(m protoreflect.Message) error {
	fd := m.Descriptor().Fields().ByNumber(1)
	return w.singular(m.Get(fd), fd)
}

func (w *jsonWriter) empty(protoreflect.Message) error {
	w.buf = append(w.buf, '{', '}')
	return nil
}

// structValue, listValue and knownValue walk the Go types directly when
// they can: metadata is all Structs, and going through reflection and
// its map ranging cost more than the rest of a route.
func (w *jsonWriter) structValue(m protoreflect.Message) error {
	if s, ok := m.Interface().(*structpb.Struct); ok {
		return w.goStruct(s)
	}
	fd := m.Descriptor().Fields().ByNumber(1)
	return w.mapValue(m.Get(fd).Map(), fd)
}

func (w *jsonWriter) listValue(m protoreflect.Message) error {
	if l, ok := m.Interface().(*structpb.ListValue); ok {
		return w.goList(l)
	}
	fd := m.Descriptor().Fields().ByNumber(1)
	return w.list(m.Get(fd).List(), fd)
}

func (w *jsonWriter) goStruct(s *structpb.Struct) error {
	keys := make([]string, 0, len(s.GetFields()))
	for k := range s.GetFields() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.buf = append(w.buf, '{')
	for i, k := range keys {
		if err := w.key(i, k); err != nil {
			return err
		}
		if err := w.goValue(s.Fields[k]); err != nil {
			return err
		}
	}
	w.close(len(keys), '}')
	return nil
}

func (w *jsonWriter) goList(l *structpb.ListValue) error {
	w.buf = append(w.buf, '[')
	for i, v := range l.GetValues() {
		w.member(i)
		if err := w.goValue(v); err != nil {
			return err
		}
	}
	w.close(len(l.GetValues()), ']')
	return nil
}

func (w *jsonWriter) goValue(v *structpb.Value) error {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		w.buf = append(w.buf, "null"...)
	case *structpb.Value_NumberValue:
		if math.IsNaN(k.NumberValue) || math.IsInf(k.NumberValue, 0) {
			return fmt.Errorf("google.protobuf.Value.number_value: invalid %v value", k.NumberValue)
		}
		w.buf = appendFloat(w.buf, k.NumberValue, 64)
	case *structpb.Value_StringValue:
		return w.str(k.StringValue)
	case *structpb.Value_BoolValue:
		w.buf = strconv.AppendBool(w.buf, k.BoolValue)
	case *structpb.Value_StructValue:
		if k.StructValue == nil {
			w.buf = append(w.buf, '{', '}')
			return nil
		}
		return w.goStruct(k.StructValue)
	case *structpb.Value_ListValue:
		if k.ListValue == nil {
			w.buf = append(w.buf, '[', ']')
			return nil
		}
		return w.goList(k.ListValue)
	default:
		return errors.New("google.protobuf.Value: none of the oneof fields is set")
	}
	return nil
}

func (w *jsonWriter) knownValue(m protoreflect.Message) error {
	if v, ok := m.Interface().(*structpb.Value); ok {
		return w.goValue(v)
	}
	fd := m.WhichOneof(m.Descriptor().Oneofs().ByName("kind"))
	if fd == nil {
		return errors.New("google.protobuf.Value: none of the oneof fields is set")
	}
	if fd.Kind() == protoreflect.DoubleKind {
		if v := m.Get(fd).Float(); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("google.protobuf.Value.number_value: invalid %v value", v)
		}
	}
	return w.singular(m.Get(fd), fd)
}

// Limits of google.protobuf.Duration and Timestamp.
const (
	maxDurationSeconds = 315576000000
	minTimestampSecs   = -62135596800 // 0001-01-01T00:00:00Z
	maxTimestampSecs   = 253402300799 // 9999-12-31T23:59:59Z
	nanosPerSecond     = 1e9
)

// duration writes "<s>[.fff[fff[fff]]]s", protojson's 0, 3, 6 or 9
// fractional digits.
func (w *jsonWriter) duration(m protoreflect.Message) error {
	fds := m.Descriptor().Fields()
	secs, nanos := m.Get(fds.ByNumber(1)).Int(), m.Get(fds.ByNumber(2)).Int()
	switch {
	case secs < -maxDurationSeconds || secs > maxDurationSeconds:
		return fmt.Errorf("google.protobuf.Duration: seconds out of range %v", secs)
	case nanos <= -nanosPerSecond || nanos >= nanosPerSecond:
		return fmt.Errorf("google.protobuf.Duration: nanos out of range %v", nanos)
	case secs > 0 && nanos < 0 || secs < 0 && nanos > 0:
		return errors.New("google.protobuf.Duration: signs of seconds and nanos do not match")
	}
	w.buf = append(w.buf, '"')
	if secs < 0 || nanos < 0 {
		w.buf = append(w.buf, '-')
		secs, nanos = -secs, -nanos
	}
	w.buf = strconv.AppendInt(w.buf, secs, 10)
	w.buf = appendNanos(w.buf, nanos)
	w.buf = append(w.buf, 's', '"')
	return nil
}

// appendNanos appends ".fff", ".ffffff" or ".fffffffff", or nothing for 0.
func appendNanos(out []byte, nanos int64) []byte {
	if nanos == 0 {
		return out
	}
	digits := fmt.Appendf(nil, "%09d", nanos)
	for len(digits) > 3 && string(digits[len(digits)-3:]) == "000" {
		digits = digits[:len(digits)-3]
	}
	return append(append(out, '.'), digits...)
}

func (w *jsonWriter) timestamp(m protoreflect.Message) error {
	fds := m.Descriptor().Fields()
	secs, nanos := m.Get(fds.ByNumber(1)).Int(), m.Get(fds.ByNumber(2)).Int()
	switch {
	case secs < minTimestampSecs || secs > maxTimestampSecs:
		return fmt.Errorf("google.protobuf.Timestamp: seconds out of range %v", secs)
	case nanos < 0 || nanos >= nanosPerSecond:
		return fmt.Errorf("google.protobuf.Timestamp: nanos out of range %v", nanos)
	}
	w.buf = append(w.buf, '"')
	w.buf = time.Unix(secs, 0).UTC().AppendFormat(w.buf, "2006-01-02T15:04:05")
	w.buf = appendNanos(w.buf, nanos)
	w.buf = append(w.buf, 'Z', '"')
	return nil
}

// fieldMask writes the paths lowerCamelCased and comma-joined.
func (w *jsonWriter) fieldMask(m protoreflect.Message) error {
	l := m.Get(m.Descriptor().Fields().ByNumber(1)).List()
	paths := make([]string, 0, l.Len())
	for i := range l.Len() {
		p := l.Get(i).String()
		cc := camel(p)
		if !protoreflect.FullName(p).IsValid() || snake(cc) != p {
			return fmt.Errorf("google.protobuf.FieldMask.paths contains invalid path %q", p)
		}
		paths = append(paths, cc)
	}
	return w.str(strings.Join(paths, ","))
}

// camel is protobuf's JSON name of a snake_case path ("a_b.c" → "aB.c").
func camel(s string) string {
	var b []byte
	up := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_':
			up = true
		case up && 'a' <= c && c <= 'z':
			b = append(b, c-'a'+'A')
			up = false
		default:
			b = append(b, c)
			up = false
		}
	}
	return string(b)
}

// snake reverses camel, so a path that does not survive the round trip
// is refused as protojson refuses it.
func snake(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			b = append(b, '_', c-'A'+'a')
			continue
		}
		b = append(b, c)
	}
	return string(b)
}
