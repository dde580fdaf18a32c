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
// range from a shared counter, so uneven pieces still balance. A panic in
// f stops the workers taking more ranges and is raised again on the
// caller's goroutine once they have all returned (with the panicking
// worker's stack in its value), so the CLI's recover reports it as an
// internal error instead of the process dying from a worker.
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
	var (
		next  atomic.Int64
		first sync.Once
		p     any
	)
	work := func() {
		defer func() {
			if r := recover(); r != nil {
				next.Store(int64(chunks)) // no worker starts another range
				first.Do(func() { p = withStack(r) })
			}
		}()
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
	if p != nil {
		panic(p)
	}
}

// withStack is a recovered panic value with the stack of the goroutine
// that panicked, which raising it again on another goroutine would lose.
func withStack(r any) string {
	return fmt.Sprintf("%v\n%s", r, debug.Stack())
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
				p = withStack(r)
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
