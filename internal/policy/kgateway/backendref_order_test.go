package kgateway

import (
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestBackendRefProblemOrder: a backendRef that fails several of
// kgateway's checks reports the first in the BackendIndex's order — the
// ReferenceGrant, then a port on a Backend, then the lookup (kind, object,
// Service port) — for every caller of backendRefProblem (GatewayExtension
// backends, ListenerPolicy collectors).
func TestBackendRefProblemOrder(t *testing.T) {
	const objs = `apiVersion: v1
kind: Service
metadata: {name: svc, namespace: far}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: Backend
metadata: {name: be, namespace: far}
spec: {type: Static, static: {hosts: [{host: a.example, port: 80}]}}
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: g, namespace: granted}
spec:
  from: [{group: gateway.kgateway.dev, kind: GatewayExtension, namespace: home}]
  to: [{group: "", kind: Service}, {group: gateway.kgateway.dev, kind: Backend}, {group: example.com, kind: Thing}]
`
	port := func(p int32) *int32 { return &p }
	svc := model.GroupKind{Kind: "Service"}
	be := model.GroupKind{Group: Group, Kind: KindBackend}
	thing := model.GroupKind{Group: "example.com", Kind: "Thing"}
	tests := []struct {
		name     string
		fromKind string
		ref      backendRef
		off      bool
		want     string
	}{
		{"Service missing and not granted: the grant", KindGatewayExtension,
			backendRef{gk: svc, namespace: "nowhere", name: "svc", port: port(80)}, false,
			"backend Service nowhere/svc is in another namespace and no ReferenceGrant allows it (missing reference grant)"},
		{"Service without the port and not granted: the grant", KindListenerPolicy,
			backendRef{gk: svc, namespace: "far", name: "svc", port: port(81)}, false,
			"backend Service far/svc is in another namespace and no ReferenceGrant allows it (missing reference grant)"},
		{"Backend missing, with a port, not granted: the grant", KindGatewayExtension,
			backendRef{gk: be, namespace: "nowhere", name: "be", port: port(80)}, false,
			"backend Backend nowhere/be is in another namespace and no ReferenceGrant allows it (missing reference grant)"},
		{"unknown kind not granted: the grant, for the kind as written", KindGatewayExtension,
			backendRef{gk: thing, namespace: "nowhere", name: "t"}, false,
			"backend Thing nowhere/t is in another namespace and no ReferenceGrant allows it (missing reference grant)"},
		{"granted Backend missing, with a port: the port", KindGatewayExtension,
			backendRef{gk: be, namespace: "granted", name: "gone", port: port(80)}, false,
			`BackendRef to "gone" includes a port. Do not specify a port when referencing a Backend resource, as it defines its own port configuration`},
		{"granted Backend missing: not found", KindGatewayExtension,
			backendRef{gk: be, namespace: "granted", name: "gone"}, false,
			"backend Backend granted/gone not found"},
		{"granted unknown kind: unknown", KindGatewayExtension,
			backendRef{gk: thing, namespace: "granted", name: "t"}, false,
			"backendRef to example.com/Thing granted/t: unknown backend kind (a core Service or a gateway.kgateway.dev Backend)"},
		{"grants Off: the lookup speaks", KindGatewayExtension,
			backendRef{gk: be, namespace: "far", name: "be", port: port(80)}, true,
			`BackendRef to "be" includes a port. Do not specify a port when referencing a Backend resource, as it defines its own port configuration`},
		{"grants Off, Service without the port", KindListenerPolicy,
			backendRef{gk: svc, namespace: "far", name: "svc", port: port(81)}, true,
			"backend Service far/svc has no port 81"},
		{"same namespace resolves", KindGatewayExtension,
			backendRef{gk: svc, name: "svc", port: port(80)}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := "home"
			if tt.want == "" {
				home = "far"
			}
			set, err := manifest.Parse("inline.yaml", []byte(objs), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			m := model.Build(&manifest.Set{Objects: set}, model.Options{Extra: map[model.GroupKind]bool{be: true}})
			cfg := policy.Config{}
			if tt.off {
				cfg = cfg.WithSetting(ReferenceGrantMode.Key, "Off")
			}
			got := backendRefProblem(&policy.Env{Model: m, Config: cfg}, tt.fromKind, home, tt.ref)
			if got != tt.want {
				t.Errorf("problem %q, want %q", got, tt.want)
			}
		})
	}
}
