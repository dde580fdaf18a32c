package envoygateway

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy/backendtlspolicy"
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
	f.Add([]byte("apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyExtensionPolicy\nmetadata: {name: eep, namespace: shop}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  extProc: [{failOpen: true, backendRefs: [{name: proc, port: 9000}]}]\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: proc, namespace: shop}\nspec: {ports: [{name: grpc, port: 9000}]}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: tls, namespace: shop}\nspec:\n" +
		"  targetRefs: [{group: '', kind: Service, name: proc, sectionName: grpc}]\n  validation: {hostname: proc, caCertificateRefs: [{group: '', kind: ConfigMap, name: ca}]}\n"))
	// BackendTLSPolicy too: an extension's backend's CA certificates are
	// resolved while the extension's policy decodes.
	policytest.FuzzDecode(f, append(All(), backendtlspolicy.New())...)
}
