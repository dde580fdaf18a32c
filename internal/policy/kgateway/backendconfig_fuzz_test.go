package kgateway

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy/policytest"
)

// FuzzDecodeBackendConfigPolicy: any BackendConfigPolicy document decodes
// to a policy or to findings at positions, never a panic. kgateway's own
// cases seed it when the shared conformance sets sit beside the project.
func FuzzDecodeBackendConfigPolicy(f *testing.F) {
	policytest.AddSeeds(f, "../../../testdata/examples/45-backends.yaml", "../../../../shared/conformance/kgateway/more/backendconfigpolicy*/input.yaml")
	f.Add([]byte("apiVersion: gateway.kgateway.dev/v1alpha1\nkind: BackendConfigPolicy\nmetadata: {name: bcp, namespace: shop}\nspec:\n  targetRefs: [{group: '', kind: Service, name: cart}]\n  connectTimeout: 5s\n  perConnectionBufferLimitBytes: 1024\n  loadBalancer: {leastRequest: {choiceCount: 3}}\n  healthCheck: {timeout: 1s, interval: 5s, unhealthyThreshold: 3, healthyThreshold: 2, http: {path: /healthz}}\n  outlierDetection: {consecutive5xx: 5, interval: 10s}\n"))
	policytest.FuzzDecode(f, NewBackendConfigPolicy())
}
