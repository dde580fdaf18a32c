// Package parallel runs independent pieces of one stage's work on every
// core. It sits below the pipeline and imports nothing of gwpol's.
package parallel

import (
	"runtime"
	"sync"
)

// Each calls f(i) for every i in [0, n) on up to GOMAXPROCS goroutines and
// returns when all calls have. Callers write results by index, so output
// order never depends on scheduling.
func Each(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
