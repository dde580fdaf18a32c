package parallel

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 100} {
		seen := make([]int32, n)
		var calls atomic.Int32
		Each(n, func(i int) {
			atomic.AddInt32(&seen[i], 1)
			calls.Add(1)
		})
		if int(calls.Load()) != n {
			t.Fatalf("n=%d: %d calls", n, calls.Load())
		}
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: index %d called %d times", n, i, c)
			}
		}
	}
}

func TestChunksCoverEveryIndexOnce(t *testing.T) {
	for _, tc := range []struct{ n, size int }{{0, 4}, {1, 4}, {7, 3}, {100, 1}, {100, 0}, {5, 100}} {
		seen := make([]int32, tc.n)
		Chunks(tc.n, tc.size, func(lo, hi int) {
			if hi-lo > max(tc.size, 1) || lo >= hi {
				t.Errorf("n=%d size=%d: range [%d,%d)", tc.n, tc.size, lo, hi)
			}
			for i := lo; i < hi; i++ {
				atomic.AddInt32(&seen[i], 1)
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d size=%d: index %d called %d times", tc.n, tc.size, i, c)
			}
		}
	}
}

func TestGoWaitsForF(t *testing.T) {
	var ran atomic.Bool
	wait := Go(func() { ran.Store(true) })
	wait()
	if !ran.Load() {
		t.Fatal("wait returned before f ran")
	}
}

func TestGoRaisesFsPanicOnWait(t *testing.T) {
	wait := Go(func() { panic("boom") })
	defer func() {
		r := recover()
		s, ok := r.(string)
		if !ok || !strings.HasPrefix(s, "boom\n") || !strings.Contains(s, "goroutine") {
			t.Fatalf("wait raised %v, want f's panic with its stack", r)
		}
	}()
	wait()
	t.Fatal("wait returned after f panicked")
}

func TestChunksRaiseAWorkersPanicOnTheCaller(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	for _, bad := range []int{0, 1, 63} { // the caller's own range, a worker's, the last
		var ran atomic.Int32
		func() {
			defer func() {
				r := recover()
				s, ok := r.(string)
				if !ok || !strings.HasPrefix(s, fmt.Sprintf("boom %d\n", bad)) || !strings.Contains(s, "goroutine") {
					t.Fatalf("bad=%d: Chunks raised %v, want the worker's panic with its stack", bad, r)
				}
			}()
			Each(64, func(i int) {
				ran.Add(1)
				if i == bad {
					panic(fmt.Sprintf("boom %d", i))
				}
			})
			t.Fatalf("bad=%d: Each returned after f panicked", bad)
		}()
		if n := ran.Load(); n < 1 || n > 64 {
			t.Fatalf("bad=%d: f ran %d times", bad, n)
		}
	}
}
