package haptic

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy/policytest"
)

// FuzzDecode: any HAProxyRoutePolicy document decodes to a policy or to
// findings at positions, never a panic.
func FuzzDecode(f *testing.F) {
	policytest.AddSeeds(f, "../../../testdata/haptic/*/input.yaml", "../../../testdata/render/haproxyroutepolicy/*/input.yaml", "../../../testdata/examples/70-haproxy.yaml")
	policytest.FuzzDecode(f, New())
}
