package backendtlspolicy

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy/policytest"
)

// FuzzDecodeBackendTLSPolicy: any BackendTLSPolicy document decodes to a
// policy or to findings at positions, never a panic.
func FuzzDecodeBackendTLSPolicy(f *testing.F) {
	policytest.AddSeeds(f, "../../../testdata/examples/45-backends.yaml", "../../../../shared/conformance/kgateway/more/backendtlspolicy*/input.yaml")
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: tls, namespace: shop}\nspec:\n  targetRefs: [{group: '', kind: Service, name: cart, sectionName: https}]\n  validation:\n    hostname: cart.shop.svc\n    caCertificateRefs: [{group: '', kind: ConfigMap, name: ca}]\n    subjectAltNames: [{type: Hostname, hostname: cart.example.com}]\n"))
	policytest.FuzzDecode(f, New())
}
