package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gwpol/gwpol/internal/lint"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/status"
)

// FuzzPipeline feeds arbitrary documents through every stage and view:
// a malformed manifest may fail to load, but once loaded nothing may panic.
func FuzzPipeline(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/examples/*.yaml")
	more, _ := filepath.Glob("../../testdata/lint/*.yaml")
	for _, p := range append(seeds, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	cfg := &Config{Namespace: "default", ReferenceGrantMode: "Strict", ValidationMode: "Strict"}
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := manifest.Parse("fuzz.yaml", data, manifest.Limits{MaxDepth: 32, MaxAliasNodes: 1000})
		if err != nil {
			return
		}
		c := pipeline.Compile(&manifest.Set{Objects: objs}, cfg)
		status.Compute(c.Result, status.Options{})
		lint.Run(&lint.Input{Result: c.Result, Stage: c.Diagnostics()}, lint.Config{})
		for _, target := range []string{"envoy", "kgateway"} {
			out, err := envoy.Render(c.Result, envoy.Options{Target: target})
			if err != nil {
				continue
			}
			if _, err := out.Marshal("json", envoy.TypeAll); err != nil {
				t.Fatalf("marshal: %v", err)
			}
		}
	})
}
