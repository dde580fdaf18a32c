//go:build !unix

package schema

import "time"

// cpuTime is not measured here: benchmarks report 0 cpu-ns.
func cpuTime() time.Duration { return 0 }
