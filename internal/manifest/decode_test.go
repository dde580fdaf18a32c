package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// decodeViaJSON is the decoder the object decoder replaced, kept as the
// reference it must agree with: the object's JSON form through
// encoding/json.
func (o *Object) decodeViaJSON(v any) error {
	data, err := o.JSON()
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// gatewayKinds are the typed objects the equivalence tests decode into.
var gatewayKinds = map[string]func() any{
	"Gateway":        func() any { return &gwv1.Gateway{} },
	"HTTPRoute":      func() any { return &gwv1.HTTPRoute{} },
	"GRPCRoute":      func() any { return &gwv1.GRPCRoute{} },
	"ReferenceGrant": func() any { return &gwv1.ReferenceGrant{} },
	"ListenerSet":    func() any { return &gwv1.ListenerSet{} },
	"GatewayClass":   func() any { return &gwv1.GatewayClass{} },
}

// TestDecodeMatchesJSON decodes every object of the repository's testdata
// both ways: typed gateway-api objects field by field, every object's
// metadata too.
func TestDecodeMatchesJSON(t *testing.T) {
	var files []string
	for _, dir := range []string{"examples", "lint", "render", "haptic", "wso2", "explain", "diff", "bad"} {
		err := filepath.WalkDir(filepath.Join("../../testdata", dir), func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && slices.Contains(inputExts, filepath.Ext(p)) {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	decoded := 0
	for _, f := range files {
		set, err := Load([]string{f}, Options{})
		if err != nil {
			continue // the bad inputs
		}
		for _, o := range set.Objects {
			newObj := func() any { return &metav1.PartialObjectMetadata{} }
			if k, ok := gatewayKinds[o.Kind]; ok && o.Group == "gateway.networking.k8s.io" {
				newObj = k
			}
			t.Run(o.String(), func(t *testing.T) {
				checkEquivalent(t, o, newObj)
			})
			decoded++
		}
	}
	if decoded < 100 {
		t.Errorf("only %d objects decoded; is testdata where it was?", decoded)
	}
}

// checkEquivalent decodes o both ways: both must fail, or give the same
// value and the same unknown fields.
func checkEquivalent(t *testing.T, o *Object, newObj func() any) {
	t.Helper()
	old, got := newObj(), newObj()
	oldErr := o.decodeViaJSON(old)
	unknown, err := o.DecodeStrict(got)
	if (oldErr == nil) != (err == nil) {
		t.Fatalf("JSON path error %v, decoder error %v", oldErr, err)
	}
	if err != nil {
		return
	}
	if diff := cmp.Diff(old, got, cmp.AllowUnexported(testSpec{})); diff != "" {
		t.Errorf("decoded value differs (-json +decoder):\n%s", diff)
	}
	if diff := cmp.Diff(o.UnknownFields(reflect.TypeOf(got).Elem()), unknown); diff != "" {
		t.Errorf("unknown fields differ (-UnknownFields +DecodeStrict):\n%s", diff)
	}
}

// Types for the focused cases: every shape the decoder handles.
type (
	testObject struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec testSpec `json:"spec"`
	}
	testSpec struct {
		S      string                            `json:"s,omitempty"`
		Name   gwv1.ObjectName                   `json:"name,omitempty"`
		I      int32                             `json:"i,omitempty"`
		I8     int8                              `json:"i8,omitempty"`
		U      uint16                            `json:"u,omitempty"`
		F      float64                           `json:"f,omitempty"`
		F32    float32                           `json:"f32,omitempty"`
		B      bool                              `json:"b,omitempty"`
		P      *int                              `json:"p,omitempty"`
		PP     **string                          `json:"pp,omitempty"`
		L      []string                          `json:"l,omitempty"`
		M      map[string]int                    `json:"m,omitempty"`
		Hosts  []gwv1.Hostname                   `json:"hosts,omitempty"`
		Labels map[gwv1.LabelKey]gwv1.LabelValue `json:"labels,omitempty"`
		Inner  *inner                            `json:"inner,omitempty"`
		Inners []inner                           `json:"inners,omitempty"`
		ByName map[string]inner                  `json:"byName,omitempty"`
		Any    any                               `json:"any,omitempty"`
		Anys   map[string]any                    `json:"anys,omitempty"`
		D      metav1.Duration                   `json:"d,omitempty"`
		PD     *metav1.Duration                  `json:"pd,omitempty"`
		Q      resource.Quantity                 `json:"q,omitempty"`
		IS     intstr.IntOrString                `json:"is,omitempty"`
		Time   *metav1.Time                      `json:"time,omitempty"`
		Raw    json.RawMessage                   `json:"raw,omitempty"`
		Text   upper                             `json:"text,omitempty"`
		Bytes  []byte                            `json:"bytes,omitempty"`
		Arr    [2]int                            `json:"arr,omitempty"`
		IntKey map[int]inner                     `json:"intKey,omitempty"`
		Skip   string                            `json:"-"`
		//lint:ignore U1000 an unexported field the decoder must skip
		hidden string
		Embedded
		*EmbeddedPtr
		Flat flat `json:",inline"`
	}
	inner struct {
		X int    `json:"x,omitempty"`
		Y string `json:"y,omitempty"`
	}
	Embedded struct {
		E string `json:"e,omitempty"`
		S string `json:"s,omitempty"` // shadowed by testSpec.S
	}
	EmbeddedPtr struct {
		EP string `json:"ep,omitempty"`
	}
	flat struct {
		Fl string `json:"fl,omitempty"`
		E  string `json:"e,omitempty"` // Embedded.E came first
	}
	// quoted needs encoding/json: its field is read from inside a string.
	quoted struct {
		N int `json:"n,string"`
	}
	// hiddenPtr embeds a pointer encoding/json cannot allocate.
	hiddenPtr struct {
		*hiddenInner
	}
	hiddenInner struct {
		H string `json:"h"`
	}
)

// upper is an encoding.TextUnmarshaler.
type upper string

func (u *upper) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		return errors.New("empty text")
	}
	*u = upper(strings.ToUpper(string(b)))
	return nil
}

// testHeader is the start of every focused case; spec is on line 4.
const testHeader = "apiVersion: v1\nkind: Thing\nmetadata: {name: t}\n"

func parseOne(t testing.TB, src string) *Object {
	t.Helper()
	objs, err := Parse("t.yaml", []byte(src), Limits{})
	if err != nil || len(objs) != 1 {
		t.Fatalf("Parse: %d objects, %v", len(objs), err)
	}
	return objs[0]
}

func ptr[T any](v T) *T { return &v }

func TestDecode(t *testing.T) {
	hello := ptr("hello")
	tests := []struct {
		name    string
		spec    string // YAML from line 4 on
		want    testSpec
		unknown []string // path@line:col
		err     string   // the whole error, position first
		// notJSON marks the cases where the decoder departs on purpose
		// from encoding/json (which folds case).
		notJSON bool
	}{
		{name: "strings", spec: "spec: {s: hi, name: web, hosts: [a.example.com, '80'], text: abc}",
			want: testSpec{S: "hi", Name: "web", Hosts: []gwv1.Hostname{"a.example.com", "80"}, Text: "ABC"}},
		{name: "numbers", spec: "spec: {i: -3, i8: 127, u: 65535, f: 1.5e3, f32: .5, p: 0x10}",
			want: testSpec{I: -3, I8: 127, U: 65535, F: 1500, F32: 0.5, P: ptr(16)}},
		{name: "tagged numbers", spec: "spec: {i: !!float 2, f: !!int 1_000, s: !!str 12}",
			want: testSpec{I: 2, F: 1000, S: "12"}},
		{name: "bools", spec: "spec: {b: True}", want: testSpec{B: true}},
		{name: "strings that look like other things", spec: "spec: {s: 2001-12-14, l: [!!binary aGk=, '1', 'true', .inf]}",
			want: testSpec{S: "2001-12-14", L: []string{"aGk=", "1", "true", ".inf"}}},
		{name: "pointer to pointer", spec: "spec: {pp: hello}", want: testSpec{PP: &hello}},
		{name: "lists and maps", spec: "spec: {l: [], m: {a: 1, b: 2}, labels: {app: web}, byName: {x: {x: 1}}}",
			want: testSpec{L: []string{}, M: map[string]int{"a": 1, "b": 2}, Labels: map[gwv1.LabelKey]gwv1.LabelValue{"app": "web"}, ByName: map[string]inner{"x": {X: 1}}}},
		{name: "nulls", spec: "spec: {s: null, i: ~, l: null, m: null, inner: null, any: null, time: null}", want: testSpec{}},
		{name: "nulls in lists and maps", spec: "spec: {inners: [null, {x: 1}], m: {a: null}}",
			want: testSpec{Inners: []inner{{}, {X: 1}}, M: map[string]int{"a": 0}}},
		{name: "embedded", spec: "spec: {s: own, e: embedded, ep: allocated}",
			want: testSpec{S: "own", Embedded: Embedded{E: "embedded"}, EmbeddedPtr: &EmbeddedPtr{EP: "allocated"}}},
		// encoding/json knows no ,inline: it would want a key "Flat".
		{name: "inline", spec: "spec: {fl: flat, e: embedded}",
			want: testSpec{Embedded: Embedded{E: "embedded"}, Flat: flat{Fl: "flat"}}, notJSON: true},
		{name: "aliases", spec: "x: &in {x: 1, y: a}\nspec: {inner: *in, inners: [*in, *in]}",
			want: testSpec{Inner: &inner{X: 1, Y: "a"}, Inners: []inner{{X: 1, Y: "a"}, {X: 1, Y: "a"}}}, unknown: []string{"x@4:1"}},
		{name: "merge keys", spec: "x: &base {x: 1, y: base}\ny: &more {y: more, z: 3}\nspec:\n  inner: {<<: [*base, *more], x: 2}",
			want: testSpec{Inner: &inner{X: 2, Y: "base"}}, unknown: []string{"x@4:1", "y@5:1", "spec.inner.z@5:20"}},
		{name: "alias keys", spec: "spec: {&k s: a, byName: {*k : {y: b}}}",
			want: testSpec{S: "a", ByName: map[string]inner{"s": {Y: "b"}}}},
		{name: "unknown fields", spec: "spec:\n  sss: 1\n  inner: {x: 1, z: {deep: 1}}\n  inners: [{}, {w: 1}]\n  byName: {a: {v: 1}}\n  intKey: {1: {u: 1}}\n  Skip: 1\n  hidden: 1",
			want:    testSpec{Inner: &inner{X: 1}, Inners: []inner{{}, {}}, ByName: map[string]inner{"a": {}}, IntKey: map[int]inner{1: {}}},
			unknown: []string{"spec.sss@5:3", "spec.inner.z@6:17", "spec.inners[1].w@7:17", "spec.byName.a.v@8:16", "spec.intKey.1.u@9:16", "spec.Skip@10:3", "spec.hidden@11:3"}},
		{name: "keys match exactly", spec: "spec: {S: upper, iNNer: {x: 1}}", want: testSpec{},
			unknown: []string{"spec.S@4:8", "spec.iNNer@4:18"}, notJSON: true},
		{name: "unmarshalers", spec: "spec: {d: 1m30s, pd: 5s, q: 1500m, is: http, time: '2024-01-02T03:04:05Z', raw: {a: [1]}}",
			want: testSpec{D: metav1.Duration{Duration: 90 * time.Second}, PD: &metav1.Duration{Duration: 5 * time.Second}, Q: resource.MustParse("1500m"),
				IS: intstr.FromString("http"), Time: &metav1.Time{Time: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}, Raw: json.RawMessage(`{"a":[1]}`)}},
		{name: "unmarshalers with numbers", spec: "spec: {q: 2, is: 8080}", want: testSpec{Q: resource.MustParse("2"), IS: intstr.FromInt32(8080)}},
		{name: "unmarshalers see null", spec: "spec: {raw: null, q: null}", want: testSpec{Raw: json.RawMessage("null")}},
		{name: "interfaces keep JSON numbers", spec: "spec: {any: {a: 1, b: [x, true, null, 0x10]}, anys: {n: 2}}",
			want: testSpec{Any: map[string]any{"a": 1.0, "b": []any{"x", true, nil, 16.0}}, Anys: map[string]any{"n": 2.0}}},
		{name: "shapes left to encoding/json", spec: "spec: {bytes: aGk=, arr: [1, 2, 3], intKey: {7: {x: 1}}}",
			want: testSpec{Bytes: []byte("hi"), Arr: [2]int{1, 2}, IntKey: map[int]inner{7: {X: 1}}}},

		{name: "number for a string", spec: "spec: {s: 1}", err: "t.yaml:4:11: Thing t: spec.s must be a string, not number"},
		{name: "bool for a named string", spec: "spec: {name: true}", err: "t.yaml:4:14: Thing t: spec.name must be a string, not bool"},
		{name: "string for a number", spec: "spec: {i: '1'}", err: "t.yaml:4:11: Thing t: spec.i must be a number, not string"},
		{name: "fraction for an int", spec: "spec: {i: 1.5}", err: "t.yaml:4:11: Thing t: spec.i must be a whole number from -2147483648 to 2147483647, not number 1.5"},
		{name: "int overflow", spec: "spec: {i8: 128}", err: "t.yaml:4:12: Thing t: spec.i8 must be a whole number from -128 to 127, not number 128"},
		{name: "negative uint", spec: "spec: {u: -1}", err: "t.yaml:4:11: Thing t: spec.u must be a whole number from 0 to 65535, not number -1"},
		{name: "float overflow", spec: "spec: {f32: 1e39}", err: "t.yaml:4:13: Thing t: spec.f32 must be a number, not number 1e39"},
		{name: "string for a bool", spec: "spec: {b: 'yes'}", err: "t.yaml:4:11: Thing t: spec.b must be true or false, not string"},
		{name: "null is not false", spec: "spec: {b: null, i: null}", want: testSpec{}},
		{name: "map for a list", spec: "spec: {l: {a: 1}}", err: "t.yaml:4:11: Thing t: spec.l must be a list, not object"},
		{name: "list for a map", spec: "spec: {m: [1]}", err: "t.yaml:4:11: Thing t: spec.m must be a map, not array"},
		{name: "scalar for a struct", spec: "spec: {inner: x}", err: "t.yaml:4:15: Thing t: spec.inner must be an object (manifest.inner), not string"},
		{name: "list for a struct", spec: "spec: [1]", err: "t.yaml:4:7: Thing t: spec must be an object (manifest.testSpec), not array"},
		{name: "in a list element", spec: "spec:\n  inners:\n  - {x: 1}\n  - {x: one}", err: "t.yaml:7:9: Thing t: spec.inners[1].x must be a number, not string"},
		{name: "in a map value", spec: "spec: {m: {a: x}}", err: "t.yaml:4:15: Thing t: spec.m.a must be a number, not string"},
		{name: "below a merge key", spec: "x: &b {x: one}\nspec: {inner: {<<: *b}}", err: "t.yaml:4:11: Thing t: spec.inner.x must be a number, not string"},
		{name: "number for a TextUnmarshaler", spec: "spec: {text: 1}", err: "t.yaml:4:14: Thing t: spec.text must be a string, not number"},
		{name: "TextUnmarshaler error", spec: "spec: {text: ''}", err: "t.yaml:4:14: Thing t: empty text"},
		{name: "Unmarshaler error", spec: "spec: {d: 5x}", err: `t.yaml:4:11: Thing t: time: unknown unit "x" in duration "5x"`},
		{name: "null Duration", spec: "spec: {d: null}", err: `t.yaml:4:11: Thing t: time: invalid duration ""`},
		{name: "Unmarshaler type error", spec: "spec: {time: 5}", err: "t.yaml:4:14: Thing t: spec.time must be a string, not number"},
		{name: "map for IntOrString", spec: "spec: {is: {a: 1}}", err: "t.yaml:4:12: Thing t: spec.is must be a number, not object"},
		{name: "type error below encoding/json", spec: "spec: {intKey: {1: {x: 1}, 2: {y: 2}}}", err: "t.yaml:4:16: Thing t: spec.intKey.y must be a string, not number"},
		{name: "bad number key", spec: "spec: {intKey: {a: {}}}", err: "t.yaml:4:16: Thing t: spec.intKey must be a number, not number a"},
		{name: "invalid boolean", spec: "spec: {b: !!bool yes}", err: `t.yaml:4:11: invalid boolean "yes"`},
		{name: "invalid number", spec: "spec: {i: !!int x}", err: `t.yaml:4:11: invalid number "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := parseOne(t, testHeader+tt.spec)
			var got testObject
			unknown, err := o.DecodeStrict(&got)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error\n got %v\nwant %s", err, tt.err)
				}
				var pe *PosError
				if !errors.As(err, &pe) {
					t.Errorf("error %T does not carry a position", err)
				}
				if old := o.decodeViaJSON(&testObject{}); old == nil {
					t.Errorf("encoding/json accepted what the decoder refused")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Spec, cmp.AllowUnexported(testSpec{}), cmp.Comparer(resource.Quantity.Equal)); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			var paths []string
			for _, u := range unknown {
				paths = append(paths, fmt.Sprintf("%s@%d:%d", u.Path, u.Pos.Line, u.Pos.Col))
			}
			if diff := cmp.Diff(tt.unknown, paths); diff != "" {
				t.Errorf("unknown fields (-want +got):\n%s", diff)
			}
			if !tt.notJSON {
				checkEquivalent(t, o, func() any { return &testObject{} })
			}
		})
	}
}

// TestDecodeNullKeeps: null leaves values that cannot be nil as they
// were, as encoding/json does, and clears the ones that can.
func TestDecodeNullKeeps(t *testing.T) {
	o := parseOne(t, testHeader+"spec: {s: null, i: null, b: null, inner: null, l: null, m: null, any: null, p: null}")
	got := testObject{Spec: testSpec{S: "kept", I: 7, B: true, Inner: &inner{X: 1}, L: []string{"x"}, M: map[string]int{"a": 1}, Any: 1, P: ptr(1)}}
	if err := o.Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := testSpec{S: "kept", I: 7, B: true}
	if diff := cmp.Diff(want, got.Spec, cmp.AllowUnexported(testSpec{}), cmp.Comparer(resource.Quantity.Equal)); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
}

func TestDecodeField(t *testing.T) {
	o := parseOne(t, testHeader+"spec:\n  inners: [{x: 1}, {x: 2}]\n  m: {a: 1}\n")
	var in inner
	if err := o.DecodeField("spec.inners[1]", &in); err != nil || in.X != 2 {
		t.Errorf("DecodeField(spec.inners[1]) = %+v, %v", in, err)
	}
	// A missing field is null: nothing changes.
	in = inner{X: 9}
	if err := o.DecodeField("spec.nothing", &in); err != nil || in.X != 9 {
		t.Errorf("DecodeField(missing) = %+v, %v", in, err)
	}
	var s string
	err := o.DecodeField("spec.m", &s)
	if want := "t.yaml:6:6: Thing t: spec.m must be a string, not object"; err == nil || err.Error() != want {
		t.Errorf("DecodeField(spec.m) error %v, want %s", err, want)
	}
	err = o.Decode(in)
	if want := "t.yaml:1:1: Thing t: json: Unmarshal(non-pointer manifest.inner)"; err == nil || err.Error() != want {
		t.Errorf("Decode(non-pointer) error %v, want %s", err, want)
	}
}

func TestDecodeQuotedAndHiddenPointer(t *testing.T) {
	o := parseOne(t, testHeader+"spec: {n: '12'}\n")
	var q struct {
		Spec quoted `json:"spec"`
	}
	if err := o.Decode(&q); err != nil || q.Spec.N != 12 {
		t.Errorf(",string field: %+v, %v", q, err)
	}
	o = parseOne(t, testHeader+"spec: {h: x}\n")
	var h struct {
		Spec hiddenPtr `json:"spec"`
	}
	err := o.Decode(&h)
	if want := "t.yaml:4:8: Thing t: spec.h: cannot set embedded pointer to unexported struct manifest.hiddenInner"; err == nil || err.Error() != want {
		t.Errorf("unexported embedded pointer: error %v, want %s", err, want)
	}
}

// TestDecodeDocument: a document node decodes as its content, an empty one
// as null.
func TestDecodeDocument(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("{x: 3}"), &doc); err != nil {
		t.Fatal(err)
	}
	in := inner{Y: "kept"}
	if err := (&Object{Kind: "Thing", node: &doc}).Decode(&in); err != nil || in != (inner{X: 3, Y: "kept"}) {
		t.Errorf("document: %+v, %v", in, err)
	}
	p := ptr(1)
	if err := (&Object{Kind: "Thing", node: &yaml.Node{Kind: yaml.DocumentNode}}).Decode(&p); err != nil || p != nil {
		t.Errorf("empty document: %v, %v", p, err)
	}
}

// FuzzDecode holds the decoder to the JSON path on arbitrary documents:
// wherever encoding/json decodes an HTTPRoute, the decoder must decode the
// same one and find the unknown fields UnknownFields finds. The exceptions
// are on purpose: keys that only match a field when case is folded, and a
// mapping giving a key twice (through an alias), where encoding/json merges
// into what the first one set.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		testHeader + "spec: {s: hi}\n",
		`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns, labels: {app: web}, creationTimestamp: "2024-01-02T03:04:05Z"}
spec:
  parentRefs: [{name: gw, sectionName: http, port: 80}]
  hostnames: ["*.example.com"]
  rules:
  - matches: &m [{path: {type: PathPrefix, value: /}, headers: [{name: x, value: "1"}]}]
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier: {set: [{name: a, value: b}]}
    backendRefs: &be [{name: svc, port: 8080, weight: 2}]
    timeouts: {request: 10s}
  - matches: *m
    backendRefs: *be
    matchs: typo
`,
		"apiVersion: v1\nkind: HTTPRoute\nx: &a {name: n}\nmetadata: {<<: *a, namespace: !!str 1}\nspec: {rules: [null, {}], hostnames: null}\n",
		"apiVersion: v1\nkind: HTTPRoute\nspec: {parentRefs: [{port: !!float 80}], rules: [{backendRefs: [{weight: 0x10}]}]}\n",
	} {
		f.Add([]byte(s))
	}
	examples, _ := filepath.Glob("../../testdata/examples/*.yaml")
	for _, e := range examples {
		if data, err := os.ReadFile(e); err == nil {
			f.Add(data)
		}
	}
	lim := Limits{MaxFileBytes: 1 << 16, MaxDepth: 16, MaxAliasNodes: 1000}
	names := map[string]bool{}
	jsonNames(reflect.TypeFor[gwv1.HTTPRoute](), names, map[reflect.Type]bool{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > int(lim.MaxFileBytes) {
			return
		}
		objs, err := Parse("fuzz.yaml", data, lim)
		if err != nil {
			return
		}
		for _, o := range objs {
			var old, got gwv1.HTTPRoute
			oldErr := o.decodeViaJSON(&old)
			unknown, err := o.DecodeStrict(&got)
			var pe *PosError
			if err != nil && (!errors.As(err, &pe) || pe.Pos.Line <= 0) {
				t.Errorf("error without a position: %v", err)
			}
			if err == nil {
				if diff := cmp.Diff(o.UnknownFields(reflect.TypeFor[gwv1.HTTPRoute]()), unknown); diff != "" {
					t.Errorf("unknown fields differ (-UnknownFields +DecodeStrict):\n%s", diff)
				}
			}
			if oldErr != nil || foldedOrRepeated(o.node, names) {
				continue
			}
			if err != nil {
				t.Fatalf("the JSON path decodes this; the decoder says %v", err)
			}
			if diff := cmp.Diff(old, got); diff != "" {
				t.Errorf("decoded value differs (-json +decoder):\n%s", diff)
			}
		}
	})
}

// jsonNames collects the JSON keys of every struct reachable from t, as
// written and folded.
func jsonNames(t reflect.Type, names map[string]bool, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for name, f := range jsonFields(t) {
		names[name], names[foldName(name)] = true, true
		jsonNames(f.typ, names, seen)
	}
}

// foldedOrRepeated reports whether some mapping below n has a key that
// encoding/json would match to a field only by folding case, or two keys
// that are the same once aliases are resolved.
func foldedOrRepeated(n *yaml.Node, names map[string]bool) bool {
	n = resolve(n)
	if n.Kind == yaml.MappingNode {
		keys := map[string]bool{}
		found := false
		eachPair(n, func(k, _ *yaml.Node) {
			key := resolve(k).Value
			found = found || keys[key] || names[foldName(key)] && !names[key]
			keys[key] = true
		})
		if found {
			return true
		}
	}
	for _, c := range n.Content {
		if foldedOrRepeated(c, names) {
			return true
		}
	}
	return false
}

// foldName folds case as encoding/json does when it matches keys.
func foldName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf {
			b.WriteRune(unicode.ToUpper(r))
			continue
		}
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		b.WriteRune(r)
	}
	return b.String()
}

// BenchmarkDecode compares the JSON path (render JSON, encoding/json, then
// the UnknownFields walk) with the decoder on 1000 HTTPRoutes.
func BenchmarkDecode(b *testing.B) {
	var src strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&src, `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: route-%d
  namespace: team-%d
  labels: {app: web-%d, tier: frontend}
  annotations: {example.com/owner: team-%d}
spec:
  parentRefs:
  - {name: public, namespace: infra, sectionName: https}
  hostnames: ["app-%d.example.com", "www.app-%d.example.com"]
  rules:
  - matches:
    - path: {type: PathPrefix, value: /api/v%d}
      headers: [{name: x-version, value: "%d"}]
      method: GET
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier: {set: [{name: x-route, value: r%d}], remove: [x-debug]}
    backendRefs:
    - {name: api-%d, port: 8080, weight: 90}
    - {name: api-canary-%d, port: 8080, weight: 10}
    timeouts: {request: 10s, backendRequest: 2s}
  - matches: [{path: {type: Exact, value: /healthz}}]
    backendRefs: [{name: health, port: 80}]
`, i, i%10, i, i%10, i, i, i%3, i, i, i, i)
	}
	objs, err := Parse("bench.yaml", []byte(src.String()), Limits{})
	if err != nil {
		b.Fatal(err)
	}
	typ := reflect.TypeFor[gwv1.HTTPRoute]()
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, o := range objs {
				var r gwv1.HTTPRoute
				if err := o.decodeViaJSON(&r); err != nil {
					b.Fatal(err)
				}
				_ = o.UnknownFields(typ)
			}
		}
	})
	b.Run("decoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, o := range objs {
				var r gwv1.HTTPRoute
				if _, err := o.DecodeStrict(&r); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// TestDecodeAll: every value that does not fit is reported at its own
// position in one run, and the rest of the object still decodes.
func TestDecodeAll(t *testing.T) {
	src := `apiVersion: v1
kind: Service
metadata:
  name: web
  labels: {app: web}
spec:
  ports:
  - port: eighty
  - port: 81
    name: 7
  - port: 82
  clusterIP: None
  selectr: {app: web}
`
	objs, err := Parse("svc.yaml", []byte(src), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var svc struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        metav1.ObjectMeta `json:"metadata"`
		Spec            struct {
			Ports []struct {
				Port int32  `json:"port"`
				Name string `json:"name"`
			} `json:"ports"`
			ClusterIP string            `json:"clusterIP"`
			Selector  map[string]string `json:"selector"`
		} `json:"spec"`
	}
	unknown, errs := objs[0].DecodeAll(&svc)
	var got []string
	for _, err := range errs {
		var pe *PosError
		if !errors.As(err, &pe) {
			t.Fatalf("%v is not a *PosError", err)
		}
		got = append(got, pe.Pos.String()+" "+pe.Msg)
	}
	want := []string{
		"svc.yaml:8:11 Service web: spec.ports[0].port must be a number, not string",
		"svc.yaml:10:11 Service web: spec.ports[1].name must be a string, not number",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if len(unknown) != 1 || unknown[0].Path != "spec.selectr" || unknown[0].Suggestion() != "selector" {
		t.Errorf("unknown = %+v, want spec.selectr (did you mean selector)", unknown)
	}
	if svc.Metadata.Labels["app"] != "web" || svc.Spec.ClusterIP != "None" || len(svc.Spec.Ports) != 3 || svc.Spec.Ports[2].Port != 82 {
		t.Errorf("the values that fit were not decoded: %+v", svc)
	}
}

// TestDecodeFieldAllFolded: a key that names a field only in another case
// sets it, as encoding/json reads it (the decoded value equals
// encoding/json's from the field's JSON), is listed as folded at its
// position, and is no unknown key; a key that matches nothing still is,
// and a folded key's value that does not fit is an error at its position.
func TestDecodeFieldAllFolded(t *testing.T) {
	type ref struct {
		Name string `json:"name"`
		Port int32  `json:"port"`
	}
	type spec struct {
		RateLimit *struct {
			Type string `json:"type"`
		} `json:"rateLimit"`
		BackendRefs []ref `json:"backendRefs"`
	}
	src := "apiVersion: v1\nkind: X\nmetadata: {name: x}\nspec:\n  RateLimit: {TYPE: Global}\n  backendRefs:\n  - {Name: a, port: 80}\n  - {NAME: b, Port: 81, extra: 1}\n"
	objs, err := Parse("x.yaml", []byte(src), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var got spec
	unknown, folded, errs := objs[0].DecodeFieldAllFolded("spec", &got)
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	raw, err := objs[0].FieldJSON("spec")
	if err != nil {
		t.Fatal(err)
	}
	var want spec
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded differs from encoding/json's reading (-json +folded):\n%s", diff)
	}
	var paths []string
	for _, f := range folded {
		paths = append(paths, f.Path+"@"+f.Pos.String())
	}
	wantFolded := []string{"spec.RateLimit@x.yaml:5:3", "spec.RateLimit.TYPE@x.yaml:5:15", "spec.backendRefs[0].Name@x.yaml:7:6",
		"spec.backendRefs[1].NAME@x.yaml:8:6", "spec.backendRefs[1].Port@x.yaml:8:15"}
	if diff := cmp.Diff(wantFolded, paths); diff != "" {
		t.Errorf("folded keys (-want +got):\n%s", diff)
	}
	if len(unknown) != 1 || unknown[0].Path != "spec.backendRefs[1].extra" {
		t.Errorf("unknown = %+v, want spec.backendRefs[1].extra only", unknown)
	}
	// Read exactly, the folded keys are unknown (RateLimit's own keys
	// unvisited) and set nothing.
	var exact spec
	if unknown, errs := objs[0].DecodeFieldAll("spec", &exact); len(errs) != 0 || len(unknown) != 5 || exact.RateLimit != nil {
		t.Errorf("exact reading: unknown %d, errors %v, rateLimit %v", len(unknown), errs, exact.RateLimit)
	}

	bad, err := Parse("y.yaml", []byte("apiVersion: v1\nkind: X\nmetadata: {name: y}\nspec:\n  backendRefs: [{PORT: eighty}]\n"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var s spec
	_, _, errs = bad[0].DecodeFieldAllFolded("spec", &s)
	var pe *PosError
	if len(errs) != 1 || !errors.As(errs[0], &pe) || pe.Pos.String() != "y.yaml:5:24" || !strings.Contains(pe.Msg, "spec.backendRefs[0].PORT must be a number") {
		t.Errorf("errors = %v, want one at y.yaml:5:24 naming spec.backendRefs[0].PORT", errs)
	}
}
