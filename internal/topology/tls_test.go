package topology

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTLSOptions: kgateway's listener tls.options, parsed.
func TestTLSOptions(t *testing.T) {
	tests := []struct {
		name, options string
		want          TLSOptions
		err           bool
	}{
		{"defaults", `{}`, TLSOptions{ALPN: []string{"h2", "http/1.1"}}, false},
		{"lists and versions", `{kgateway.dev/alpn-protocols: h2, kgateway.dev/cipher-suites: "A, B", kgateway.dev/min-tls-version: "1.2", kgateway.dev/max-tls-version: "1.3"}`,
			TLSOptions{ALPN: []string{"h2"}, CipherSuites: []string{"A", "B"}, MinVersion: "TLSv1_2", MaxVersion: "TLSv1_3"}, false},
		{"no ALPN", `{kgateway.dev/alpn-protocols: allow-empty}`, TLSOptions{}, false},
		{"hashes written as a folded list", `{kgateway.dev/verify-certificate-hash: " - AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB - 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}`,
			TLSOptions{ALPN: []string{"h2", "http/1.1"}, CertificateHashes: []string{"AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}, false},
		{"a hash that is not SHA-256", `{kgateway.dev/verify-certificate-hash: "AA:BB"}`, TLSOptions{ALPN: []string{"h2", "http/1.1"}, CertificateHashes: []string{"AA:BB"}}, true},
		{"maximum version below the minimum", `{kgateway.dev/min-tls-version: "1.3", kgateway.dev/max-tls-version: "1.2"}`,
			TLSOptions{ALPN: []string{"h2", "http/1.1"}, MinVersion: "TLSv1_3", MaxVersion: "TLSv1_2"}, true},
		{"SANs", `{kgateway.dev/verify-subject-alt-names: "a.example.com, b.example.com"}`,
			TLSOptions{ALPN: []string{"h2", "http/1.1"}, SubjectAltNames: []string{"a.example.com", "b.example.com"}}, false},
		{"unknown version", `{kgateway.dev/max-tls-version: "2"}`, TLSOptions{ALPN: []string{"h2", "http/1.1"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph(t, Options{}, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners: [{name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: c}], options: `+tt.options+`}}]`)
			got, err := g.Gateway("infra", "gw").Listener("a").TLSOptions()
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want an error: %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}
