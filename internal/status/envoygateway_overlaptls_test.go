package status_test

import (
	"testing"

	"github.com/gwpol/gwpol/internal/secret/secrettest"
)

// TestEnvoyGatewayOverlappingTLSConfig holds listener.go:
// checkOverlappingTLSConfig on the valid HTTPS listeners of one Gateway:
// two of one port whose hostnames overlap (equal, a wildcard one label
// above the other, or one without a hostname) are OverlappingHostnames;
// two whose certificates' SANs overlap are OverlappingCertificates, which
// replaces the former; other ports, nested wildcards and invalid
// listeners take no part.
func TestEnvoyGatewayOverlappingTLSConfig(t *testing.T) {
	class := "---\n" + egClassDoc
	certs := secrettest.TLSSecretYAML("infra", "a", "a.test") + secrettest.TLSSecretYAML("infra", "b", "b.test") +
		secrettest.TLSSecretYAML("infra", "wild", "*.shared.test") + secrettest.TLSSecretYAML("infra", "shared", "x.shared.test")
	listener := func(name, port, hostname, cert string) string {
		h := ""
		if hostname != "" {
			h = ", hostname: '" + hostname + "'"
		}
		return "  - {name: " + name + ", protocol: HTTPS, port: " + port + h + ", tls: {certificateRefs: [{name: " + cert + "}]}}\n"
	}
	const ok = "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs"
	overlap := func(reason string) string {
		return "Accepted=True/Accepted OverlappingTLSConfig=True/" + reason + " Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs"
	}
	tests := []struct {
		name, listeners string
		want            map[string]string
	}{
		{"a wildcard hostname and one a label below it", listener("l1", "443", "*.example.com", "a") + listener("l2", "443", "api.example.com", "b"),
			map[string]string{"l1": overlap("OverlappingHostnames"), "l2": overlap("OverlappingHostnames")}},
		{"a wildcard does not cover two labels below it", listener("l1", "443", "*.example.com", "a") + listener("l2", "443", "x.api.example.com", "b"),
			map[string]string{"l1": ok, "l2": ok}},
		{"a listener without a hostname overlaps every other", listener("l1", "443", "", "a") + listener("l2", "443", "api.example.com", "b"),
			map[string]string{"l1": overlap("OverlappingHostnames"), "l2": overlap("OverlappingHostnames")}},
		{"other ports do not overlap", listener("l1", "443", "*.example.com", "a") + listener("l2", "8443", "api.example.com", "b"),
			map[string]string{"l1": ok, "l2": ok}},
		{"certificates whose SANs overlap", listener("l1", "443", "one.example.com", "wild") + listener("l2", "443", "two.example.com", "shared"),
			map[string]string{"l1": overlap("OverlappingCertificates"), "l2": overlap("OverlappingCertificates")}},
		{"overlapping certificates replace overlapping hostnames", listener("l1", "443", "*.example.com", "a") + listener("l2", "443", "api.example.com", "a"),
			map[string]string{"l1": overlap("OverlappingCertificates"), "l2": overlap("OverlappingCertificates")}},
		{"an invalid listener takes no part", listener("l1", "443", "*.example.com", "a") + listener("l2", "443", "api.example.com", "missing"),
			map[string]string{"l1": ok, "l2": "Accepted=True/Accepted Programmed=False/Invalid ResolvedRefs=False/InvalidCertificateRef"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := egStatuses(compileWithBackend(t, class+certs+egGateway(tc.listeners)))
			for l, want := range tc.want {
				if key := "Gateway/infra/g#" + l; got[key] != want {
					t.Errorf("%s:\n got  %s\n want %s", key, got[key], want)
				}
			}
		})
	}
}

// TestEnvoyGatewayOpaqueCertificates holds checkOverlappingCertificates'
// first step: on a port with two valid HTTPS listeners, a listener whose
// certificate is an SDS reference Envoy Gateway cannot read, and every
// listener whose SANs overlap its hostname, are SDSCertificateOpaque; a
// listener whose SANs do not overlap it is not, nor an SDS listener alone
// on its port.
func TestEnvoyGatewayOpaqueCertificates(t *testing.T) {
	class := "---\n" + egClassDoc
	objs := class + secrettest.TLSSecretYAML("infra", "near", "web.example.com") + secrettest.TLSSecretYAML("infra", "far", "other.test") +
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: sds, namespace: infra}\ntype: gateway.envoyproxy.io/sds\nstringData: {secretName: web, url: 'unix:///var/run/sds.sock'}\n"
	on := map[string]any{"envoyGateway.extensionApis.enableSDSSecretRef": true}
	const ok = "Accepted=True/Accepted Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs"
	const opaque = "Accepted=True/Accepted OverlappingTLSConfig=True/SDSCertificateOpaque Programmed=True/Programmed ResolvedRefs=True/ResolvedRefs"
	tests := []struct {
		name, listeners string
		want            map[string]string
	}{
		{"an SDS listener and one whose SAN meets its hostname",
			"  - {name: s, protocol: HTTPS, port: 443, hostname: web.example.com, tls: {certificateRefs: [{name: sds}]}}\n" +
				"  - {name: n, protocol: HTTPS, port: 443, hostname: api.example.com, tls: {certificateRefs: [{name: near}]}}\n",
			map[string]string{"s": opaque, "n": opaque}},
		{"one whose SAN does not",
			"  - {name: s, protocol: HTTPS, port: 443, hostname: web.example.com, tls: {certificateRefs: [{name: sds}]}}\n" +
				"  - {name: f, protocol: HTTPS, port: 443, hostname: api.example.com, tls: {certificateRefs: [{name: far}]}}\n",
			map[string]string{"s": opaque, "f": ok}},
		{"an SDS listener alone on its port",
			"  - {name: s, protocol: HTTPS, port: 443, hostname: web.example.com, tls: {certificateRefs: [{name: sds}]}}\n" +
				"  - {name: f, protocol: HTTPS, port: 8443, hostname: api.example.com, tls: {certificateRefs: [{name: far}]}}\n",
			map[string]string{"s": ok, "f": ok}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := egStatuses(compileWithSettings(t, objs+egGateway(tc.listeners), on))
			for l, want := range tc.want {
				if key := "Gateway/infra/g#" + l; got[key] != want {
					t.Errorf("%s:\n got  %s\n want %s", key, got[key], want)
				}
			}
		})
	}
}
