package trafficpolicy_test

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy/policytest"
	"github.com/gwpol/gwpol/internal/policy/trafficpolicy"
)

// TestFieldsHaveFixtures: every TrafficPolicy and ListenerPolicy field has a
// one-feature render fixture (checked by internal/cli's
// TestFeatureFixtures), found by its spec path.
func TestFieldsHaveFixtures(t *testing.T) {
	policytest.FixturesCover(t, trafficpolicy.New(), "../../../testdata/render/trafficpolicy", "")
	policytest.FixturesCover(t, trafficpolicy.NewListenerPolicy(), "../../../testdata/render/listenerpolicy", "default.")
}
