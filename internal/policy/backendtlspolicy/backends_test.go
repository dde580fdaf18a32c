package backendtlspolicy

import (
	"reflect"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestBackendPolicy: the policy governing a backend port — the one
// naming the port's section (a Service's or ServiceImport's port name,
// another backend's port number) before one naming the whole backend, in
// the backend's namespace — and what it references.
func TestBackendPolicy(t *testing.T) {
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
---
apiVersion: multicluster.x-k8s.io/v1alpha1
kind: ServiceImport
metadata: {name: si, namespace: app}
spec: {type: ClusterSetIP, ports: [{name: https, port: 443, protocol: TCP}, {port: 80, protocol: TCP}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: si-https, namespace: app}
spec:
  targetRefs: [{group: multicluster.x-k8s.io, kind: ServiceImport, name: si, sectionName: https}]
  validation: {hostname: si, wellKnownCACertificates: System}
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: si-443, namespace: app}
spec:
  targetRefs: [{group: multicluster.x-k8s.io, kind: ServiceImport, name: si, sectionName: "80"}]
  validation: {hostname: si, caCertificateRefs: [{group: '', kind: ClusterTrustBundle, name: b}]}
`
	objs, err := manifest.Parse("btp.yaml", []byte(doc), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: map[model.GroupKind]bool{New().GroupKind(): true, serviceImport: true}})
	governing := New().BackendPolicy(m)
	svc := model.Key{Kind: "Service", Namespace: "app", Name: "svc"}
	be := model.Key{Group: "gateway.envoyproxy.io", Kind: "Backend", Namespace: "app", Name: "be"}
	si := model.Key{Group: serviceImport.Group, Kind: serviceImport.Kind, Namespace: "app", Name: "si"}
	policyKey := func(name string) model.Key {
		return model.Key{Group: model.GatewayGroup, Kind: KindName, Namespace: "app", Name: name}
	}
	ref := func(kind, name string) []model.Key { return []model.Key{{Kind: kind, Namespace: "app", Name: name}} }
	tests := []struct {
		name    string
		backend model.Key
		port    int32
		want    *policy.BackendPolicy
	}{
		{"the section's policy", svc, 9000, &policy.BackendPolicy{Policy: policyKey("grpc"), Refs: ref("ConfigMap", "ca")}},
		{"the whole Service's policy", svc, 8080, &policy.BackendPolicy{Policy: policyKey("whole"), Refs: ref("ConfigMap", "missing-cm")}},
		{"a Backend's port section", be, 443, &policy.BackendPolicy{Policy: policyKey("backend"), Refs: ref("Secret", "missing-secret")}},
		{"a Backend's other port", be, 80, nil},
		{"another namespace", model.Key{Kind: "Service", Namespace: "other", Name: "svc"}, 9000, nil},
		{"a ServiceImport's port, by name", si, 443, &policy.BackendPolicy{Policy: policyKey("si-https"), WellKnown: true}},
		{"a ServiceImport's unnamed port has no section: not by number", si, 80, nil},
	}
	for _, tc := range tests {
		if got := governing(tc.backend, tc.port); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
