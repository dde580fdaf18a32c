package envoy

import (
	"fmt"
	"math"
	"slices"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestTypedWritersOnEveryType holds every generated writer and walk to
// the reflective ones and protojson on values no render makes: each type
// the generator emits, filled by reflection once per member of its
// widest oneof (so every oneof member is written) and in three styles —
// ordinary values; edge values (NaN, ±Inf, -0, float32 rounding,
// extreme integers, enum numbers without a name, keys and strings that
// need escaping, Anys of unknown or undecodable types, out-of-range
// Durations, Struct numbers JSON has no form for); and present zeros
// (proto3 optional scalars set to zero, empty messages, empty strings
// and keys). Then a string that is not UTF-8 in each string field and
// map key by turn, whose error must name the same field both ways.
// Renders reach a few dozen of these types; the fuzz target's random
// bytes rarely build a deep one.
func TestTypedWritersOnEveryType(t *testing.T) {
	names := make([]protoreflect.FullName, 0, len(typedFields))
	for name := range typedFields {
		names = append(names, name)
	}
	slices.Sort(names)
	cases := 0
	for _, name := range names {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(name)
		if err != nil {
			t.Fatal(err)
		}
		for style := range fillStyles {
			rounds := variants(mt.Descriptor())
			if style == styleEdge {
				rounds = max(rounds, edgeRounds)
			}
			for v := range rounds {
				f := &filler{variant: v, style: style}
				m := mt.New()
				f.message(m, 0)
				assertTypedSame(t, fmt.Sprintf("%s variant %d style %d", name, v, style), m.Interface())
				cases++
			}
		}
		// One string that is not UTF-8, in each string field by turn.
		for k := 0; ; k++ {
			f := &filler{style: styleOrdinary, badString: k + 1}
			m := mt.New()
			f.message(m, 0)
			if f.strings <= k {
				break
			}
			assertTypedSame(t, fmt.Sprintf("%s bad string %d", name, k), m.Interface())
			cases++
		}
	}
	if cases < 3*len(names) {
		t.Fatalf("only %d cases for %d types", cases, len(names))
	}
}

// variants is how many fillings a type gets: one per member of its
// widest oneof (at least one).
func variants(md protoreflect.MessageDescriptor) int {
	n := 1
	for i := range md.Oneofs().Len() {
		n = max(n, md.Oneofs().Get(i).Fields().Len())
	}
	return n
}

const (
	styleOrdinary = iota
	styleEdge
	styleZero
	fillStyles
)

// edgeRounds is how many edge fillings a type gets at least: enough for
// each field to take every edge value of its kind by turn.
const edgeRounds = 8

// filler sets every field of a message (the variant-th member of each
// oneof) down to maxFillDepth, with values of its style: the n-th value
// filled is value variant+n of its kind's list, round robin.
type filler struct {
	variant   int
	n         int
	style     int
	badString int // the badString-th string filled is not UTF-8 (0: none)
	strings   int // strings filled so far
}

const maxFillDepth = 2

func (f *filler) message(m protoreflect.Message, depth int) {
	md := m.Descriptor()
	if f.wellKnown(m) {
		return
	}
	if depth > maxFillDepth {
		return // left empty: present, no fields
	}
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if od.Fields().Get(f.variant%od.Fields().Len()) != fd {
				continue
			}
		}
		switch {
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			for _, k := range f.keys(fd.MapKey()) {
				if fd.MapValue().Message() != nil {
					v := mp.NewValue()
					f.message(v.Message(), depth+1)
					mp.Set(k, v)
				} else {
					mp.Set(k, f.scalar(fd.MapValue()))
				}
			}
		case fd.IsList():
			l := m.Mutable(fd).List()
			for range 2 {
				if fd.Message() != nil {
					v := l.NewElement()
					f.message(v.Message(), depth+1)
					l.Append(v)
				} else {
					l.Append(f.scalar(fd))
				}
			}
		case fd.Message() != nil:
			f.message(m.Mutable(fd).Message(), depth+1)
		default:
			m.Set(fd, f.scalar(fd))
		}
	}
}

// keys are the map keys a map gets.
func (f *filler) keys(kd protoreflect.FieldDescriptor) []protoreflect.MapKey {
	if kd.Kind() != protoreflect.StringKind {
		return []protoreflect.MapKey{f.scalar(kd).MapKey()}
	}
	var ks []string
	switch f.style {
	case styleOrdinary:
		ks = []string{"b", "a", "a.b/c"}
	case styleEdge:
		ks = []string{"\u2028", "<&>", "é", "\"\\", "\x00\x1f", "Z"}
	case styleZero:
		ks = []string{""}
	}
	var out []protoreflect.MapKey
	for _, k := range ks {
		out = append(out, protoreflect.ValueOfString(f.str(k)).MapKey())
	}
	return out
}

// str is s, unless it is the string badString names.
func (f *filler) str(s string) string {
	f.strings++
	if f.strings == f.badString {
		return s + "\xff"
	}
	return s
}

func (f *filler) scalar(fd protoreflect.FieldDescriptor) protoreflect.Value {
	pick := func(ordinary, edge []any, zero any) any {
		switch f.style {
		case styleOrdinary:
			return f.turn(ordinary)
		case styleEdge:
			return f.turn(edge)
		}
		return zero
	}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(f.style != styleZero)
	case protoreflect.StringKind:
		s := pick([]any{"x", "/a/b", "a b"}, []any{"<script>&", "\u2028\u2029", "é\U0001F600", "\"\\/", "\x00\t\x7f"}, "").(string)
		return protoreflect.ValueOfString(f.str(s))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(pick([]any{[]byte("ab")}, []any{[]byte{0xff, 0, 0xfe}, []byte("\xfb\xff")}, []byte{}).([]byte))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(pick([]any{int32(7), int32(-3)}, []any{int32(math.MinInt32), int32(math.MaxInt32)}, int32(0)).(int32))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(pick([]any{uint32(7)}, []any{uint32(math.MaxUint32)}, uint32(0)).(uint32))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(pick([]any{int64(7), int64(-3)}, []any{int64(math.MinInt64), int64(math.MaxInt64)}, int64(0)).(int64))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(pick([]any{uint64(7)}, []any{uint64(math.MaxUint64)}, uint64(0)).(uint64))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(pick([]any{0.1, 2.5, 1e21}, []any{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 1e-7, 3.4e38, 1.17549435e-38}, 0.0).(float64)))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(pick([]any{0.1, 2.5, 1e21}, []any{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 1e-7, 5e-324, math.MaxFloat64, 123456789012345678.0}, 0.0).(float64))
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		named := vals.Get(vals.Len() - 1).Number()
		return protoreflect.ValueOfEnum(pick([]any{named}, []any{protoreflect.EnumNumber(9999), protoreflect.EnumNumber(-1), named}, protoreflect.EnumNumber(0)).(protoreflect.EnumNumber))
	}
	panic(fmt.Sprintf("%s: kind %v", fd.FullName(), fd.Kind()))
}

// turn is the filler's next value of vs.
func (f *filler) turn(vs []any) any {
	f.n++
	return vs[(f.variant+f.n)%len(vs)]
}

// wellKnown fills a google.protobuf type the way its JSON form reads it,
// and reports whether m was one.
func (f *filler) wellKnown(m protoreflect.Message) bool {
	name := m.Descriptor().FullName()
	if len(name) < 16 || name[:16] != "google.protobuf." {
		return false
	}
	fds := m.Descriptor().Fields()
	switch name.Name() {
	case "Any":
		var a *anypb.Any
		switch f.style {
		case styleOrdinary:
			a = mustAny(&routev3.Route{Name: "inner", Match: &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}}})
		case styleEdge:
			a = f.turn([]any{
				mustAny(durationpb.New(3)),
				mustAny(&routev3.RouteConfiguration{Name: "rc", VirtualHosts: []*routev3.VirtualHost{{Name: "v", Domains: []string{"*"}}}}),
				&anypb.Any{TypeUrl: "type.googleapis.com/no.such.Type"},
				&anypb.Any{TypeUrl: "type.googleapis.com/envoy.config.route.v3.Route", Value: []byte{0xff}},
				&anypb.Any{Value: []byte{1}},
			}).(*anypb.Any)
		default:
			a = &anypb.Any{}
		}
		proto.Merge(m.Interface(), a)
	case "Duration", "Timestamp":
		secs, nanos := int64(3), int32(500)
		if f.style == styleEdge {
			secs, nanos = f.turn([]any{int64(-3), int64(315576000001), int64(0)}).(int64), f.turn([]any{int32(-500), int32(1e9), int32(1)}).(int32)
		} else if f.style == styleZero {
			secs, nanos = 0, 0
		}
		m.Set(fds.ByName("seconds"), protoreflect.ValueOfInt64(secs))
		m.Set(fds.ByName("nanos"), protoreflect.ValueOfInt32(nanos))
	case "Struct":
		s := &structpb.Struct{Fields: map[string]*structpb.Value{}}
		switch f.style {
		case styleOrdinary:
			s.Fields["n"] = structpb.NewNumberValue(1.5)
			s.Fields["l"] = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("x"), structpb.NewBoolValue(true), structpb.NewNullValue()}})
		case styleEdge:
			s.Fields["\u2028"] = f.turn([]any{structpb.NewNumberValue(math.Inf(1)), structpb.NewNumberValue(1e21), &structpb.Value{}, structpb.NewStructValue(&structpb.Struct{})}).(*structpb.Value)
		}
		proto.Merge(m.Interface(), s)
	case "ListValue", "Value", "Empty":
		// reached only through Struct
	case "FieldMask":
		p := f.turn([]any{"a_b", "a.b_c", "aB"}).(string)
		m.Mutable(fds.ByName("paths")).List().Append(protoreflect.ValueOfString(p))
	default: // the scalar wrappers
		if v := fds.ByName("value"); v != nil {
			m.Set(v, f.scalar(v))
		}
	}
	return true
}
