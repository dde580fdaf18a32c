//go:build linux

package cli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gwpol/gwpol/internal/benchgen"
)

// BenchmarkScale is the scaling curve as users meet it: `gwpol render -o
// json` and `gwpol lint -o json`, each run in a fresh process writing to
// the null device, beside the
// one-decoder floor (internal/benchgen/floor -sequential: the input only
// decoded into position-carrying YAML nodes), on generated platforms of
// both flavours at 1k, 10k and 30k routes (30k skipped with -short).
// Per size it reports wall ns/route, CPU (user+system) ns/route — steadier
// than wall on a shared machine — and the largest peak RSS of the runs, in
// MB and bytes per route. docs/performance.md holds a measured curve.
//
//	go test ./internal/cli -run XXX -bench Scale -benchtime 3x
func BenchmarkScale(b *testing.B) {
	floor := floorBinary(b)
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	for _, fl := range benchgen.Flavours {
		for _, n := range benchSizes() {
			path := filepath.Join(b.TempDir(), "platform.yaml")
			if err := os.WriteFile(path, fl.Platform(n), 0o644); err != nil {
				b.Fatal(err)
			}
			for _, c := range []struct {
				name string
				argv []string
			}{
				{"floor", []string{floor, "-sequential", path}},
				{"render", []string{gwpolBin, "render", "-f", path, "-o", "json", "--target", fl.Target}},
				{"lint", []string{gwpolBin, "lint", "-f", path, "-o", "json", "--target", fl.Target}},
			} {
				b.Run(fmt.Sprintf("%s/%s/routes=%d", fl.Target, c.name, n), func(b *testing.B) {
					var cpu time.Duration
					var peak int64
					for b.Loop() {
						cmd := exec.Command(c.argv[0], c.argv[1:]...)
						// The output goes to the null device, as in the
						// single runs (`>/dev/null`): an io.Writer here
						// is a pipe this process drains, and under the
						// kgateway target the output is G×S clusters
						// (3.8 GB at 30k routes), whose reading took
						// 1.0–1.2 CPU s of this process a 30k run on the
						// two cores gwpol runs on (docs/performance.md,
						// perf34).
						cmd.Stdout, cmd.Stderr = devNull, io.Discard
						if err := cmd.Run(); err != nil {
							b.Fatalf("%v: %v", c.argv, err)
						}
						ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
						if !ok {
							b.Fatal("no resource usage for the process")
						}
						cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
						peak = max(peak, ru.Maxrss<<10) // kilobytes on Linux
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/route")
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/route")
					b.ReportMetric(float64(peak)/float64(n), "peakRSS-B/route")
					b.ReportMetric(float64(peak)/(1<<20), "peakRSS-MB")
				})
			}
		}
	}
}

var (
	floorOnce sync.Once
	floorBin  string
	floorErr  error
)

// floorBinary builds the floor tool once, next to gwpolBin.
func floorBinary(b *testing.B) string {
	floorOnce.Do(func() {
		floorBin = filepath.Join(filepath.Dir(gwpolBin), "floor")
		out, err := exec.Command("go", "build", "-o", floorBin, "../benchgen/floor").CombinedOutput()
		if err != nil {
			floorErr = fmt.Errorf("building the floor tool: %v\n%s", err, out)
		}
	})
	if floorErr != nil {
		b.Fatal(floorErr)
	}
	return floorBin
}
