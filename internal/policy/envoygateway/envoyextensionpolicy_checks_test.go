package envoygateway

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/model"
)

// TestEnvoyExtensionPolicyChecks has one subtest per check of Envoy
// Gateway's EnvoyExtensionPolicy translation (buildWasm, buildExtProc)
// that envoyextensionpolicy_checks.go makes;
// docs/controllers/envoygateway-checks.md names them.
func TestEnvoyExtensionPolicyChecks(t *testing.T) {
	const route = "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n"
	const others = "---\napiVersion: v1\nkind: Secret\nmetadata: {name: pull, namespace: default}\ntype: kubernetes.io/dockerconfigjson\ndata: {.dockerconfigjson: e30=}\n" +
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: opaque, namespace: default}\ndata: {a: eA==, b: eA==}\n" +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca, namespace: default}\ndata: {ca.crt: x}\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: proc, namespace: default}\nspec: {ports: [{port: 9000}]}\n"
	// A ServiceImport with a TCP port and a UDP one, and a Service with a UDP port only.
	const serviceImports = "---\napiVersion: multicluster.x-k8s.io/v1alpha1\nkind: ServiceImport\nmetadata: {name: si, namespace: default}\nspec: {type: ClusterSetIP, ports: [{port: 9000, protocol: TCP}, {port: 53, protocol: UDP}]}\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: dns, namespace: default}\nspec: {ports: [{port: 53, protocol: UDP}]}\n"
	const image = "  wasm: [{name: w, code: {type: Image, image: {url: 'oci://registry.example.com/w:v1'"
	const http = "  wasm: [{name: w, code: {type: HTTP, http: {url: 'https://example.com/w.wasm', sha256: 'abc'"
	runChecks(t, EnvoyExtensionPolicy(), []checkCase{
		{name: "wasm.http-missing", spec: route + "  wasm: [{name: w, code: {type: HTTP}}]\n",
			want: []string{"Wasm: missing HTTP field in Wasm code source."}},
		{name: "wasm.image-missing", spec: route + "  wasm: [{name: w, code: {type: Image}}]\n",
			want: []string{"Wasm: missing Image field in Wasm code source."}},
		{name: "wasm.type", spec: route + "  wasm: [{name: w, code: {type: Git}}]\n",
			want: []string{"Wasm: unsupported Wasm code source type \"Git\"."}},
		{name: "wasm.tls-ca-missing", spec: route + http + ", tls: {caCertificateRef: {name: nope}}}}}]\n", others: others,
			want: []string{"Wasm: secret default/nope does not exist."}},
		{name: "wasm.tls-ca-kind", spec: route + http + ", tls: {caCertificateRef: {kind: Service, name: proc}}}}}]\n", others: others,
			want: []string{"Wasm: unsupported ref kind:Service."}},
		{name: "wasm.tls-ca-configmap", spec: route + http + ", tls: {caCertificateRef: {kind: ConfigMap, name: ca}}}}}]\n", others: others},
		{name: "wasm.pullSecret-missing", spec: route + image + ", pullSecretRef: {name: nope}}}}]\n", others: others,
			want: []string{"Wasm: secret default/nope does not exist."}},
		{name: "wasm.pullSecret-grant", spec: route + image + ", pullSecretRef: {name: pull, namespace: other}}}}]\n", others: others,
			want: []string{"Wasm: ref to Secret other/pull not permitted by any ReferenceGrant."}},
		{name: "wasm.pullSecret-key", spec: route + image + ", pullSecretRef: {name: opaque}}}}]\n", others: others,
			want: []string{"Wasm: missing .dockerconfigjson key in secret default/opaque."}},
		{name: "wasm.valid", spec: route + image + ", pullSecretRef: {name: pull}}}}]\n", others: others},
		{name: "wasm.every-module", spec: route + "  wasm: [{name: a, code: {type: HTTP}}, {name: b, code: {type: Image}}]\n",
			want: []string{"Wasm: missing HTTP field in Wasm code source.", "Wasm: missing Image field in Wasm code source."}},
		{name: "lua.configmap-missing", spec: route + "  lua: [{type: ValueRef, valueRef: {group: '', kind: ConfigMap, name: nope}}]\n", others: others,
			want: []string{"Lua: can't find the referenced configmap nope in namespace default."}},
		{name: "lua.configmap-empty", spec: route + "  lua: [{type: ValueRef, valueRef: {group: '', kind: ConfigMap, name: empty}}]\n",
			others: others + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: empty, namespace: default}\n",
			want:   []string{"Lua: can't find the key lua in the referenced configmap empty."}},
		{name: "lua.configmap-binaryData", spec: route + "  lua: [{type: ValueRef, valueRef: {group: '', kind: ConfigMap, name: bin}}]\n",
			others: others + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: bin, namespace: default}\nbinaryData: {lua: YQ==}\n",
			want:   []string{"Lua: can't find the key lua in the referenced configmap bin."}},
		{name: "extProc.messageTimeout", spec: route + "  extProc: [{backendRefs: [{name: proc, port: 9000}], messageTimeout: 1d}]\n", others: others,
			want: []string{"ExtProc: invalid ExtProc MessageTimeout value 1d."}},
		{name: "extProc.backendSettings", spec: route + "  extProc: [{backendRefs: [{name: proc, port: 9000}], backendSettings: {http2: {initialStreamWindowSize: 1Ki}}, messageTimeout: 1d}]\n", others: others,
			want: []string{"ExtProc: InitialStreamWindowSize value 1Ki is out of range, must be between 65535 and 2147483647"}},
		{name: "extProc.backendSettings-retry", spec: route + "  extProc: [{backendRefs: [{name: proc, port: 9000}], backendSettings: {retry: {perRetry: {backOff: {baseInterval: 0s}}}}}]\n", others: others,
			want: []string{"ExtProc: baseInterval cannot be set to 0s."}},
		{name: "extProc.backendSettings-after-backends", spec: route + "  extProc: [{backendRefs: [{name: nope, port: 9000}], backendSettings: {retry: {perRetry: {backOff: {baseInterval: 0s}}}}, messageTimeout: 1d}]\n", others: others,
			want: []string{"ExtProc: service default/nope not found."}},
		{name: "extProc.backendRefs-empty", spec: route + "  extProc: [{backendRefs: [{name: proc, port: 9000}]}, {backendRefs: [], messageTimeout: 1d}]\n", others: others,
			want: []string{"ExtProc: no backendRefs found for external service."}},
		{name: "extProc.valid", spec: route + "  extProc: [{backendRefs: [{name: proc, port: 9000}], messageTimeout: 100ms}]\n", others: others},
		// The backend's port must be a TCP one, a ServiceImport's as a Service's.
		{name: "extProc.serviceImport-port", spec: route + "  extProc: [{backendRefs: [{group: multicluster.x-k8s.io, kind: ServiceImport, name: si, port: 9001}]}]\n", others: others + serviceImports,
			want: []string{"ExtProc: TCP Port 9001 not found on service default/si."}},
		{name: "extProc.serviceImport-udp", spec: route + "  extProc: [{backendRefs: [{group: multicluster.x-k8s.io, kind: ServiceImport, name: si, port: 53}]}]\n", others: others + serviceImports,
			want: []string{"ExtProc: TCP Port 53 not found on service default/si."}},
		{name: "extProc.serviceImport-no-port", spec: route + "  extProc: [{backendRefs: [{group: multicluster.x-k8s.io, kind: ServiceImport, name: si}]}]\n", others: others + serviceImports,
			want: []string{"ExtProc: a valid port number corresponding to a port on the Service must be specified."}},
		{name: "extProc.serviceImport-valid", spec: route + "  extProc: [{backendRefs: [{group: multicluster.x-k8s.io, kind: ServiceImport, name: si, port: 9000}]}]\n", others: others + serviceImports},
		{name: "extProc.service-udp", spec: route + "  extProc: [{backendRefs: [{name: dns, port: 53}]}]\n", others: others + serviceImports,
			want: []string{"ExtProc: TCP Port 53 not found on service default/dns."}},
	})
}

// TestExtServiceKind: an extension service's backendRef is checked as
// Envoy Gateway's validateExtServiceBackendReference checks it — the
// group against the ones it supports, then the kind — before anything is
// looked up; the object is then named by its kind.
func TestExtServiceKind(t *testing.T) {
	for _, tc := range []struct {
		ref     backendRef
		want    model.GroupKind
		problem string
	}{
		{backendRef{Name: "svc"}, model.GroupKind{Kind: "Service"}, ""},
		{backendRef{Group: serviceImport.Group, Kind: "ServiceImport", Name: "svc"}, serviceImport, ""},
		{backendRef{Group: Group, Kind: "Backend", Name: "b"}, backend, ""},
		{backendRef{Group: "example.com", Kind: "Service", Name: "svc"}, model.GroupKind{}, "group is invalid"},
		{backendRef{Kind: "Pod", Name: "p"}, model.GroupKind{}, "kind is invalid"},
	} {
		gk, msg := extServiceKind(tc.ref)
		if gk != tc.want || (tc.problem == "") != (msg == "") || !strings.Contains(msg, tc.problem) {
			t.Errorf("extServiceKind(%+v) = %v, %q; want %v and a message with %q", tc.ref, gk, msg, tc.want, tc.problem)
		}
	}
}
