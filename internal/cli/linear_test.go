package cli

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/benchgen"
)

// TestLintWorkIsLinear is render/envoy's TestRenderWorkIsLinear for
// `gwpol lint` as users run it (in process): four times the routes may
// allocate at most linearGrowth times as often. It counts allocations,
// not time, so a loaded machine does not change it; a rule or check that
// rescans the input for every route shows as growth well past linear.
func TestLintWorkIsLinear(t *testing.T) {
	const small, large, linearGrowth = 200, 800, 4 * 1.3
	for _, tc := range benchgen.Flavours {
		t.Run(tc.Target, func(t *testing.T) {
			dir := t.TempDir()
			lint := func(n int) uint64 {
				path := filepath.Join(dir, tc.Target+".yaml")
				if err := os.WriteFile(path, tc.Platform(n), 0o600); err != nil {
					t.Fatal(err)
				}
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				ios := &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
				if code := Main([]string{"lint", "-f", path, "-o", "json", "--target", tc.Target}, ios); code != ExitOK {
					t.Fatalf("lint of %d routes: exit code %d", n, code)
				}
				runtime.ReadMemStats(&after)
				return after.Mallocs - before.Mallocs
			}
			lint(small) // what is built once per process
			a, b := lint(small), lint(large)
			growth := float64(b) / float64(a)
			t.Logf("%s: %d allocations at %d routes, %d at %d: ×%.2f", tc.Target, a, small, b, large, growth)
			if growth > linearGrowth {
				t.Errorf("linting %d routes allocates ×%.2f as often as %d routes, more than ×%.1f: some work grows faster than the routes (profile BenchmarkLintCommand)", large, growth, small, linearGrowth)
			}
		})
	}
}
