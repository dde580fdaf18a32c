package envoy_test

import (
	"io"
	"runtime"
	"testing"

	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestRenderWorkIsLinear holds render's work linear in the routes: four
// times the routes may allocate at most linearGrowth times as often. It
// counts allocations, not time, so it is the same on a loaded machine;
// work done per route for every policy or object of the input (a check
// that rescans the whole input for each backendRef) shows as growth well
// past linear already at these small sizes.
func TestRenderWorkIsLinear(t *testing.T) {
	const small, large, linearGrowth = 200, 800, 4 * 1.3
	for _, tc := range benchgen.Flavours {
		t.Run(tc.Target, func(t *testing.T) {
			renderAllocs(t, tc.Platform(small), tc.Target) // what is built once per process
			a := renderAllocs(t, tc.Platform(small), tc.Target)
			b := renderAllocs(t, tc.Platform(large), tc.Target)
			growth := float64(b) / float64(a)
			t.Logf("%s: %d allocations at %d routes, %d at %d: ×%.2f", tc.Target, a, small, b, large, growth)
			if growth > linearGrowth {
				t.Errorf("rendering %d routes allocates ×%.2f as often as %d routes, more than ×%.1f: some work grows faster than the routes (profile BenchmarkRender)", large, growth, small, linearGrowth)
			}
		})
	}
}

// renderAllocs counts the allocations of parsing, compiling, rendering
// and writing data as JSON.
func renderAllocs(t *testing.T, data []byte, target string) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	objs, err := manifest.Parse("platform.yaml", data, manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	res := compile(t, &manifest.Set{Objects: objs}, policy.Config{}.WithSetting("referenceGrantMode", "Strict"))
	if err := render(t, res, envoy.Options{Target: target}).WriteJSON(io.Discard, envoy.TypeAll); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}
