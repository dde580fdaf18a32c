package envoy

import (
	"path/filepath"
	"testing"

	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/render/xdsjson/xdsjsontest"
)

func TestYAMLHoldsTheJSONDocument(t *testing.T) {
	inputs := []string{"../../../testdata/examples"}
	for _, g := range []string{"../../../testdata/render/*/input.yaml", "../../../testdata/haptic/*/input.yaml"} {
		more, _ := filepath.Glob(g)
		inputs = append(inputs, more...)
	}
	platform, err := manifest.Parse("platform.yaml", benchgen.Platform(60), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string]*manifest.Set{"platform": {Objects: platform}}
	for _, in := range inputs {
		set, err := manifest.Load([]string{in}, manifest.Options{})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		sets[in] = set
	}
	for name, set := range sets {
		res := compileForTest(set)
		for _, target := range Registry().TargetNames() {
			out, err := Render(res, Options{Target: target})
			if err != nil {
				t.Fatal(err)
			}
			for _, typ := range []ResourceType{TypeAll, TypeListener, TypeRoute, TypeCluster} {
				js, err := out.Marshal("json", typ)
				if err != nil {
					t.Fatal(err)
				}
				ym, err := out.Marshal("yaml", typ)
				if err != nil {
					t.Fatal(err)
				}
				xdsjsontest.SameData(t, name+" "+target+" "+string(typ), js, ym)
			}
			bj, err := out.MarshalBootstraps("json")
			if err != nil {
				t.Fatal(err)
			}
			by, err := out.MarshalBootstraps("yaml")
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Gateways) == 1 {
				xdsjsontest.SameData(t, name+" "+target+" bootstrap", bj, by)
			}
		}
	}
}
