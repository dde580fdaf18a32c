package kgateway_test

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy/kgateway"
	"github.com/gwpol/gwpol/internal/policy/policytest"
)

// TestFieldsHaveFixtures: every TrafficPolicy and ListenerPolicy field has a
// one-feature render fixture (checked by internal/cli's
// TestFeatureFixtures), found by its spec path.
func TestFieldsHaveFixtures(t *testing.T) {
	policytest.FixturesCover(t, kgateway.New(), "../../../testdata/render/trafficpolicy", "")
	policytest.FixturesCover(t, kgateway.NewListenerPolicy(), "../../../testdata/render/listenerpolicy", "default.")
}
