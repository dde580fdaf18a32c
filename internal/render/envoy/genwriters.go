//go:build ignore

// genwriters writes typedwriters_gen.go: a JSON writer per xDS message
// type reachable (through message fields, not through Any) from the
// resources render writes, reading the Go struct directly instead of
// going through protobuf reflection (see xdsjson.Typed). Run it with
// `go generate ./internal/render/envoy` after go-control-plane moves;
// TestTypedWritersAreCurrent fails until then.
//
// What it emits follows protojson's rules as xdsjson's reflective writer
// applies them: fields in declaration order, a proto3 scalar present when
// it is not its zero value (a float when it is not +0), a list or map
// when it is not empty, a message or oneof member when it is set. A type
// it cannot write that way (not proto3, a map keyed by anything but a
// string, a group) is left to the reflective writer.
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/runtime/protoimpl"
)

// roots are the resources render writes as units of their own.
var roots = []proto.Message{
	&routev3.RouteConfiguration{}, &clusterv3.Cluster{}, &listenerv3.Listener{}, &endpointv3.ClusterLoadAssignment{},
}

type gen struct {
	types   map[protoreflect.FullName]*msgType
	order   []protoreflect.FullName
	imports map[string]string // package path → name
	used    map[string]bool   // names taken
	reach   map[protoreflect.FullName]bool
}

type msgType struct {
	md     protoreflect.MessageDescriptor
	goType reflect.Type // the struct (not the pointer)
	ok     bool         // written by a generated function
	fields map[protoreflect.FieldNumber]goField
}

// goField is how a field number is reached in the Go struct: a field of
// its own, or a member of a oneof (the interface field and the wrapper).
type goField struct {
	name    string       // struct field (or the oneof's interface field)
	wrapper reflect.Type // oneof member: *Wrapper
	inner   string       // the wrapper's field
	typ     reflect.Type // Go type of the value
}

func main() {
	g := &gen{types: map[protoreflect.FullName]*msgType{}, imports: map[string]string{}, used: map[string]bool{}}
	for _, r := range roots {
		g.visit(r.ProtoReflect().Descriptor())
	}
	out, err := g.file()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile("typedwriters_gen.go", out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func wellKnown(md protoreflect.MessageDescriptor) bool {
	return strings.HasPrefix(string(md.FullName()), "google.protobuf.")
}

func (g *gen) visit(md protoreflect.MessageDescriptor) {
	if wellKnown(md) || g.types[md.FullName()] != nil {
		return
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil {
		panic(err)
	}
	t := reflect.TypeOf(mt.Zero().Interface()).Elem()
	m := &msgType{md: md, goType: t, ok: true, fields: map[protoreflect.FieldNumber]goField{}}
	g.types[md.FullName()] = m
	g.order = append(g.order, md.FullName())
	if md.Syntax() != protoreflect.Proto3 || md.ExtensionRanges().Len() > 0 {
		m.ok = false
		return
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		if tag := sf.Tag.Get("protobuf"); tag != "" {
			m.fields[tagNumber(tag)] = goField{name: sf.Name, typ: sf.Type}
		}
	}
	info, isImpl := mt.Zero().(interface{ ProtoMessageInfo() *protoimpl.MessageInfo })
	if isImpl {
		for _, w := range info.ProtoMessageInfo().OneofWrappers {
			wt := reflect.TypeOf(w)
			inner := wt.Elem().Field(0)
			num := tagNumber(inner.Tag.Get("protobuf"))
			fd := md.Fields().ByNumber(num)
			if fd == nil || fd.ContainingOneof() == nil {
				panic(fmt.Sprintf("%s: wrapper %v", md.FullName(), wt))
			}
			iface := ""
			for i := range t.NumField() {
				if t.Field(i).Tag.Get("protobuf_oneof") == string(fd.ContainingOneof().Name()) {
					iface = t.Field(i).Name
				}
			}
			m.fields[num] = goField{name: iface, wrapper: wt, inner: inner.Name, typ: inner.Type}
		}
	}
	for i := range md.Fields().Len() {
		fd := md.Fields().Get(i)
		f, found := m.fields[fd.Number()]
		switch {
		case !found || f.name == "":
			m.ok = false
		case fd.Kind() == protoreflect.GroupKind:
			m.ok = false
		case fd.IsMap() && fd.MapKey().Kind() != protoreflect.StringKind:
			m.ok = false
		case fd.HasPresence() && fd.ContainingOneof() == nil && fd.Message() == nil && f.typ.Kind() != reflect.Pointer:
			m.ok = false // proto3 optional is a pointer in Go; anything else is not ours to guess
		}
	}
	for i := range md.Fields().Len() {
		fd := md.Fields().Get(i)
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if fd.Message() != nil {
			g.visit(fd.Message())
		}
	}
}

func tagNumber(tag string) protoreflect.FieldNumber {
	parts := strings.Split(tag, ",")
	n, err := strconv.Atoi(parts[1])
	if err != nil {
		panic(tag)
	}
	return protoreflect.FieldNumber(n)
}

// pkg is the name the file imports path as.
func (g *gen) pkg(path string) string {
	if n, ok := g.imports[path]; ok {
		return n
	}
	parts := strings.Split(path, "/")
	base := parts[len(parts)-1]
	if len(parts) > 1 && len(base) <= 3 { // ".../route/v3" → routev3
		base = parts[len(parts)-2] + base
	}
	if strings.HasPrefix(path, "github.com/cncf/xds/") {
		base = "xds" + base
	}
	base = strings.NewReplacer("-", "", ".", "", "_", "").Replace(base)
	name := base
	for i := 2; g.used[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	g.used[name] = true
	g.imports[path] = name
	return name
}

func (g *gen) typeName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		return "*" + g.typeName(t.Elem())
	}
	if t.PkgPath() == "" {
		return t.String()
	}
	return g.pkg(t.PkgPath()) + "." + t.Name()
}

func funcName(name protoreflect.FullName) string {
	var b strings.Builder
	b.WriteString("write")
	for _, p := range strings.Split(string(name), ".") {
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	return b.String()
}

func (g *gen) file() ([]byte, error) {
	var body bytes.Buffer
	g.used["xdsjson"], g.used["protoreflect"], g.used["math"], g.used["proto"], g.used["anypb"] = true, true, true, true, true
	sort.Slice(g.order, func(i, j int) bool { return g.order[i] < g.order[j] })
	var written []*msgType
	for _, name := range g.order {
		if m := g.types[name]; m.ok {
			written = append(written, m)
		}
	}
	fmt.Fprintf(&body, "\n// writeTyped is the xdsjson.Typed of render's writers: m written by its\n// generated function, or false for a type that has none.\n")
	fmt.Fprintf(&body, "func writeTyped(w *xdsjson.Writer, m proto.Message, typeURL string) (bool, error) {\n\tswitch m := m.(type) {\n")
	for _, m := range written {
		fmt.Fprintf(&body, "\tcase *%s:\n\t\treturn true, %s(w, m, typeURL)\n", g.typeName(m.goType), funcName(m.md.FullName()))
	}
	fmt.Fprintf(&body, "\t}\n\treturn false, nil\n}\n")
	fmt.Fprintf(&body, "\n// typedFields lists, per generated type, the fields its function writes\n// (TestTypedWritersAreCurrent compares them with the descriptors).\nvar typedFields = map[protoreflect.FullName]string{\n")
	for _, m := range written {
		var names []string
		for i := range m.md.Fields().Len() {
			names = append(names, string(m.md.Fields().Get(i).Name()))
		}
		fmt.Fprintf(&body, "\t%q: %q,\n", m.md.FullName(), strings.Join(names, " "))
	}
	fmt.Fprintf(&body, "}\n")
	for _, m := range written {
		g.writeFunc(&body, m)
	}
	fmt.Fprintf(&body, "\n// eachAnyTyped is eachAny for the generated types: f called on every Any\n// reachable from m through its fields, in declaration order, not\n// descending into them; false for a type that has no walk.\n")
	fmt.Fprintf(&body, "func eachAnyTyped(m proto.Message, f func(*anypb.Any) error) (bool, error) {\n\tswitch m := m.(type) {\n")
	for _, m := range written {
		if g.reachesAny(m.md) {
			fmt.Fprintf(&body, "\tcase *%s:\n\t\treturn true, %s(m, f)\n", g.typeName(m.goType), walkName(m.md.FullName()))
		} else {
			fmt.Fprintf(&body, "\tcase *%s:\n\t\treturn true, nil\n", g.typeName(m.goType))
		}
	}
	fmt.Fprintf(&body, "\t}\n\treturn false, nil\n}\n")
	for _, m := range written {
		if g.reachesAny(m.md) {
			g.walkFunc(&body, m)
		}
	}
	var head bytes.Buffer
	head.WriteString("// Code generated by genwriters.go; DO NOT EDIT.\n\n")
	head.WriteString("//lint:file-ignore SA1019 every field is written as protojson writes it, deprecated or not\n\npackage envoy\n\nimport (\n")
	if bytes.Contains(body.Bytes(), []byte("math.")) {
		head.WriteString("\t\"math\"\n\n")
	}
	head.WriteString("\t\"google.golang.org/protobuf/proto\"\n\t\"google.golang.org/protobuf/reflect/protoreflect\"\n\t\"google.golang.org/protobuf/types/known/anypb\"\n")
	var paths []string
	for p := range g.imports {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(&head, "\t%s %q\n", g.imports[p], p)
	}
	head.WriteString("\n\t\"github.com/gwpol/gwpol/internal/render/xdsjson\"\n)\n")
	head.Write(body.Bytes())
	src, err := format.Source(head.Bytes())
	if err != nil {
		return head.Bytes(), err
	}
	return src, nil
}

func (g *gen) writeFunc(b *bytes.Buffer, m *msgType) {
	fmt.Fprintf(b, "\nfunc %s(w *xdsjson.Writer, m *%s, typeURL string) error {\n", funcName(m.md.FullName()), g.typeName(m.goType))
	fmt.Fprintf(b, "\tif m == nil || w.Skip != nil {\n\t\treturn w.Fields(m.ProtoReflect(), typeURL)\n\t}\n")
	fmt.Fprintf(b, "\tn, err := w.Begin(typeURL)\n\tif err != nil {\n\t\treturn err\n\t}\n")
	for i := range m.md.Fields().Len() {
		fd := m.md.Fields().Get(i)
		f := m.fields[fd.Number()]
		name := string(fd.Name())
		if f.wrapper != nil {
			fmt.Fprintf(b, "\tif o, ok := m.%s.(%s); ok && o != nil {\n", f.name, g.typeName(f.wrapper))
			fmt.Fprintf(b, "\t\tw.Field(n, %q)\n\t\tn++\n", name)
			g.value(b, fd, "o."+f.inner, f.typ, "\t\t")
			fmt.Fprintf(b, "\t}\n")
			continue
		}
		v := "m." + f.name
		var cond string
		switch {
		case fd.IsList() || fd.IsMap():
			cond = "len(" + v + ") > 0"
		case fd.Message() != nil:
			cond = v + " != nil"
		case f.typ.Kind() == reflect.Pointer: // proto3 optional
			cond = v + " != nil"
			v = "*" + v
		case fd.Kind() == protoreflect.BoolKind:
			cond = v
		case fd.Kind() == protoreflect.StringKind:
			cond = v + ` != ""`
		case fd.Kind() == protoreflect.BytesKind:
			cond = "len(" + v + ") > 0"
		case fd.Kind() == protoreflect.FloatKind || fd.Kind() == protoreflect.DoubleKind:
			cond = fmt.Sprintf("%s != 0 || math.Signbit(float64(%s))", v, v)
		default:
			cond = v + " != 0"
		}
		fmt.Fprintf(b, "\tif %s {\n\t\tw.Field(n, %q)\n\t\tn++\n", cond, name)
		switch {
		case fd.IsMap():
			fmt.Fprintf(b, "\t\tkeys := xdsjson.SortedKeys(w, %s)\n", v)
			fmt.Fprintf(b, "\t\tw.Open('{')\n\t\tfor i, k := range keys {\n\t\t\tif err := w.Key(i, k); err != nil {\n\t\t\t\treturn err\n\t\t\t}\n")
			g.value(b, fd.MapValue(), v+"[k]", f.typ.Elem(), "\t\t\t")
			fmt.Fprintf(b, "\t\t}\n\t\tw.Close(len(keys), '}')\n\t\tw.ReleaseKeys(keys)\n")
		case fd.IsList():
			fmt.Fprintf(b, "\t\tw.Open('[')\n\t\tfor i, e := range %s {\n\t\t\tw.Elem(i)\n", v)
			g.value(b, fd, "e", f.typ.Elem(), "\t\t\t")
			fmt.Fprintf(b, "\t\t}\n\t\tw.Close(len(%s), ']')\n", v)
		default:
			g.value(b, fd, v, f.typ, "\t\t")
		}
		fmt.Fprintf(b, "\t}\n")
	}
	fmt.Fprintf(b, "\tw.Close(n, '}')\n\treturn nil\n}\n")
}

// value writes one singular value v (of Go type t) of field fd.
func (g *gen) value(b *bytes.Buffer, fd protoreflect.FieldDescriptor, v string, t reflect.Type, ind string) {
	check := func(call string) {
		fmt.Fprintf(b, "%sif err := %s; err != nil {\n%s\treturn err\n%s}\n", ind, call, ind, ind)
	}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		fmt.Fprintf(b, "%sw.Bool(%s)\n", ind, v)
	case protoreflect.StringKind:
		check(fmt.Sprintf("w.StringField(%s, %q)", v, fd.FullName()))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		fmt.Fprintf(b, "%sw.Int(int64(%s))\n", ind, v)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		fmt.Fprintf(b, "%sw.Uint(uint64(%s))\n", ind, v)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		fmt.Fprintf(b, "%sw.QuotedInt(int64(%s))\n", ind, v)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		fmt.Fprintf(b, "%sw.QuotedUint(uint64(%s))\n", ind, v)
	case protoreflect.FloatKind:
		fmt.Fprintf(b, "%sw.Float(float64(%s), 32)\n", ind, v)
	case protoreflect.DoubleKind:
		fmt.Fprintf(b, "%sw.Float(float64(%s), 64)\n", ind, v)
	case protoreflect.BytesKind:
		fmt.Fprintf(b, "%sw.Bytes(%s)\n", ind, v)
	case protoreflect.EnumKind:
		et := t
		if et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		fmt.Fprintf(b, "%sw.Enum(protoreflect.EnumNumber(%s), %s(0).Descriptor())\n", ind, v, g.typeName(et))
	case protoreflect.MessageKind:
		if m := g.types[fd.Message().FullName()]; m != nil && m.ok {
			check(fmt.Sprintf(`%s(w, %s, "")`, funcName(m.md.FullName()), v))
		} else {
			check(fmt.Sprintf("w.Message(%s.ProtoReflect())", v))
		}
	default:
		panic(fmt.Sprintf("%s: kind %v", fd.FullName(), fd.Kind()))
	}
}

const anyName = "google.protobuf.Any"

func walkName(name protoreflect.FullName) string {
	return "eachAnyIn" + strings.TrimPrefix(funcName(name), "write")
}

// reachesAny reports whether an Any may be reached from md's fields: an
// Any field, or a message that is no generated type (walked by
// reflection) or reaches one.
func (g *gen) reachesAny(md protoreflect.MessageDescriptor) bool {
	if g.reach == nil {
		g.reach = map[protoreflect.FullName]bool{}
	}
	if r, ok := g.reach[md.FullName()]; ok {
		return r
	}
	g.reach[md.FullName()] = false // a cycle adds nothing of its own
	r := false
	for i := range md.Fields().Len() {
		fd := md.Fields().Get(i)
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if fd.Message() != nil && g.fieldReachesAny(fd.Message()) {
			r = true
		}
	}
	g.reach[md.FullName()] = r
	return r
}

func (g *gen) fieldReachesAny(md protoreflect.MessageDescriptor) bool {
	switch {
	case md.FullName() == anyName:
		return true
	case wellKnown(md):
		return false // the other well-known types hold no Any
	}
	if m := g.types[md.FullName()]; m == nil || !m.ok {
		return true
	}
	return g.reachesAny(md)
}

func (g *gen) walkFunc(b *bytes.Buffer, m *msgType) {
	fmt.Fprintf(b, "\nfunc %s(m *%s, f func(*anypb.Any) error) error {\n", walkName(m.md.FullName()), g.typeName(m.goType))
	fmt.Fprintf(b, "\tif m == nil {\n\t\treturn nil\n\t}\n")
	for i := range m.md.Fields().Len() {
		fd := m.md.Fields().Get(i)
		vd := fd
		if fd.IsMap() {
			vd = fd.MapValue()
		}
		if vd.Message() == nil || !g.fieldReachesAny(vd.Message()) {
			continue
		}
		f := m.fields[fd.Number()]
		visit := func(v, ind string) {
			md := vd.Message()
			var call string
			switch t := g.types[md.FullName()]; {
			case md.FullName() == anyName:
				call = "f(" + v + ")"
			case t != nil && t.ok:
				call = walkName(md.FullName()) + "(" + v + ", f)"
			default:
				call = "eachAny(" + v + ".ProtoReflect(), f)"
			}
			fmt.Fprintf(b, "%sif err := %s; err != nil {\n%s\treturn err\n%s}\n", ind, call, ind, ind)
		}
		switch {
		case f.wrapper != nil:
			fmt.Fprintf(b, "\tif o, ok := m.%s.(%s); ok && o != nil {\n", f.name, g.typeName(f.wrapper))
			visit("o."+f.inner, "\t\t")
			fmt.Fprintf(b, "\t}\n")
		case fd.IsMap():
			fmt.Fprintf(b, "\tfor _, e := range m.%s {\n", f.name)
			visit("e", "\t\t")
			fmt.Fprintf(b, "\t}\n")
		case fd.IsList():
			fmt.Fprintf(b, "\tfor _, e := range m.%s {\n", f.name)
			visit("e", "\t\t")
			fmt.Fprintf(b, "\t}\n")
		default:
			fmt.Fprintf(b, "\tif m.%s != nil {\n", f.name)
			visit("m."+f.name, "\t\t")
			fmt.Fprintf(b, "\t}\n")
		}
	}
	fmt.Fprintf(b, "\treturn nil\n}\n")
}
