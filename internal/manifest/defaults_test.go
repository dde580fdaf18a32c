package manifest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func key(k string) Step { return Step{Key: k, Index: -1} }
func at(i int) Step     { return Step{Index: i} }

// TestDecodeAppliesDefaults: the defaults recorded on an object decode
// into the typed value at their paths, after what is written, through
// pointers, lists, maps, embedded structs and types that decode
// themselves; a default at a path the type has no field for, or past
// the end of a list, is not the type's; the tree (and positions) stay
// as written.
func TestDecodeAppliesDefaults(t *testing.T) {
	tests := []struct {
		name     string
		spec     string
		defaults []Default
		want     testSpec
	}{
		{name: "scalar on an absent field", spec: "spec: {s: hi}",
			defaults: []Default{{[]Step{key("spec"), key("i")}, NewValue(int64(7))}},
			want:     testSpec{S: "hi", I: 7}},
		{name: "pointer and named string", spec: "spec: {}",
			defaults: []Default{{[]Step{key("spec"), key("p")}, NewValue(int64(302))}, {[]Step{key("spec"), key("name")}, NewValue("web")}},
			want:     testSpec{P: ptr(302), Name: "web"}},
		{name: "a null written takes the default", spec: "spec: {p: null}",
			defaults: []Default{{[]Step{key("spec"), key("p")}, NewValue(int64(1))}},
			want:     testSpec{P: ptr(1)}},
		{name: "object, then a field inside it", spec: "spec: {}",
			defaults: []Default{{[]Step{key("spec"), key("inner")}, NewValue(map[string]any{"x": int64(1)})}, {[]Step{key("spec"), key("inner"), key("y")}, NewValue("d")}},
			want:     testSpec{Inner: &inner{X: 1, Y: "d"}}},
		{name: "in list elements", spec: "spec: {inners: [{x: 1}, {y: set}]}",
			defaults: []Default{{[]Step{key("spec"), key("inners"), at(0), key("y")}, NewValue("d")}, {[]Step{key("spec"), key("inners"), at(1), key("x")}, NewValue(int64(9))}, {[]Step{key("spec"), key("inners"), at(5), key("x")}, NewValue(int64(9))}},
			want:     testSpec{Inners: []inner{{X: 1, Y: "d"}, {X: 9, Y: "set"}}}},
		{name: "in map values", spec: "spec: {byName: {a: {x: 1}}}",
			defaults: []Default{{[]Step{key("spec"), key("byName"), key("a"), key("y")}, NewValue("d")}},
			want:     testSpec{ByName: map[string]inner{"a": {X: 1, Y: "d"}}}},
		{name: "a list", spec: "spec: {}",
			defaults: []Default{{[]Step{key("spec"), key("l")}, NewValue([]any{"a", "b"})}},
			want:     testSpec{L: []string{"a", "b"}}},
		{name: "embedded and inline", spec: "spec: {}",
			defaults: []Default{{[]Step{key("spec"), key("e")}, NewValue("e")}, {[]Step{key("spec"), key("ep")}, NewValue("ep")}, {[]Step{key("spec"), key("fl")}, NewValue("fl")}},
			want:     testSpec{Embedded: Embedded{E: "e"}, EmbeddedPtr: &EmbeddedPtr{EP: "ep"}, Flat: flat{Fl: "fl"}}},
		{name: "types that decode themselves", spec: "spec: {}",
			defaults: []Default{{[]Step{key("spec"), key("d")}, NewValue("5s")}, {[]Step{key("spec"), key("is")}, NewValue(int64(80))}, {[]Step{key("spec"), key("text")}, NewValue("abc")}},
			want:     testSpec{D: metav1.Duration{Duration: 5e9}, IS: intstr.FromInt32(80), Text: "ABC"}},
		{name: "no field for it", spec: "spec: {s: hi}",
			defaults: []Default{{[]Step{key("spec"), key("nope")}, NewValue("x")}, {[]Step{key("spec"), key("s"), key("deeper")}, NewValue("x")}},
			want:     testSpec{S: "hi"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := parseOne(t, testHeader+tc.spec)
			o.SetDefaults(NewDefaults(tc.defaults))
			var got testObject
			unknown, errs := o.DecodeAll(&got)
			if len(unknown) > 0 || len(errs) > 0 {
				t.Fatalf("unknown %v, errors %v", unknown, errs)
			}
			if diff := cmp.Diff(tc.want, got.Spec, cmp.AllowUnexported(testSpec{})); diff != "" {
				t.Errorf("DecodeAll (-want +got):\n%s", diff)
			}
			var viaDecode testObject
			if err := o.Decode(&viaDecode); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, viaDecode.Spec, cmp.AllowUnexported(testSpec{})); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
			var spec testSpec
			if err := o.DecodeField("spec", &spec); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, spec, cmp.AllowUnexported(testSpec{})); diff != "" {
				t.Errorf("DecodeField(spec) (-want +got):\n%s", diff)
			}
			for _, d := range tc.defaults {
				if o.Has(pathString(d.Path)) && o.Lookup(pathString(d.Path)).ShortTag() != "!!null" {
					t.Errorf("%s: a default is in the tree", pathString(d.Path))
				}
			}
		})
	}
}

func pathString(p []Step) string {
	s := ""
	for _, st := range p {
		if st.Index >= 0 {
			s += "[" + string(rune('0'+st.Index)) + "]"
			continue
		}
		if s != "" {
			s += "."
		}
		s += st.Key
	}
	return s
}

// TestDefaulted: a path at or below a default is the CRD's; one beside
// it, above it or written is not; a later SetDefaults replaces the set.
func TestDefaulted(t *testing.T) {
	o := parseOne(t, testHeader+"spec: {inners: [{x: 1}, {x: 2}]}")
	if o.Defaulted("spec.inners[0].y") || o.Defaults() != nil {
		t.Fatal("no defaults recorded, yet one is reported")
	}
	o.SetDefaults(NewDefaults([]Default{{[]Step{key("spec"), key("inners"), at(1), key("inner")}, NewValue(map[string]any{"y": "d"})}}))
	for path, want := range map[string]bool{
		"spec.inners[1].inner": true, "spec.inners[1].inner.y": true,
		"spec.inners[0].inner": false, "spec.inners[1]": false, "spec.inners[1].x": false, "spec": false,
	} {
		if got := o.Defaulted(path); got != want {
			t.Errorf("Defaulted(%s) = %v, want %v", path, got, want)
		}
	}
	first := o.Defaults()
	o.SetDefaults(nil)
	if o.Defaults() != nil || first == nil || o.Defaulted("spec.inners[1].inner") {
		t.Errorf("SetDefaults(nil) kept %v", o.Defaults())
	}
}

// TestFoldedKeyKeepsItsValue: a key written in another case, which
// DecodeFieldAllFolded reads as the field's, is not replaced by the
// field's default (the schema stage records one, as the API server
// prunes the key).
func TestFoldedKeyKeepsItsValue(t *testing.T) {
	o := parseOne(t, testHeader+"spec: {S: written, inners: [{X: 2}, {}]}")
	o.SetDefaults(NewDefaults([]Default{
		{[]Step{key("spec"), key("s")}, NewValue("default")},
		{[]Step{key("spec"), key("inners"), at(0), key("x")}, NewValue(int64(1))},
		{[]Step{key("spec"), key("inners"), at(1), key("x")}, NewValue(int64(1))},
	}))
	var spec testSpec
	if _, _, errs := o.DecodeFieldAllFolded("spec", &spec); len(errs) > 0 {
		t.Fatal(errs)
	}
	want := testSpec{S: "written", Inners: []inner{{X: 2}, {X: 1}}}
	if diff := cmp.Diff(want, spec, cmp.AllowUnexported(testSpec{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestDefaultsRoundTrip: the compact form gives back every path and value
// in order, whatever they share with the one before.
func TestDefaultsRoundTrip(t *testing.T) {
	long := Step{Key: string(make([]byte, 300)), Index: -1}
	in := []Default{
		{[]Step{key("spec"), key("parentRefs"), at(0), key("group")}, NewValue("g")},
		{[]Step{key("spec"), key("parentRefs"), at(0), key("kind")}, NewValue("Gateway")},
		{[]Step{key("spec"), key("rules"), at(200), key("backendRefs"), at(1), key("weight")}, NewValue(int64(1))},
		{[]Step{key("spec"), key("rules"), at(200), key("backendRefs"), at(1), key("weight")}, NewValue(int64(2))},
		{[]Step{key("spec"), long, key("x")}, NewValue(true)},
		{[]Step{key("a")}, NewValue(nil)},
	}
	got := NewDefaults(in).All()
	if len(got) != len(in) {
		t.Fatalf("%d defaults, want %d", len(got), len(in))
	}
	for i := range in {
		if diff := cmp.Diff(in[i].Path, got[i].Path); diff != "" || got[i].Value.Interface() != in[i].Value.Interface() {
			t.Errorf("%d: path (-want +got):\n%s value %v, want %v", i, diff, got[i].Value.Interface(), in[i].Value.Interface())
		}
	}
	if NewDefaults(nil) != nil || NewDefaults(nil).Len() != 0 {
		t.Error("no defaults: want nil")
	}
}
