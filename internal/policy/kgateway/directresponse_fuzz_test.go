package kgateway

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy/policytest"
)

// FuzzDecodeDirectResponse: any DirectResponse document decodes to a
// policy or to findings at positions, never a panic. kgateway's own cases
// seed it when the shared conformance sets sit beside the project.
func FuzzDecodeDirectResponse(f *testing.F) {
	policytest.AddSeeds(f, "../../../testdata/examples/45-backends.yaml", "../../../../shared/conformance/kgateway/more/directresponse*/input.yaml")
	f.Add([]byte("apiVersion: gateway.kgateway.dev/v1alpha1\nkind: DirectResponse\nmetadata: {name: dr, namespace: shop}\nspec:\n  status: 200\n  bodyFormat: {text: 'path %REQ(:path)%', contentType: text/plain}\n"))
	policytest.FuzzDecode(f, NewDirectResponse())
}
