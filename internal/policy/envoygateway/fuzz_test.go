package envoygateway

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy/policytest"
)

// FuzzDecodeEnvoyGateway: any document of Envoy Gateway's policy kinds
// (and HTTPRouteFilter) decodes to a policy or to findings at positions,
// never a panic. Envoy Gateway's own cases seed it when the shared
// conformance sets sit beside the project.
func FuzzDecodeEnvoyGateway(f *testing.F) {
	policytest.AddSeeds(f, "../../../../shared/conformance/envoygateway/cases/*/input.yaml")
	f.Add([]byte("apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: btp, namespace: shop}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]\n  mergeType: StrategicMerge\n  timeout: {http: {requestTimeout: 5s}}\n  retry: {numRetries: 3}\n"))
	f.Add([]byte("apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: sp, namespace: shop}\nspec:\n  targetSelectors: [{kind: HTTPRoute, matchLabels: {app: cart}}]\n  cors: {allowOrigins: ['https://*.example.com'], maxAge: 10m}\n"))
	f.Add([]byte("apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: ctp, namespace: infra}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: http}\n  timeout: {http: {idleTimeout: 5s}}\n"))
	policytest.FuzzDecode(f, All()...)
}
