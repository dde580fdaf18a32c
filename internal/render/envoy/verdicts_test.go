package envoy_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"maps"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"github.com/gwpol/gwpol/internal/render/envoy"
)

// This file holds render's side of verdicts a controller decides once
// (on a listener, a route) and status, explain and lint report too: what
// the rendered configuration serves must be what they say.

// tlsSecretWithSAN is the TLS Secret infra/NAME whose certificate, valid
// now, has the one DNS SAN given.
func tlsSecretWithSAN(t *testing.T, name, san string) string {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: san}, DNSNames: []string{san},
		NotBefore: now.AddDate(-1, 0, 0), NotAfter: now.AddDate(10, 0, 0), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	b64 := func(typ string, b []byte) string {
		return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}))
	}
	return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: " + name + ", namespace: infra}\ntype: kubernetes.io/tls\n" +
		"data: {tls.crt: " + b64("CERTIFICATE", der) + ", tls.key: " + b64("EC PRIVATE KEY", kder) + "}\n"
}

// chainALPN is, per filter chain of the Envoy listener named port, the
// ALPN protocols its TLS context offers ("-" for none).
func chainALPN(t *testing.T, gw *envoy.Gateway, port string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range gw.Listeners {
		if l.Name != port {
			continue
		}
		for _, fc := range l.FilterChains {
			tls := &tlsv3.DownstreamTlsContext{}
			if err := fc.GetTransportSocket().GetTypedConfig().UnmarshalTo(tls); err != nil {
				t.Fatalf("chain %s: %v", fc.Name, err)
			}
			alpn := strings.Join(tls.GetCommonTlsContext().GetAlpnProtocols(), ",")
			if alpn == "" {
				alpn = "-"
			}
			out[fc.Name] = alpn
		}
	}
	return out
}

// TestOverlappingTLSConfigALPN: Envoy Gateway offers HTTP/1.1 alone (no
// h2) on an HTTPS listener it marks OverlappingTLSConfig for its
// certificates (OverlappingCertificates, SDSCertificateOpaque: the
// listener's TLSOverlaps), so that clients do not coalesce HTTP/2
// connections across listeners whose certificates overlap; overlapping
// hostnames alone change nothing, and a ClientTrafficPolicy that sets
// alpnProtocols (an empty list included) keeps its own.
func TestOverlappingTLSConfigALPN(t *testing.T) {
	const class = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n"
	certs := tlsSecretWithSAN(t, "wild", "*.shared.test") + tlsSecretWithSAN(t, "shared", "x.shared.test") +
		tlsSecretWithSAN(t, "other", "other.test") + tlsSecretWithSAN(t, "api", "api.example.test")
	listener := func(name, hostname, cert string) string {
		return "  - {name: " + name + ", protocol: HTTPS, port: 443, hostname: '" + hostname + "', tls: {certificateRefs: [{name: " + cert + "}]}}\n"
	}
	gateway := func(listeners string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners:\n" + listeners +
			"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: infra}\nspec: {ports: [{name: http, port: 8080}]}\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra}\nspec:\n  parentRefs: [{name: gw}]\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n"
	}
	ctp := func(tls string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: ctp, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: l1}]\n  tls: " + tls + "\n"
	}
	overlapping := gateway(listener("l1", "one.shared.test", "wild") + listener("l2", "x.shared.test", "shared") + listener("l3", "other.test", "other"))
	tests := []struct {
		name, input string
		want        map[string]string
	}{
		{"certificates whose SANs overlap offer HTTP/1.1 alone", overlapping,
			map[string]string{"l1": "http/1.1", "l2": "http/1.1", "l3": "h2,http/1.1"}},
		{"overlapping hostnames alone keep h2", gateway(listener("l1", "*.example.test", "api") + listener("l2", "api.example.test", "other")),
			map[string]string{"l1": "h2,http/1.1", "l2": "h2,http/1.1"}},
		{"a ClientTrafficPolicy's alpnProtocols stand", overlapping + ctp("{alpnProtocols: [h2]}"),
			map[string]string{"l1": "h2", "l2": "http/1.1", "l3": "h2,http/1.1"}},
		{"a ClientTrafficPolicy's empty alpnProtocols offer none", overlapping + ctp("{alpnProtocols: []}"),
			map[string]string{"l1": "-", "l2": "http/1.1", "l3": "h2,http/1.1"}},
		{"a ClientTrafficPolicy without alpnProtocols keeps HTTP/1.1 alone", overlapping + ctp("{minVersion: '1.3'}"),
			map[string]string{"l1": "http/1.1", "l2": "http/1.1", "l3": "h2,http/1.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := chainALPN(t, renderInline(t, class+tt.input+certs, "envoygateway"), "listener~443")
			if len(got) != len(tt.want) {
				t.Fatalf("chains %v, want %v", slices.Sorted(maps.Keys(got)), tt.want)
			}
			for name, want := range tt.want {
				if got[name] != want {
					t.Errorf("chain %s offers %q, want %q", name, got[name], want)
				}
			}
		})
	}
}
