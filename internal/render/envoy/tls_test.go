package envoy

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gwpol/gwpol/internal/topology"
)

// TestOnPort: on a port where a kind has fields for that port, they
// replace the kind's fields for every port; other kinds keep theirs, and
// fields for other ports never apply.
func TestOnPort(t *testing.T) {
	lp := func(key string, port int32) *rendered {
		return &rendered{kindKey: "gateway.kgateway.dev/ListenerPolicy#" + key, port: port}
	}
	tp := &rendered{kindKey: "gateway.kgateway.dev/TrafficPolicy#timeouts"}
	fields := []*rendered{lp("default.proxyProtocol", 0), lp("perPortPolicy[8080]", 8080), lp("perPortPolicy[9090]", 9090), tp}
	keys := func(fs []*rendered) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.kindKey)
		}
		return out
	}
	tests := []struct {
		port int32
		want []string
	}{
		{80, []string{"gateway.kgateway.dev/ListenerPolicy#default.proxyProtocol", "gateway.kgateway.dev/TrafficPolicy#timeouts"}},
		{8080, []string{"gateway.kgateway.dev/ListenerPolicy#perPortPolicy[8080]", "gateway.kgateway.dev/TrafficPolicy#timeouts"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, keys(onPort(fields, tt.port))); diff != "" {
			t.Errorf("port %d (-want +got):\n%s", tt.port, diff)
		}
	}
}

// TestCABundle: gwpol never reads a CA: one Secret's is read from where it
// is mounted, any other bundle is named by placeholders.
func TestCABundle(t *testing.T) {
	if got := caBundle([]topology.CARef{{Kind: "Secret", Namespace: "ns", Name: "ca"}}).GetFilename(); got != "/etc/envoy/secrets/ns/ca/ca.crt" {
		t.Errorf("one Secret: %q", got)
	}
	got := caBundle([]topology.CARef{{Kind: "ConfigMap", Namespace: "ns", Name: "a"}, {Kind: "Secret", Namespace: "ns", Name: "b"}}).GetInlineString()
	if want := "${configmap:ns/a#ca.crt}\n${secret:ns/b#ca.crt}"; got != want {
		t.Errorf("bundle %q, want %q", got, want)
	}
}
