package cli

import (
	"os"
	"os/exec"
	"runtime/debug"
	"testing"
)

// The budget grows with the input and never falls below memHeadroom
// live heaps, so the collector cannot be made to run back to back.
func TestBudgetLimit(t *testing.T) {
	mib := int64(1 << 20)
	input := func(n int64) int64 { return memFixed + memPerByte*n }
	cases := []struct {
		name      string
		fromInput int64
		live      uint64
		want      int64
	}{
		{"no collection yet", input(0), 0, memFixed},
		{"input decides", input(34 * mib), 400 << 20, input(34 * mib)},
		{"live heap past the budget's reach", input(mib), 600 << 20, 900 * mib},
	}
	for _, c := range cases {
		if got := budgetLimit(c.fromInput, c.live); got != c.want {
			t.Errorf("%s: budgetLimit(%d, %d) = %d, want %d", c.name, c.fromInput, c.live, got, c.want)
		}
	}
	if input(2*mib)-input(mib) != memPerByte*mib {
		t.Errorf("the budget does not grow by memPerByte per input byte")
	}
}

// A CLI run inside another program (a test) leaves the process's
// runtime alone: only System's streams are the process's.
func TestOnlyTheProcessSetsItsMemoryBudget(t *testing.T) {
	ios, _, _ := Test("", false)
	if ios.Process {
		t.Fatal("Test streams claim the process")
	}
	if !System().Process {
		t.Fatal("System streams do not claim the process")
	}
	before := budget.input
	memoryBudget(ios.Process, 1<<20)
	if budget.input != before {
		t.Fatalf("a run on Test streams changed the process's budget (%d → %d input bytes)", before, budget.input)
	}
}

// Under the budget the collector's target is memGCPercent: the process's
// budget sets it with the limit, and GOGC in the environment leaves both
// alone. Run in a child process, as the budget is the process's.
func TestBudgetSetsTheCollectorsTarget(t *testing.T) {
	if os.Getenv("GWPOL_BUDGET_CHILD") == "1" {
		memoryBudget(true, 1<<20)
		if got := debug.SetGCPercent(100); got != memGCPercent {
			t.Fatalf("collector target under the budget %d, want %d", got, memGCPercent)
		}
		return
	}
	if os.Getenv("GWPOL_BUDGET_CHILD") == "gogc" {
		memoryBudget(true, 1<<20)
		if got := debug.SetGCPercent(100); got != 100 {
			t.Fatalf("GOGC=100 in the environment, yet the target is %d", got)
		}
		if limit := debug.SetMemoryLimit(-1); limit != 1<<63-1 {
			t.Fatalf("GOGC=100 in the environment, yet a memory limit of %d", limit)
		}
		return
	}
	for _, env := range [][]string{{"GWPOL_BUDGET_CHILD=1", "GOGC=", "GOMEMLIMIT="}, {"GWPOL_BUDGET_CHILD=gogc", "GOGC=100", "GOMEMLIMIT="}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBudgetSetsTheCollectorsTarget$", "-test.count=1")
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%v: %v\n%s", env, err, out)
		}
	}
}
