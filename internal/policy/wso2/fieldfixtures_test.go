package wso2

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy/policytest"
)

// TestFieldsHaveFixtures: APIPolicy's chain has one-feature render fixtures
// (checked by internal/cli's TestFeatureFixtures).
func TestFieldsHaveFixtures(t *testing.T) {
	policytest.FixturesCover(t, New(nil, nil).APIPolicy(), "../../../testdata/render/apipolicy", "")
}
