package parallel

import (
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
