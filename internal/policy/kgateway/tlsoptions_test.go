package kgateway

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/topology"
)

// TestTLSOptions: kgateway's listener tls.options, parsed.
func TestTLSOptions(t *testing.T) {
	tests := []struct {
		name, options string
		want          topology.TLSOptions
		err           bool
	}{
		{"defaults", `{}`, topology.TLSOptions{ALPN: []string{"h2", "http/1.1"}}, false},
		{"lists and versions", `{kgateway.dev/alpn-protocols: h2, kgateway.dev/cipher-suites: "A, B", kgateway.dev/min-tls-version: "1.2", kgateway.dev/max-tls-version: "1.3"}`,
			topology.TLSOptions{ALPN: []string{"h2"}, CipherSuites: []string{"A", "B"}, MinVersion: "TLSv1_2", MaxVersion: "TLSv1_3"}, false},
		{"no ALPN", `{kgateway.dev/alpn-protocols: allow-empty}`, topology.TLSOptions{}, false},
		{"hashes written as a folded list", `{kgateway.dev/verify-certificate-hash: " - AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB - 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}`,
			topology.TLSOptions{ALPN: []string{"h2", "http/1.1"}, CertificateHashes: []string{"AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}, false},
		{"a hash that is not SHA-256", `{kgateway.dev/verify-certificate-hash: "AA:BB"}`, topology.TLSOptions{ALPN: []string{"h2", "http/1.1"}, CertificateHashes: []string{"AA:BB"}}, true},
		{"maximum version below the minimum", `{kgateway.dev/min-tls-version: "1.3", kgateway.dev/max-tls-version: "1.2"}`,
			topology.TLSOptions{ALPN: []string{"h2", "http/1.1"}, MinVersion: "TLSv1_3", MaxVersion: "TLSv1_2"}, true},
		{"SANs", `{kgateway.dev/verify-subject-alt-names: "a.example.com, b.example.com"}`,
			topology.TLSOptions{ALPN: []string{"h2", "http/1.1"}, SubjectAltNames: []string{"a.example.com", "b.example.com"}}, false},
		{"unknown version", `{kgateway.dev/max-tls-version: "2"}`, topology.TLSOptions{ALPN: []string{"h2", "http/1.1"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := kgatewayGraph(t, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  tls: {frontend: {default: {validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: ca}]}}}}
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

// TestSubjectAltNamesNeedACA: kgateway rejects subject alt names to
// verify on a listener without a trusted CA (no frontend validation).
func TestSubjectAltNamesNeedACA(t *testing.T) {
	g := kgatewayGraph(t, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners: [{name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: c}], options: {kgateway.dev/verify-subject-alt-names: a.example.com}}}]`)
	if _, err := g.Gateway("infra", "gw").Listener("a").TLSOptions(); err == nil || !strings.Contains(err.Error(), "requires a trusted CA") {
		t.Errorf("err = %v, want the trusted CA error", err)
	}
}
