// Command serialtime reads execution traces of gwpol runs (the hidden
// --trace flag) and says how much of each run had one core's worth of
// work: the time when at most one goroutine ran and none waited to run
// (a run's serial stretches, which cost twice their CPU on two cores), by
// trace region (the stages pipeline.Compile marks, then render or lint),
// with the gwpol functions on the stacks of the CPU samples taken then
// when the trace was taken with --cpuprofile as well. Time when a
// goroutine waited to run is counted apart: on a loaded machine it is
// the scheduler's, not the program's. The serial CPU (samples taken in
// those stretches, 10 ms each) moves less with the machine's load than
// the serial time does.
//
//	gwpol render -f /tmp/eg-10k.yaml -o json --trace r1.trace --cpuprofile r1.prof >/dev/null
//	go run ./internal/benchgen/serialtime r1.trace r2.trace r3.trace
//	go run ./internal/benchgen/serialtime -bucket 10ms r1.trace   # goroutines running, per 10 ms
//
// It is a measuring tool, no stage of the pipeline: it imports nothing of
// gwpol's.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/exp/trace"
)

// tally is what the traces read add up to.
type tally struct {
	traces             int
	wall, serial, wait time.Duration
	regionSerial       map[string]time.Duration
	regionSamples      map[string]int
	samples            int
	inner, cumulative  map[string]int
}

func main() {
	n := flag.Int("n", 30, "functions listed")
	bucket := flag.Duration("bucket", 0, "also print, per bucket of this length, the goroutines running on average and the region")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: serialtime [-n N] [-bucket D] TRACE...")
		os.Exit(2)
	}
	t := &tally{regionSerial: map[string]time.Duration{}, regionSamples: map[string]int{}, inner: map[string]int{}, cumulative: map[string]int{}}
	for _, path := range flag.Args() {
		if err := t.read(path, *bucket); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
			os.Exit(1)
		}
	}
	t.print(*n)
}

// read adds one trace to the tally.
func (t *tally) read(path string, bucket time.Duration) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		return err
	}
	running, runnable := map[trace.GoID]bool{}, map[trace.GoID]bool{}
	var first, last trace.Time
	var regions []string
	var occupancy []float64
	var occupancyRegion []string
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		now := ev.Time()
		if first == 0 {
			first, last = now, now
		}
		region := "-"
		if len(regions) > 0 {
			region = regions[len(regions)-1]
		}
		span := time.Duration(now - last)
		if bucket > 0 {
			for at := last; at < now; {
				b := int(time.Duration(at-first) / bucket)
				end := min(first+trace.Time(time.Duration(b+1)*bucket), now)
				for len(occupancy) <= b {
					occupancy = append(occupancy, 0)
					occupancyRegion = append(occupancyRegion, region)
				}
				occupancy[b] += float64(len(running)) * float64(end-at)
				at = end
			}
		}
		if len(running) <= 1 {
			if len(runnable) == 0 {
				t.serial += span
				t.regionSerial[region] += span
			} else {
				t.wait += span
			}
		}
		last = now
		switch ev.Kind() {
		case trace.EventRegionBegin:
			regions = append(regions, ev.Region().Type)
		case trace.EventRegionEnd:
			if len(regions) > 0 {
				regions = regions[:len(regions)-1]
			}
		case trace.EventStateTransition:
			st := ev.StateTransition()
			if st.Resource.Kind != trace.ResourceGoroutine {
				continue
			}
			id := st.Resource.Goroutine()
			_, to := st.Goroutine()
			setIf(runnable, id, to == trace.GoRunnable)
			setIf(running, id, to == trace.GoRunning)
		case trace.EventStackSample:
			if len(running) > 1 || len(runnable) > 0 {
				continue
			}
			t.samples++
			t.regionSamples[region]++
			seen := map[string]bool{}
			inner := ""
			for fr := range ev.Stack().Frames() {
				fn, ok := strings.CutPrefix(fr.Func, "github.com/gwpol/gwpol/internal/")
				if !ok || seen[fn] {
					continue
				}
				seen[fn] = true
				if inner == "" {
					inner = fn
				}
				t.cumulative[fn]++
			}
			t.inner[inner]++
		}
	}
	t.traces++
	t.wall += time.Duration(last - first)
	for i, o := range occupancy {
		fmt.Printf("%s %8v %4.2f %s\n", path, time.Duration(i)*bucket, o/float64(bucket), occupancyRegion[i])
	}
	return nil
}

func setIf(m map[trace.GoID]bool, id trace.GoID, in bool) {
	if in {
		m[id] = true
	} else {
		delete(m, id)
	}
}

// print writes the tally, per trace.
func (t *tally) print(n int) {
	per := func(d time.Duration) time.Duration {
		return (d / time.Duration(t.traces)).Round(100 * time.Microsecond)
	}
	cpu := func(samples int) time.Duration {
		return time.Duration(samples) * 10 * time.Millisecond / time.Duration(t.traces)
	}
	fmt.Printf("%d traces; a trace: wall %v, serial %v (%.1f%%), serial CPU %v, one running while another waited %v\n",
		t.traces, per(t.wall), per(t.serial), 100*float64(t.serial)/float64(t.wall), cpu(t.samples), per(t.wait))
	for _, r := range slices.Sorted(maps.Keys(t.regionSerial)) {
		fmt.Printf("  %-16s serial %10v  serial CPU %v\n", r, per(t.regionSerial[r]), cpu(t.regionSamples[r]))
	}
	if t.samples == 0 {
		return
	}
	list := func(title string, m map[string]int) {
		fmt.Println(title)
		keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int { return cmp.Or(m[b]-m[a], strings.Compare(a, b)) })
		for _, k := range keys[:min(n, len(keys))] {
			fmt.Printf("  %5.1f%%  %s\n", 100*float64(m[k])/float64(t.samples), cmp.Or(k, "(no gwpol function)"))
		}
	}
	list("serial CPU samples, innermost gwpol function:", t.inner)
	list("serial CPU samples, gwpol functions on the stack:", t.cumulative)
}
