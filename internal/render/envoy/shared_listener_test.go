package envoy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/secret/secrettest"
)

// TestSharedPortListenerSettings: a ClientTrafficPolicy on one of two
// HTTPS listeners sharing a port sets its TLS (a chain each) but not the
// Envoy listener both share: its socket options are left out and
// reported (GWP404), never imposed on the neighbour nor dropped silently;
// on an HTTPS listener alone on its port they apply.
func TestSharedPortListenerSettings(t *testing.T) {
	// The certificate Secret holds a key pair: Envoy Gateway programs no
	// listener whose Secret lacks tls.crt or tls.key (L10, L32).
	cert, key := secrettest.KeyPair()
	input := egClass + egGateway("infra",
		"  - {name: a, protocol: HTTPS, port: 443, hostname: a.example.com, tls: {certificateRefs: [{name: cert}]}}\n",
		"  - {name: b, protocol: HTTPS, port: 443, hostname: b.example.com, tls: {certificateRefs: [{name: cert}]}}\n",
		"  - {name: c, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: cert}]}}\n") + "---\n" + secrettest.SecretYAML("infra", "cert", "tls.crt", cert, "tls.key", key) + `type: kubernetes.io/tls
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: a-clients, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: a}]
  tcpKeepalive: {probes: 3}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: c-clients, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: c}]
  tcpKeepalive: {probes: 3}
`
	path := filepath.Join(t.TempDir(), "input.yaml")
	if err := os.WriteFile(path, []byte(input), 0o600); err != nil {
		t.Fatal(err)
	}
	out := render(t, compile(t, load(t, path), policy.Config{}), envoy.Options{Target: "envoygateway"})
	var reported []string
	for _, d := range out.Diagnostics {
		if d.Code == policy.LintUnsupportedCapability.Code {
			reported = append(reported, d.Message)
		}
	}
	if len(reported) != 1 || !strings.Contains(reported[0], "listener a, which shares port 443") {
		t.Errorf("GWP404 findings %q, want one for listener a's shared port", reported)
	}
	options := map[string]int{}
	for _, l := range out.Gateways[0].Listeners {
		options[l.Name] = len(l.GetSocketOptions())
	}
	if options["listener~443"] != 0 || options["listener~8443"] == 0 {
		t.Errorf("socket options per listener %v, want none on the shared port 443 and some on 8443", options)
	}
}
