package kgateway

import (
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestExtensionClusterProtocol: an extension's gRPC service (ext_auth,
// ext_proc, rate limit) leaves its backend's cluster protocol to the
// backend under the kgateway target — a Service's or a Backend's cluster
// gets no HTTP/2 options from the extension — and forces HTTP/2 under
// other targets, as a collector's gRPC service does.
func TestExtensionClusterProtocol(t *testing.T) {
	port := gwv1.PortNumber(9000)
	backend := gwv1.Kind(KindBackend)
	group := gwv1.Group(Group)
	tests := []struct {
		name   string
		target string
		ref    gwv1.BackendObjectReference
		want   bool // HTTP/2 options on the cluster entry
	}{
		{"Service under kgateway", "kgateway", gwv1.BackendObjectReference{Name: "authz", Port: &port}, false},
		{"Backend under kgateway", "kgateway", gwv1.BackendObjectReference{Group: &group, Kind: &backend, Name: "authz"}, false},
		{"Service under another target", "envoy", gwv1.BackendObjectReference{Name: "authz", Port: &port}, true},
		{"Backend under another target", "", gwv1.BackendObjectReference{Group: &group, Kind: &backend, Name: "authz"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			http2 := extensionHTTP2(&policy.Env{Target: tt.target})
			_, cl, err := extGrpcService(ExtGrpcService{BackendRef: gwv1.BackendRef{BackendObjectReference: tt.ref}}, "infra", http2)
			if err != nil {
				t.Fatal(err)
			}
			_, got := cl.TypedExtensionProtocolOptions["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]
			if got != tt.want {
				t.Errorf("cluster %s: HTTP/2 options %v, want %v", cl.Name, got, tt.want)
			}
			_, acl, err := extAuthz(&ExtAuthProvider{GrpcService: &ExtGrpcService{BackendRef: gwv1.BackendRef{BackendObjectReference: tt.ref}}}, "infra", "ea", http2)
			if err != nil {
				t.Fatal(err)
			}
			if _, got := acl.TypedExtensionProtocolOptions["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]; got != tt.want {
				t.Errorf("ext_authz cluster %s: HTTP/2 options %v, want %v", acl.Name, got, tt.want)
			}
		})
	}
}
