package topology

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestListenerValidity: the listeners kgateway does not serve, with the
// conditions it writes for them (frontendtlsconfig, validation and
// gateway-only goldens).
func TestListenerValidity(t *testing.T) {
	gw := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  tls:
    frontend:
      default:
        validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: ca}]}
      perPort:
      - port: 8443
        tls: {validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: nope}]}}
      - port: 8444
        tls: {validation: {caCertificateRefs: [{group: "", kind: Service, name: ca}]}}
      - port: 8445
        tls: {validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: ca, namespace: other}]}}
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: udp-reserved, protocol: UDP, port: 9091}
  - name: tcp-kinds
    protocol: HTTP
    port: 81
    allowedRoutes: {kinds: [{kind: TCPRoute}]}
  - {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert}]}}
  - {name: ca-missing, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: cert}]}}
  - {name: ca-kind, protocol: HTTPS, port: 8444, tls: {certificateRefs: [{name: cert}]}}
  - {name: ca-not-granted, protocol: HTTPS, port: 8445, tls: {certificateRefs: [{name: cert}]}}
  - name: bad-version
    protocol: HTTPS
    port: 8446
    tls: {certificateRefs: [{name: cert}], options: {kgateway.dev/min-tls-version: "1.4"}}`
	reserved := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: reserved, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners: [{name: reserved, protocol: HTTP, port: 9091}]`
	objs := []string{gw, reserved, `apiVersion: v1
kind: Secret
metadata: {name: cert, namespace: infra}`, `apiVersion: v1
kind: ConfigMap
metadata: {name: ca, namespace: infra}`, `apiVersion: v1
kind: ConfigMap
metadata: {name: ca, namespace: other}`}
	g := graph(t, Options{}, objs...)
	tests := []struct {
		listener, accepted, refs, unserved string
	}{
		{"http", "True/Accepted", "True/ResolvedRefs", ""},
		{"reserved", "False/Invalid", "True/ResolvedRefs", UnservedReservedPort}, // on Gateway reserved
		{"udp-reserved", "False/UnsupportedProtocol", "True/ResolvedRefs", ""},
		{"tcp-kinds", "True/Accepted", "False/InvalidRouteKinds", UnservedRouteKinds},
		{"https", "True/Accepted", "True/ResolvedRefs", ""},
		{"ca-missing", "False/NoValidCACertificate", "False/InvalidCACertificateRef", UnservedTLS},
		{"ca-kind", "False/NoValidCACertificate", "False/InvalidCACertificateKind", UnservedTLS},
		{"ca-not-granted", "False/NoValidCACertificate", "False/RefNotPermitted", UnservedTLS},
		{"bad-version", "False/Invalid", "True/ResolvedRefs", UnservedTLS},
	}
	for _, tt := range tests {
		t.Run(tt.listener, func(t *testing.T) {
			gw := "gw"
			if tt.listener == "reserved" {
				gw = "reserved"
			}
			l := g.Gateway("infra", gw).Listener(tt.listener)
			a, r := findCond(l.Conditions, "Accepted"), findCond(l.Conditions, "ResolvedRefs")
			got := []string{string(a.Status) + "/" + a.Reason, string(r.Status) + "/" + r.Reason, l.Unserved}
			if diff := cmp.Diff([]string{tt.accepted, tt.refs, tt.unserved}, got); diff != "" {
				t.Errorf("Accepted, ResolvedRefs, Unserved (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGatewayRefusedListeners: kgateway's Gateway Accepted and
// Programmed when listeners are refused before or during translation.
func TestGatewayRefusedListeners(t *testing.T) {
	tests := []struct {
		name, listeners  string
		accepted, progrd string
	}{
		{"one valid", `[{name: a, protocol: HTTP, port: 80}, {name: b, protocol: HTTP, port: 9091}]`, "True/ListenersNotValid", "True/Programmed"},
		{"only a reserved port", `[{name: a, protocol: HTTP, port: 9091}]`, "True/ListenersNotValid", "False/Invalid"},
		{"only kinds it cannot carry", `[{name: a, protocol: HTTP, port: 80, allowedRoutes: {kinds: [{kind: TCPRoute}]}}]`, "False/ListenersNotValid", "False/Invalid"},
		{"only a missing certificate", `[{name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: nope}]}}]`, "True/ListenersNotValid", "True/Programmed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph(t, Options{}, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners: `+tt.listeners)
			conds := GatewayConditions(g, g.Gateway("infra", "gw"))
			a, p := findCond(conds, "Accepted"), findCond(conds, "Programmed")
			got := []string{string(a.Status) + "/" + a.Reason, string(p.Status) + "/" + p.Reason}
			if diff := cmp.Diff([]string{tt.accepted, tt.progrd}, got); diff != "" {
				t.Errorf("Accepted, Programmed (-want +got):\n%s", diff)
			}
		})
	}
}

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
