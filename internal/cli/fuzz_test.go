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
	// The Envoy Gateway fixtures, each over the platform they attach to.
	base, _ := os.ReadFile("../../testdata/base/platform.yaml")
	egFixtures, _ := filepath.Glob("../../testdata/render/backendtrafficpolicy/*/input.yaml")
	egExamples, _ := filepath.Glob("../../testdata/examples-envoygateway/*.yaml")
	for _, p := range egFixtures {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(append(append(append([]byte{}, base...), "\n---\n"...), b...))
		}
	}
	var examples []byte
	for _, p := range egExamples {
		if b, err := os.ReadFile(p); err == nil {
			examples = append(append(examples, b...), "\n---\n"...)
		}
	}
	f.Add(examples)
	cfg := &Config{Namespace: "default", ReferenceGrantMode: "Strict", ValidationMode: "Strict"}
	// A rate limit service, so that global rate limits render.
	cfg.EnvoyGateway.RateLimit.Enabled = true
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := manifest.Parse("fuzz.yaml", data, manifest.Limits{MaxDepth: 32, MaxAliasNodes: 1000})
		if err != nil {
			return
		}
		c := pipeline.Compile(&manifest.Set{Objects: objs}, cfg)
		status.Compute(c.Result, status.Options{})
		lint.Run(&lint.Input{Result: c.Result, Stage: c.Diagnostics()}, lint.Config{})
		for _, target := range []string{"envoy", "kgateway", "envoygateway"} {
			out, err := envoy.Render(c.Result, envoy.Options{Target: target, Config: cfg.PolicyConfig()})
			if err != nil {
				continue
			}
			if _, err := out.Marshal("json", envoy.TypeAll); err != nil {
				t.Fatalf("marshal: %v", err)
			}
		}
	})
}
