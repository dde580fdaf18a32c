package backendtlspolicy

import (
	"slices"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestBackendChecks: the CA references that do not resolve, of the
// policy on a backend port — the one naming the port's section (a Service
// port's name, another backend's port number) before one naming the
// whole backend, in the backend's namespace.
func TestBackendChecks(t *testing.T) {
	const doc = `apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec: {ports: [{name: grpc, port: 9000}, {name: http, port: 8080}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ca, namespace: app}
data: {ca.crt: x}
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: whole, namespace: app}
spec:
  targetRefs: [{group: '', kind: Service, name: svc}]
  validation: {hostname: svc, caCertificateRefs: [{group: '', kind: ConfigMap, name: missing-cm}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: grpc, namespace: app}
spec:
  targetRefs: [{group: '', kind: Service, name: svc, sectionName: grpc}]
  validation: {hostname: svc, caCertificateRefs: [{group: '', kind: ConfigMap, name: ca}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: backend, namespace: app}
spec:
  targetRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: be, sectionName: "443"}]
  validation: {hostname: be, caCertificateRefs: [{group: '', kind: Secret, name: missing-secret}]}
`
	objs, err := manifest.Parse("btp.yaml", []byte(doc), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: map[model.GroupKind]bool{New().GroupKind(): true}})
	check := New().BackendChecks(m)
	svc := model.Key{Kind: "Service", Namespace: "app", Name: "svc"}
	be := model.Key{Group: "gateway.envoyproxy.io", Kind: "Backend", Namespace: "app", Name: "be"}
	tests := []struct {
		name    string
		backend model.Key
		port    int32
		want    []policy.MissingRef
	}{
		{"the section's policy, CA present", svc, 9000, nil},
		{"the whole Service's policy, CA missing", svc, 8080, []policy.MissingRef{{Kind: "ConfigMap", Namespace: "app", Name: "missing-cm"}}},
		{"a Backend's port section", be, 443, []policy.MissingRef{{Kind: "Secret", Namespace: "app", Name: "missing-secret"}}},
		{"a Backend's other port", be, 80, nil},
		{"another namespace", model.Key{Kind: "Service", Namespace: "other", Name: "svc"}, 9000, nil},
	}
	for _, tc := range tests {
		if got := check(tc.backend, tc.port); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
