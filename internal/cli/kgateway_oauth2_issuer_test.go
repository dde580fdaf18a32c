package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKgatewayOAuth2IssuerOffline: an OAuth2 provider that names its
// endpoints through issuerURI alone is built by kgateway from the issuer's
// discovery document, which gwpol does not fetch: status accepts the
// policy as kgateway does, and render says it leaves the filter out
// (GWP404, unsupported offline) rather than that the policy is wrong.
func TestKgatewayOAuth2IssuerOffline(t *testing.T) {
	in := `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kgw}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: apps}
spec:
  gatewayClassName: kgw
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: apps}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: apps}
spec: {ports: [{name: http, port: 80}, {name: https, port: 443}]}
---
apiVersion: v1
kind: Secret
metadata: {name: client, namespace: apps}
stringData: {client-secret: s}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: idp, namespace: apps}
spec:
  type: OAuth2
  oauth2:
    backendRef: {name: svc, port: 443}
    issuerURI: https://idp.example.com
    credentials: {clientID: app, clientSecretRef: {name: client}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: tp, namespace: apps}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  oauth2: {extensionRef: {name: idp}}
`
	path := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	status, _, _ := run(t, "status", "-f", path)
	if !strings.Contains(status, "reason: Valid") || strings.Contains(status, "reason: Invalid") {
		t.Errorf("status: want the TrafficPolicy Accepted (Valid):\n%s", status)
	}
	lint, _, _ := run(t, "lint", "-f", path)
	if !strings.Contains(lint, "GWP404") || !strings.Contains(lint, "issuerURI") || strings.Contains(lint, "GWP401") {
		t.Errorf("lint: want GWP404 naming issuerURI and no GWP401:\n%s", lint)
	}
}
