package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gwpol/gwpol/internal/status"
)

// TestStatusScopeKeepsUnqualifiedAncestors: --gateway selects a policy's
// ancestor written without a namespace (Envoy Gateway's BackendTLSPolicy
// ancestor is the route's parentRef as written, K16) by the namespace it
// resolves to: the asked Gateway keeps both of its references, another
// Gateway of the same name in another namespace takes neither.
func TestStatusScopeKeepsUnqualifiedAncestors(t *testing.T) {
	const in = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: eg
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: other}
spec:
  gatewayClassName: eg
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: infra}
spec: {ports: [{port: 8443}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: infra}
spec:
  parentRefs: [{name: gw}, {name: gw, namespace: infra}]
  rules: [{backendRefs: [{name: svc, port: 8443}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: tls, namespace: infra}
spec:
  targetRefs: [{group: '', kind: Service, name: svc}]
  validation: {hostname: a.example.com, wellKnownCACertificates: System}
`
	file := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(file, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		gateway string
		want    []string
	}{
		{"infra/gw", []string{"Gateway/gw", "Gateway/infra/gw"}},
		{"other/gw", nil},
	} {
		out, stderr, code := run(t, "status", "-f", file, "-o", "json", "--gateway", tc.gateway)
		if out == "" {
			t.Fatalf("--gateway %s: exit %d: %s", tc.gateway, code, stderr)
		}
		var rep status.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range rep.Policies {
			if p.Name == "tls" {
				for _, a := range p.Ancestors {
					got = append(got, a.AncestorRef.String())
				}
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("--gateway %s: ancestors %q, want %q", tc.gateway, got, tc.want)
		}
	}
}
