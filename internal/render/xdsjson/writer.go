package xdsjson

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

// Writer writes proto messages as the JSON protojson.Marshal with
// UseProtoNames writes, already indented the way json.Indent lays it out
// (or compact), in one pass. protojson sorts every message's fields,
// re-decodes each Any and leaves indentation to a second pass over the
// text; for the tens of megabytes a large platform renders to, that was
// most of the render time. The output is byte-for-byte what
// protojson + json.Indent give, which a test checks on every golden.
//
// A Writer's fields are its settings and its output; the zero value
// writes compact JSON at depth 0. One Writer serves one goroutine.
type Writer struct {
	// Buf is what has been written; callers may reset it between
	// messages (the Any cache stays).
	Buf []byte
	// Indent lays the output out as json.Indent with "  " would, the
	// first line at Depth.
	Indent bool
	Depth  int // indentation level of the value being written
	// Typed, when set, writes the messages it has a writer for without
	// reflection (see Typed); the output is the same.
	Typed Typed
	free  []*[]fieldValue
	// collect appends to filling: populated's Range callback.
	collect func(protoreflect.FieldDescriptor, protoreflect.Value) bool
	filling *[]fieldValue
	// The same for map entries (sortedEntries).
	freeEntries    []*[]mapEntry
	collectEntry   func(protoreflect.MapKey, protoreflect.Value) bool
	entriesFilling *[]mapEntry
	freeNames      [][]string // Struct keys (goStruct)

	// Skip is a field left out wherever it occurs (a RouteConfiguration's
	// virtual hosts, written as units of their own); Hole is how many
	// members of its object precede where it would have been written and
	// HoleAt that offset in Buf (-1: Skip did not occur).
	Skip         protoreflect.FieldDescriptor
	Hole, HoleAt int
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

// cachedAny is where the Any's expansion at the writer's depth is cached,
// and that expansion when it is. (It returns the bytes, not the entry: a
// pointer to the looked-up copy cost an allocation per Any written.)
func (w *Writer) cachedAny(typeURL string, value []byte) (key uint64, out []byte, hit bool) {
	var h maphash.Hash
	h.SetSeed(anySeed)
	h.WriteByte(byte(w.Depth))
	h.WriteString(typeURL)
	h.Write(value)
	key = h.Sum64()
	if e, ok := w.anys[key]; ok && e.depth == w.Depth && e.typeURL == typeURL && bytes.Equal(e.value, value) {
		return key, e.out, true
	}
	return key, nil, false
}

// Message appends m at the writer's depth.
func (w *Writer) Message(m protoreflect.Message) error {
	if w.Typed != nil && w.Skip == nil {
		if written, err := w.Typed(w, m.Interface(), ""); written {
			return err
		}
	}
	if wkt := wellKnown(m.Descriptor().FullName()); wkt != nil {
		return wkt(w, m)
	}
	return w.fields(m, "")
}

// fields writes m's populated fields in declaration order (protojson's
// order), after an "@type" member when typeURL is set (an expanded Any).
func (w *Writer) fields(m protoreflect.Message, typeURL string) error {
	w.Buf = append(w.Buf, '{')
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
		if f.fd == w.Skip {
			w.Hole, w.HoleAt = n, len(w.Buf)
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
func (w *Writer) populated(m protoreflect.Message) *[]fieldValue {
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

func (w *Writer) release(set *[]fieldValue) {
	clear(*set)
	*set = (*set)[:0]
	w.free = append(w.free, set)
}

// name starts the n-th member of an object.
func (w *Writer) name(n int, name string) {
	w.member(n)
	w.Buf = append(w.Buf, '"') // field names are proto identifiers: nothing to escape
	w.Buf = append(w.Buf, name...)
	w.Buf = append(w.Buf, '"')
	w.colon()
}

// key starts the n-th member of a map or Struct, whose key may need
// escaping.
func (w *Writer) key(n int, key string) error {
	w.member(n)
	if err := w.str(key); err != nil {
		return err
	}
	w.colon()
	return nil
}

func (w *Writer) colon() {
	w.Buf = append(w.Buf, ':')
	if w.Indent {
		w.Buf = append(w.Buf, ' ')
	}
}

// member starts the n-th element of an object or array.
func (w *Writer) member(n int) {
	if n > 0 {
		w.Buf = append(w.Buf, ',')
	} else {
		w.Depth++
	}
	w.newline()
}

// close ends an object or array that got n members.
func (w *Writer) close(n int, c byte) {
	if n > 0 {
		w.Depth--
		w.newline()
	}
	w.Buf = append(w.Buf, c)
}

func (w *Writer) newline() {
	if !w.Indent {
		return
	}
	w.Buf = append(w.Buf, '\n')
	for n := 2 * w.Depth; n > 0; n -= len(spaces) {
		w.Buf = append(w.Buf, spaces[:min(n, len(spaces))]...)
	}
}

// spaces is indentation, appended a slice at a time: in indented Envoy
// config about half of the bytes are spaces.
const spaces = "                                                                " +
	"                                                                "

func (w *Writer) value(v protoreflect.Value, fd protoreflect.FieldDescriptor) error {
	switch {
	case fd.IsList():
		return w.list(v.List(), fd)
	case fd.IsMap():
		return w.mapValue(v.Map(), fd)
	}
	return w.singular(v, fd)
}

func (w *Writer) list(l protoreflect.List, fd protoreflect.FieldDescriptor) error {
	w.Buf = append(w.Buf, '[')
	for i := range l.Len() {
		w.member(i)
		if err := w.singular(l.Get(i), fd); err != nil {
			return err
		}
	}
	w.close(l.Len(), ']')
	return nil
}

func (w *Writer) mapValue(mp protoreflect.Map, fd protoreflect.FieldDescriptor) error {
	entries := w.sortedEntries(mp)
	defer w.releaseEntries(entries)
	w.Buf = append(w.Buf, '{')
	for i, e := range *entries {
		if err := w.key(i, e.k.String()); err != nil {
			return err
		}
		if err := w.singular(e.v, fd.MapValue()); err != nil {
			return err
		}
	}
	w.close(len(*entries), '}')
	return nil
}

// mapEntry is one entry of a map field, as Range visits it: taking the
// value there spares a lookup (and its key conversion) per entry.
type mapEntry struct {
	k protoreflect.MapKey
	v protoreflect.Value
}

// sortedEntries lists mp's entries in protojson's key order, in a slice
// reused like populated's (a map is written per route:
// typed_per_filter_config, filter_metadata).
func (w *Writer) sortedEntries(mp protoreflect.Map) *[]mapEntry {
	var entries *[]mapEntry
	if k := len(w.freeEntries); k > 0 {
		entries, w.freeEntries = w.freeEntries[k-1], w.freeEntries[:k-1]
	} else {
		entries = new([]mapEntry)
	}
	if w.collectEntry == nil {
		w.collectEntry = func(k protoreflect.MapKey, v protoreflect.Value) bool {
			*w.entriesFilling = append(*w.entriesFilling, mapEntry{k, v})
			return true
		}
	}
	w.entriesFilling = entries
	mp.Range(w.collectEntry)
	w.entriesFilling = nil
	slices.SortFunc(*entries, func(a, b mapEntry) int { return compareKeys(a.k, b.k) })
	return entries
}

func (w *Writer) releaseEntries(entries *[]mapEntry) {
	clear(*entries)
	*entries = (*entries)[:0]
	w.freeEntries = append(w.freeEntries, entries)
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

func (w *Writer) singular(v protoreflect.Value, fd protoreflect.FieldDescriptor) error {
	if !v.IsValid() {
		w.Buf = append(w.Buf, "null"...)
		return nil
	}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		w.Buf = strconv.AppendBool(w.Buf, v.Bool())
	case protoreflect.StringKind:
		if err := w.str(v.String()); err != nil {
			return fmt.Errorf("field %s: %w", fd.FullName(), err)
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		w.Buf = strconv.AppendInt(w.Buf, v.Int(), 10)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		w.Buf = strconv.AppendUint(w.Buf, v.Uint(), 10)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		w.Buf = append(w.Buf, '"')
		w.Buf = strconv.AppendInt(w.Buf, v.Int(), 10)
		w.Buf = append(w.Buf, '"')
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		w.Buf = append(w.Buf, '"')
		w.Buf = strconv.AppendUint(w.Buf, v.Uint(), 10)
		w.Buf = append(w.Buf, '"')
	case protoreflect.FloatKind:
		w.Buf = appendFloat(w.Buf, v.Float(), 32)
	case protoreflect.DoubleKind:
		w.Buf = appendFloat(w.Buf, v.Float(), 64)
	case protoreflect.BytesKind:
		w.Buf = append(w.Buf, '"')
		w.Buf = base64.StdEncoding.AppendEncode(w.Buf, v.Bytes())
		w.Buf = append(w.Buf, '"')
	case protoreflect.EnumKind:
		w.enum(v.Enum(), fd.Enum())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return w.Message(v.Message())
	default:
		return fmt.Errorf("field %s has unknown kind %v", fd.FullName(), fd.Kind())
	}
	return nil
}

func (w *Writer) enum(n protoreflect.EnumNumber, ed protoreflect.EnumDescriptor) {
	if ed.FullName() == "google.protobuf.NullValue" {
		w.Buf = append(w.Buf, "null"...)
		return
	}
	if vd := ed.Values().ByNumber(n); vd != nil {
		w.Buf = append(w.Buf, '"')
		w.Buf = append(w.Buf, vd.Name()...)
		w.Buf = append(w.Buf, '"')
		return
	}
	w.Buf = strconv.AppendInt(w.Buf, int64(n), 10)
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
func (w *Writer) str(s string) error {
	w.Buf = append(w.Buf, '"')
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
		w.Buf = append(w.Buf, s[start:i]...)
		w.Buf = appendEscape(w.Buf, c)
		i++
		start = i
	}
	w.Buf = append(w.Buf, s[start:]...)
	w.Buf = append(w.Buf, '"')
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
func wellKnown(name protoreflect.FullName) func(*Writer, protoreflect.Message) error {
	if !strings.HasPrefix(string(name), "google.protobuf.") {
		return nil
	}
	switch name.Name() {
	case "Any":
		return (*Writer).anyValue
	case "Duration":
		return (*Writer).duration
	case "Timestamp":
		return (*Writer).timestamp
	case "BoolValue", "Int32Value", "Int64Value", "UInt32Value", "UInt64Value",
		"FloatValue", "DoubleValue", "StringValue", "BytesValue":
		return (*Writer).wrapper
	case "Struct":
		return (*Writer).structValue
	case "ListValue":
		return (*Writer).listValue
	case "Value":
		return (*Writer).knownValue
	case "FieldMask":
		return (*Writer).fieldMask
	case "Empty":
		return (*Writer).empty
	}
	return nil
}

// anyValue expands an Any into its message's fields after "@type", or
// {"@type", "value"} when the message itself has a special form.
func (w *Writer) anyValue(m protoreflect.Message) error {
	fds := m.Descriptor().Fields()
	typeURL, value := m.Get(fds.ByNumber(1)).String(), m.Get(fds.ByNumber(2)).Bytes()
	if typeURL == "" {
		if len(value) > 0 {
			return errors.New("google.protobuf.Any: type_url is not set")
		}
		w.Buf = append(w.Buf, '{', '}')
		return nil
	}
	key, out, hit := w.cachedAny(typeURL, value)
	if hit {
		w.Buf = append(w.Buf, out...)
		return nil
	}
	start := len(w.Buf)
	if err := w.expandAny(typeURL, value); err != nil {
		return err
	}
	if w.anys == nil {
		w.anys = map[uint64]anyOut{}
	}
	w.anys[key] = anyOut{depth: w.Depth, typeURL: typeURL, value: value, out: slices.Clone(w.Buf[start:])}
	return nil
}

func (w *Writer) expandAny(typeURL string, value []byte) error {
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
		if w.Typed != nil && w.Skip == nil {
			if written, err := w.Typed(w, inner.Interface(), typeURL); written {
				return err
			}
		}
		return w.fields(inner, typeURL)
	}
	w.Buf = append(w.Buf, '{')
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

func (w *Writer) wrapper(m protoreflect.Message) error {
	fd := m.Descriptor().Fields().ByNumber(1)
	return w.singular(m.Get(fd), fd)
}

func (w *Writer) empty(protoreflect.Message) error {
	w.Buf = append(w.Buf, '{', '}')
	return nil
}

// structValue, listValue and knownValue walk the Go types directly when
// they can: metadata is all Structs, and going through reflection and
// its map ranging cost more than the rest of a route.
func (w *Writer) structValue(m protoreflect.Message) error {
	if s, ok := m.Interface().(*structpb.Struct); ok {
		return w.goStruct(s)
	}
	fd := m.Descriptor().Fields().ByNumber(1)
	return w.mapValue(m.Get(fd).Map(), fd)
}

func (w *Writer) listValue(m protoreflect.Message) error {
	if l, ok := m.Interface().(*structpb.ListValue); ok {
		return w.goList(l)
	}
	fd := m.Descriptor().Fields().ByNumber(1)
	return w.list(m.Get(fd).List(), fd)
}

func (w *Writer) goStruct(s *structpb.Struct) error {
	// Key slices are reused as populated's are: every route's metadata
	// is a Struct.
	var keys []string
	if k := len(w.freeNames); k > 0 {
		keys, w.freeNames = w.freeNames[k-1], w.freeNames[:k-1]
	}
	for k := range s.GetFields() {
		keys = append(keys, k)
	}
	defer func() {
		clear(keys)
		w.freeNames = append(w.freeNames, keys[:0])
	}()
	slices.Sort(keys)
	w.Buf = append(w.Buf, '{')
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

func (w *Writer) goList(l *structpb.ListValue) error {
	w.Buf = append(w.Buf, '[')
	for i, v := range l.GetValues() {
		w.member(i)
		if err := w.goValue(v); err != nil {
			return err
		}
	}
	w.close(len(l.GetValues()), ']')
	return nil
}

func (w *Writer) goValue(v *structpb.Value) error {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NullValue:
		w.Buf = append(w.Buf, "null"...)
	case *structpb.Value_NumberValue:
		if math.IsNaN(k.NumberValue) || math.IsInf(k.NumberValue, 0) {
			return fmt.Errorf("google.protobuf.Value.number_value: invalid %v value", k.NumberValue)
		}
		w.Buf = appendFloat(w.Buf, k.NumberValue, 64)
	case *structpb.Value_StringValue:
		return w.str(k.StringValue)
	case *structpb.Value_BoolValue:
		w.Buf = strconv.AppendBool(w.Buf, k.BoolValue)
	case *structpb.Value_StructValue:
		if k.StructValue == nil {
			w.Buf = append(w.Buf, '{', '}')
			return nil
		}
		return w.goStruct(k.StructValue)
	case *structpb.Value_ListValue:
		if k.ListValue == nil {
			w.Buf = append(w.Buf, '[', ']')
			return nil
		}
		return w.goList(k.ListValue)
	default:
		return errors.New("google.protobuf.Value: none of the oneof fields is set")
	}
	return nil
}

func (w *Writer) knownValue(m protoreflect.Message) error {
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
func (w *Writer) duration(m protoreflect.Message) error {
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
	w.Buf = append(w.Buf, '"')
	if secs < 0 || nanos < 0 {
		w.Buf = append(w.Buf, '-')
		secs, nanos = -secs, -nanos
	}
	w.Buf = strconv.AppendInt(w.Buf, secs, 10)
	w.Buf = appendNanos(w.Buf, nanos)
	w.Buf = append(w.Buf, 's', '"')
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

func (w *Writer) timestamp(m protoreflect.Message) error {
	fds := m.Descriptor().Fields()
	secs, nanos := m.Get(fds.ByNumber(1)).Int(), m.Get(fds.ByNumber(2)).Int()
	switch {
	case secs < minTimestampSecs || secs > maxTimestampSecs:
		return fmt.Errorf("google.protobuf.Timestamp: seconds out of range %v", secs)
	case nanos < 0 || nanos >= nanosPerSecond:
		return fmt.Errorf("google.protobuf.Timestamp: nanos out of range %v", nanos)
	}
	w.Buf = append(w.Buf, '"')
	w.Buf = time.Unix(secs, 0).UTC().AppendFormat(w.Buf, "2006-01-02T15:04:05")
	w.Buf = appendNanos(w.Buf, nanos)
	w.Buf = append(w.Buf, 'Z', '"')
	return nil
}

// fieldMask writes the paths lowerCamelCased and comma-joined.
func (w *Writer) fieldMask(m protoreflect.Message) error {
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
