package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls f(i) for every i in [0, n) on up to GOMAXPROCS goroutines and
// returns when all calls have. Callers write results by index, so output
// order never depends on scheduling.
func Each(n int, f func(i int)) {
	Chunks(n, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			f(i)
		}
	})
}

// Chunks calls f(lo, hi) over consecutive ranges of at most size indices
// covering [0, n), on up to GOMAXPROCS goroutines. Workers take the next
// range from a shared counter, so uneven pieces still balance.
func Chunks(n, size int, f func(lo, hi int)) {
	size = max(size, 1)
	chunks := (n + size - 1) / size
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 {
		if n > 0 {
			f(0, n)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			f(c*size, min((c+1)*size, n))
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}
