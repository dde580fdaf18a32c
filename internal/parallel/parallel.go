package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
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

// Go calls f on a goroutine of its own and returns what waits for it. A
// panic in f is raised again by wait, on the caller's goroutine (with
// f's stack in its value, which raising it again loses), so a caller's
// recover handles it as if f had run there.
func Go(f func()) (wait func()) {
	var p any
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				p = fmt.Sprintf("%v\n%s", r, debug.Stack())
			}
		}()
		f()
	}()
	return func() {
		<-done
		if p != nil {
			panic(p)
		}
	}
}
