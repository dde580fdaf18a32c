package wso2

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy/policytest"
)

// TestFeatureFixtures: APIPolicy's chain has one-feature render fixtures
// (checked by internal/cli's TestFeatureFixtures).
func TestFeatureFixtures(t *testing.T) {
	policytest.FixturesCover(t, New(nil, nil).APIPolicy(), "../../../testdata/render/apipolicy", "")
}
