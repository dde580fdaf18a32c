package envoy

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/xdsjson/xdsjsontest"
)

// TestWriterMatchesProtojsonOnRenders checks the writer against protojson
// on every resource rendered from the repository's fixtures, for every
// target: the generated typed writers (writeTyped) byte for byte against
// the reflective writer they stand in for and both against protojson,
// and the generated Any walks (eachAnyTyped) against reflection's.
func TestWriterMatchesProtojsonOnRenders(t *testing.T) {
	inputs, _ := filepath.Glob("../../../testdata/render/*/input.yaml")
	haptic, _ := filepath.Glob("../../../testdata/haptic/*/input.yaml")
	inputs = append(append(inputs, haptic...), "../../../testdata/examples")
	platform, err := manifest.Parse("platform.yaml", benchgen.Platform(40), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	sets := []*manifest.Set{{Objects: platform}}
	for _, in := range inputs {
		set, err := manifest.Load([]string{in}, manifest.Options{})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		sets = append(sets, set)
	}
	n := 0
	for i, set := range sets {
		dir := "platform"
		if i > 0 {
			dir = inputs[i-1]
		}
		res := compileForTest(set)
		for _, target := range Registry().TargetNames() {
			out, err := Render(res, Options{Target: target})
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			for _, g := range out.Gateways {
				for _, l := range g.Listeners {
					assertTypedSame(t, dir+" "+l.Name, l)
					n++
				}
				for _, rc := range g.RouteConfigurations {
					assertTypedSame(t, dir+" "+rc.Name, rc)
					n++
				}
				for _, c := range g.Clusters {
					assertTypedSame(t, dir+" "+c.Name, c)
					n++
				}
				if bs, err := g.Bootstrap(); err == nil {
					assertTypedSame(t, dir+" bootstrap", bs)
				}
			}
		}
	}
	if n < 150 {
		t.Fatalf("only %d resources compared; fixtures missing?", n)
	}
}

// assertTypedSame holds the generated writers and Any walks to what they
// stand in for on m and on every message packed in an Any below it.
func assertTypedSame(t testing.TB, name string, m proto.Message) {
	t.Helper()
	xdsjsontest.AssertTypedSameAsReflective(t, name, m, writeTyped)
	typed, reflected := anysWalked(t, m, eachAny), anysWalked(t, m, eachAnyReflect)
	if !maps.Equal(typed, reflected) {
		t.Errorf("%s: the generated walk reached %d Anys, reflection %d", name, len(typed), len(reflected))
	}
	for a := range reflected {
		if inner, err := a.UnmarshalNew(); err == nil {
			assertTypedSame(t, name+" "+a.GetTypeUrl(), inner)
		}
	}
}

// anysWalked counts the Anys walk reaches from m, by address (the
// generated walk goes in declaration order, reflection in its own).
func anysWalked(t testing.TB, m proto.Message, walk func(protoreflect.Message, func(*anypb.Any) error) error) map[*anypb.Any]int {
	out := map[*anypb.Any]int{}
	if err := walk(m.ProtoReflect(), func(a *anypb.Any) error { out[a]++; return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func compileForTest(set *manifest.Set) *merge.Result {
	cfg := policy.Config{}.WithSetting("referenceGrantMode", "Strict")
	return Stages(Registry(), set, cfg)
}

// TestStreamedDocumentMatchesResources checks the wave machinery on a
// platform large enough for many waves and for virtual hosts spliced
// into their RouteConfiguration across waves: the streamed document holds
// exactly every resource, in order, as protojson reads it.
func TestStreamedDocumentMatchesResources(t *testing.T) {
	objs, err := manifest.Parse("platform.yaml", benchgen.Platform(600), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Render(compileForTest(&manifest.Set{Objects: objs}), Options{Target: "kgateway"})
	if err != nil {
		t.Fatal(err)
	}
	units := 0
	for _, g := range out.Gateways {
		units += len(g.Listeners) + len(g.Clusters)
		for _, rc := range g.RouteConfigurations {
			units += 1 + len(rc.VirtualHosts)
		}
	}
	if units < 3*unitsPerWave {
		t.Fatalf("%d units make fewer than 3 waves of %d", units, unitsPerWave)
	}
	var streamed bytes.Buffer
	if err := out.WriteJSON(&streamed, TypeAll); err != nil {
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal(streamed.Bytes(), &got); err != nil {
		t.Fatalf("streamed document is not JSON: %v", err)
	}
	asJSON := func(m proto.Message) any {
		raw, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	var gws []any
	for _, g := range out.Gateways {
		var ls, rcs, cs []any
		for _, l := range g.Listeners {
			ls = append(ls, asJSON(l))
		}
		for _, rc := range g.RouteConfigurations {
			rcs = append(rcs, asJSON(rc))
		}
		for _, c := range g.Clusters {
			cs = append(cs, asJSON(c))
		}
		gws = append(gws, map[string]any{
			"gateway":   map[string]any{"namespace": g.Namespace, "name": g.Name},
			"listeners": ls, "routeConfigurations": rcs, "clusters": cs,
		})
	}
	if diff := cmp.Diff(map[string]any{"gateways": gws}, got); diff != "" {
		t.Errorf("streamed document differs from its resources (-want +got):\n%s", diff)
	}
}
