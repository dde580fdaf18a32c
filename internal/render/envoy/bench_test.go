package envoy_test

import (
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/topology"
)

// sizes are the platform sizes benchmarked: 30k routes only without
// -short.
func sizes() []int {
	if testing.Short() {
		return []int{1000, 10000}
	}
	return []int{1000, 10000, 30000}
}

// BenchmarkRender is `gwpol render -o json` minus file reading and the
// CLI's runtime settings: decode, model, topology, policies, attach,
// merge, xDS build with validation, and JSON output streamed as the CLI
// streams it. Compare with BenchmarkDecodeFloor at the same size (and
// internal/cli's BenchmarkRenderCommand with BenchmarkNodeFloor).
func BenchmarkRender(b *testing.B) { benchRender(b, benchgen.Platform, "kgateway") }

// BenchmarkRenderEnvoyGateway is BenchmarkRender on the Envoy Gateway
// flavour of the platform (BackendTrafficPolicies at gateway, listener,
// route and rule level, placed on each route) with --target envoygateway.
func BenchmarkRenderEnvoyGateway(b *testing.B) {
	benchRender(b, benchgen.PlatformEnvoyGateway, "envoygateway")
}

// benchRender renders the generated platform of each size for target.
func benchRender(b *testing.B, platform func(int) []byte, target string) {
	for _, n := range sizes() {
		data := platform(n)
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				objs, err := manifest.Parse("bench.yaml", data, manifest.Limits{})
				if err != nil {
					b.Fatal(err)
				}
				res := compile(b, &manifest.Set{Objects: objs}, policy.Config{}.WithSetting("referenceGrantMode", "Strict"))
				out := render(b, res, envoy.Options{Target: target})
				if err := out.WriteJSON(io.Discard, envoy.TypeAll); err != nil {
					b.Fatal(err)
				}
			}
			reportPerRoute(b, n)
		})
	}
}

// BenchmarkDecodeFloor only decodes the same input into position-carrying
// YAML nodes: the floor render is measured against.
func BenchmarkDecodeFloor(b *testing.B) {
	for _, n := range sizes() {
		data := benchgen.Platform(n)
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := manifest.Parse("bench.yaml", data, manifest.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
			reportPerRoute(b, n)
		})
	}
}

func reportPerRoute(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/route")
}

// BenchmarkMarshal is only the JSON output of an already rendered
// platform, streamed as the CLI streams it.
func BenchmarkMarshal(b *testing.B) {
	for _, n := range sizes() {
		objs, err := manifest.Parse("bench.yaml", benchgen.Platform(n), manifest.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		out := render(b, compile(b, &manifest.Set{Objects: objs}, policy.Config{}.WithSetting("referenceGrantMode", "Strict")), envoy.Options{Target: "kgateway"})
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := out.WriteJSON(io.Discard, envoy.TypeAll); err != nil {
					b.Fatal(err)
				}
			}
			reportPerRoute(b, n)
		})
	}
}

// BenchmarkBuild is only the xDS build (with validation) of an already
// compiled platform.
func BenchmarkBuild(b *testing.B) {
	for _, n := range sizes() {
		objs, err := manifest.Parse("bench.yaml", benchgen.Platform(n), manifest.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		res := compile(b, &manifest.Set{Objects: objs}, policy.Config{}.WithSetting("referenceGrantMode", "Strict"))
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				render(b, res, envoy.Options{Target: "kgateway"})
			}
			reportPerRoute(b, n)
		})
	}
}

// BenchmarkStages splits BenchmarkRender by stage, reported as ms/op
// metrics per stage, to show where the time after decoding goes.
func BenchmarkStages(b *testing.B) {
	for _, n := range sizes() {
		data := benchgen.Platform(n)
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			stages := map[string]time.Duration{}
			for b.Loop() {
				t0 := time.Now()
				lap := func(stage string) {
					stages[stage] += time.Since(t0)
					t0 = time.Now()
				}
				objs, err := manifest.Parse("bench.yaml", data, manifest.Limits{})
				if err != nil {
					b.Fatal(err)
				}
				lap("parse")
				cfg := policy.Config{}.WithSetting("referenceGrantMode", "Strict")
				reg := envoy.Registry()
				m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: reg.GroupKinds(), ListLimits: reg.ListBounds(), Enums: reg.Enums(), Wildcards: reg.Wildcards()})
				lap("model")
				g := topology.Build(m, reg.TopologyOptions(cfg, ""))
				pols := reg.Decode(&policy.Env{Model: m, Config: cfg})
				res := merge.Compute(g, reg, pols, attach.Attach(g, reg, pols, cfg), cfg)
				lap("topology-to-merge")
				out := render(b, res, envoy.Options{Target: "kgateway"})
				lap("build")
				if err := out.WriteJSON(io.Discard, envoy.TypeAll); err != nil {
					b.Fatal(err)
				}
				lap("json")
			}
			for stage, d := range stages {
				b.ReportMetric(float64(d.Milliseconds())/float64(b.N), stage+"-ms/op")
			}
		})
	}
}
