package haptic_test

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy/haptic"
	"github.com/gwpol/gwpol/internal/policy/policytest"
)

// TestFieldsHaveFixtures: every HAProxyRoutePolicy feature has a one-feature
// render fixture (checked by internal/cli's TestFeatureFixtures).
func TestFieldsHaveFixtures(t *testing.T) {
	policytest.FixturesCover(t, haptic.New(), "../../../testdata/render/haproxyroutepolicy", "")
}
