package policy

import (
	"sync"
	"testing"
)

// TestEnvMemoBuildsOncePerKey: what a family derives for a whole pass is
// built once per key, whoever asks first, also when asked concurrently.
func TestEnvMemoBuildsOncePerKey(t *testing.T) {
	env := &Env{}
	var mu sync.Mutex
	builds := map[string]int{}
	build := func(k string) func() any {
		return func() any {
			mu.Lock()
			builds[k]++
			mu.Unlock()
			return k + "!"
		}
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := env.Memo("a", build("a")); got != "a!" {
				t.Errorf("Memo(a) = %v", got)
			}
		}()
	}
	wg.Wait()
	if got := env.Memo("b", build("b")); got != "b!" {
		t.Errorf("Memo(b) = %v", got)
	}
	env.Memo("b", build("b"))
	if builds["b"] != 1 {
		t.Errorf("key b built %d times, want once", builds["b"])
	}
	if builds["a"] < 1 {
		t.Errorf("key a never built")
	}
}
