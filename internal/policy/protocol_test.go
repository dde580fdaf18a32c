package policy

import (
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
)

// protoKind defines backendRef kind b.example/Fn, whose objects name
// their protocol in spec.proto.
type protoKind struct{ fakeKind }

func (protoKind) BackendKinds() []model.GroupKind {
	return []model.GroupKind{{Group: "b.example", Kind: "Fn"}}
}

func (protoKind) BackendAppProtocol(o *manifest.Object) string {
	var v struct {
		Spec struct {
			Proto string `json:"proto"`
		} `json:"spec"`
	}
	if o.Decode(&v) != nil {
		return ""
	}
	return v.Spec.Proto
}

// TestBackendProtocol: a backend's upstream protocol is decided from
// what the backend says — a Service port's appProtocol, else its name
// where the target reads names; a backend object's protocol as its kind
// reads it — and not from what its cluster happens to carry: an object
// naming no protocol is an HTTP/1 backend. A target that does not decide
// by app protocol decides nothing; one that folds case reads an
// appProtocol whatever its case.
func TestBackendProtocol(t *testing.T) {
	objs, err := manifest.Parse("in.yaml", []byte(`apiVersion: v1
kind: Service
metadata: {name: s, namespace: ns}
spec: {ports: [{port: 1, name: grpc}, {port: 2, name: grpc, appProtocol: http}, {port: 3, name: web}, {port: 4, appProtocol: h2x}, {port: 5, name: grpc, appProtocol: H2X}, {port: 6, appProtocol: GRPC-X}]}
---
apiVersion: b.example/v1
kind: Fn
metadata: {name: quiet, namespace: ns}
spec: {}
---
apiVersion: b.example/v1
kind: Fn
metadata: {name: loud, namespace: ns}
spec: {proto: h2x}
`), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: map[model.GroupKind]bool{{Group: "b.example", Kind: "Fn"}: true}})
	reg := NewRegistry(protoKind{})
	names := &Target{HTTP2AppProtocols: []string{"grpc", "h2x"}, PortNameIsAppProtocol: true}
	noNames := &Target{HTTP2AppProtocols: []string{"grpc", "h2x"}}
	folded := &Target{HTTP2AppProtocols: []string{"grpc", "h2x"}, PortNameIsAppProtocol: true, AppProtocolsFoldCase: true}
	svc := model.Key{Kind: "Service", Namespace: "ns", Name: "s"}
	fn := func(name string) model.Key {
		return model.Key{Group: "b.example", Kind: "Fn", Namespace: "ns", Name: name}
	}
	for _, tt := range []struct {
		name   string
		target *Target
		key    model.Key
		port   int32
		want   string
	}{
		{"port named grpc", names, svc, 1, ClusterHTTP2},
		{"port named grpc, names not read", noNames, svc, 1, ClusterHTTP1},
		{"appProtocol wins over the name", names, svc, 2, ClusterHTTP1},
		{"port named web", names, svc, 3, ClusterHTTP1},
		{"HTTP/2 appProtocol", noNames, svc, 4, ClusterHTTP2},
		{"port the Service lacks", names, svc, 9, ClusterHTTP1},
		{"object naming no protocol", names, fn("quiet"), 0, ClusterHTTP1},
		{"object naming an HTTP/2 protocol", names, fn("loud"), 0, ClusterHTTP2},
		{"object not in the input", names, fn("gone"), 0, ClusterHTTP1},
		{"target deciding nothing", &Target{}, fn("loud"), 0, ""},
		{"upper-case appProtocol, case kept", names, svc, 5, ClusterHTTP1},
		{"upper-case appProtocol, case folded", folded, svc, 5, ClusterHTTP2},
		{"folded, yet another protocol", folded, svc, 6, ClusterHTTP1},
		{"folded, the appProtocol still wins over the name", folded, svc, 2, ClusterHTTP1},
	} {
		if got := reg.BackendProtocol(tt.target, m, tt.key, tt.port); got != tt.want {
			t.Errorf("%s: BackendProtocol = %q, want %q", tt.name, got, tt.want)
		}
	}
}
