package cli

import (
	"os"
	"runtime/pprof"
	"runtime/trace"

	"github.com/gwpol/gwpol/internal/diag"
)

// startProfiles starts a CPU profile into cpuFile and an execution trace
// into traceFile, and arranges a heap profile into memFile (each "" for
// none). The returned function stops the CPU profile and the trace and
// writes the heap profile; it is nil when none was asked for. The heap
// profile is written without a collection first: its in-use figures are
// those of the last collection of the run, near the peak, and its
// allocation figures cover the whole run. The trace shows what a CPU
// profile cannot: when a core idles (go tool trace).
func startProfiles(cpuFile, memFile, traceFile string) (func() error, error) {
	if cpuFile == "" && memFile == "" && traceFile == "" {
		return nil, nil
	}
	tr, err := startTrace(traceFile)
	if err != nil {
		return nil, err
	}
	var cpu *os.File
	if cpuFile != "" {
		f, err := os.Create(cpuFile)
		if err != nil {
			return nil, usageError("--cpuprofile: %v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, diag.Errorf(diag.Internal, "--cpuprofile: %v", err)
		}
		cpu = f
	}
	return func() error {
		if tr != nil {
			trace.Stop()
			if err := tr.Close(); err != nil {
				return diag.Errorf(diag.Invalid, "--trace: %v", err)
			}
		}
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				return diag.Errorf(diag.Invalid, "--cpuprofile: %v", err)
			}
		}
		if memFile == "" {
			return nil
		}
		f, err := os.Create(memFile)
		if err != nil {
			return usageError("--memprofile: %v", err)
		}
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			f.Close()
			return diag.Errorf(diag.Invalid, "--memprofile: %v", err)
		}
		return f.Close()
	}, nil
}

// startTrace starts an execution trace into file; nil for "".
func startTrace(file string) (*os.File, error) {
	if file == "" {
		return nil, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, usageError("--trace: %v", err)
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		return nil, diag.Errorf(diag.Internal, "--trace: %v", err)
	}
	return f, nil
}
