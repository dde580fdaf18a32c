package envoy

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/xdsjson/xdsjsontest"
)

// TestWriterMatchesProtojsonOnRenders checks the writer against protojson
// on every resource rendered from the repository's fixtures, for both
// targets.
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
					xdsjsontest.AssertSameAsProtojson(t, dir+" "+l.Name, l)
					n++
				}
				for _, rc := range g.RouteConfigurations {
					xdsjsontest.AssertSameAsProtojson(t, dir+" "+rc.Name, rc)
					n++
				}
				for _, c := range g.Clusters {
					xdsjsontest.AssertSameAsProtojson(t, dir+" "+c.Name, c)
					n++
				}
				if bs, err := g.Bootstrap(); err == nil {
					xdsjsontest.AssertSameAsProtojson(t, dir+" bootstrap", bs)
				}
			}
		}
	}
	if n < 150 {
		t.Fatalf("only %d resources compared; fixtures missing?", n)
	}
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
