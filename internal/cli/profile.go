package cli

import (
	"os"
	"runtime/pprof"

	"github.com/gwpol/gwpol/internal/diag"
)

// startProfiles starts a CPU profile into cpuFile and arranges a heap
// profile into memFile (either "" for none). The returned function stops
// the CPU profile and writes the heap profile; it is nil when neither was
// asked for. The heap profile is written without a collection first: its
// in-use figures are those of the last collection of the run, near the
// peak, and its allocation figures cover the whole run.
func startProfiles(cpuFile, memFile string) (func() error, error) {
	if cpuFile == "" && memFile == "" {
		return nil, nil
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
