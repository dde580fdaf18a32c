package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// A run's memory follows its input: the heap a compiled input keeps is
// about 13–16 bytes per byte of YAML read (typed objects, topology, merge
// result, the text kept for findings' positions). memoryBudget caps the
// heap with a soft memory limit derived from the input: a fixed part and
// a part per input byte, which keeps a 30k-route run within 30 KiB per
// route (docs/performance.md gives the measurements).
//
// Under the cap, the collector's target is memGCPercent, not Go's
// default of 100: the budget is what bounds the heap, so the target need
// not bound it too, and a collection while the heap is well under the
// budget only spends CPU. With the target at 200 the heap grows to three
// times what the last collection found live before the next one, or to
// the budget, whichever comes first: a 10k-route run collects 8–9 times
// instead of 12 and spends about a tenth less CPU, and its peak nears the
// budget (docs/performance.md, "…(perf29)"); at 30k routes the budget
// binds either way.
//
// A soft limit at or below the live heap makes the collector run back to
// back (what a fixed 768 MiB limit once did past ~15k routes). The
// budget therefore never stays below memHeadroom times the heap the last
// collection found live (memoryGuard): the collector then runs at most as
// often as it would with GOGC=(memHeadroom-1)×100, whatever the input's
// shape. GOGC or GOMEMLIMIT set in the environment turn the budget, and
// its target, off.
const (
	memFixed     = 368 << 20 // bytes of budget whatever the input
	memPerByte   = 13        // bytes of budget per input byte
	memHeadroom  = 1.5       // the budget's floor, in live heaps
	memGCPercent = 200       // the collector's target under the budget
)

var budget struct {
	sync.Mutex
	input   int64 // bytes of input read by this process
	limit   int64 // the limit set from the input alone
	guarded bool
}

// memoryBudget adds n bytes of input to the process's budget and sets
// the soft memory limit from it; own is false for streams that are not
// the process's (tests running the CLI in process), where it does
// nothing.
func memoryBudget(own bool, n int64) {
	if !own || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	budget.Lock()
	defer budget.Unlock()
	budget.input += n
	budget.limit = memFixed + memPerByte*budget.input
	debug.SetMemoryLimit(budgetLimit(budget.limit, liveHeap()))
	if !budget.guarded {
		budget.guarded = true
		debug.SetGCPercent(memGCPercent)
		armGuard()
	}
}

// budgetLimit is the soft memory limit for a budget of fromInput bytes
// when the last collection found live bytes live: never below
// memHeadroom live heaps.
func budgetLimit(fromInput int64, live uint64) int64 {
	return max(fromInput, int64(float64(live)*memHeadroom))
}

// liveHeap is the heap the last collection found live (0 before any).
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// memoryGuard runs after every collection (a finalizer on an object
// nothing references runs once the collection that found it dead ends,
// and sets itself on a new one) and raises the limit to its floor when
// the live heap has grown past the budget's reach.
type memoryGuard struct{ _ byte } // not zero-sized: such objects get no finalizer

func armGuard() {
	runtime.SetFinalizer(&memoryGuard{}, func(*memoryGuard) {
		budget.Lock()
		debug.SetMemoryLimit(budgetLimit(budget.limit, liveHeap()))
		budget.Unlock()
		armGuard()
	})
}
