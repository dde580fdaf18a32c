package wso2

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy/policytest"
)

var fuzzSeeds = []string{"../../../testdata/wso2/*/*.yaml", "../../../testdata/render/apipolicy/*/input.yaml", "../../../testdata/explain/restapi-*/input.yaml"}

// FuzzDecodeAPIPolicy: any APIPolicy document decodes to a policy or to
// findings at positions, never a panic.
func FuzzDecodeAPIPolicy(f *testing.F) {
	policytest.AddSeeds(f, fuzzSeeds...)
	policytest.FuzzDecode(f, New(nil, nil).APIPolicy())
}

// FuzzDecodeRestAPI is FuzzDecodeAPIPolicy for RestApi.
func FuzzDecodeRestAPI(f *testing.F) {
	policytest.AddSeeds(f, fuzzSeeds...)
	policytest.FuzzDecode(f, New(nil, nil).RestAPI())
}
