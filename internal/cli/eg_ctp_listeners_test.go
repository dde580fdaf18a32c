package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnvoyGatewayClientTrafficPerListener: a ClientTrafficPolicy on a
// whole Gateway is translated once per listener it covers
// (ProcessClientTrafficPolicies → translateClientTrafficPolicyForListener,
// errors.Join over the listeners), so its errors repeat: the settings
// every listener builds (TCP keepalive, connection, timeouts) once per
// listener Envoy Gateway has an HTTP or TCP IR listener for, the HTTP
// settings once per HTTP listener; a listener a section policy took, a
// UDP listener and one not programmed add nothing — and a policy whose
// listeners all add nothing is Accepted. Each shape was checked with
// egctl x translate v1.9.0; no public case has one.
func TestEnvoyGatewayClientTrafficPerListener(t *testing.T) {
	const class = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec:\n  controllerName: gateway.envoyproxy.io/gatewayclass-controller\n"
	gateway := func(listeners ...string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners:\n" +
			"  - " + strings.Join(listeners, "\n  - ") + "\n"
	}
	ctp := func(name, section, spec string) string {
		ref := "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}"
		if section != "" {
			ref = "{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: " + section + "}"
		}
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n  targetRefs: [" + ref + "]\n" + spec
	}
	const (
		http1   = "{name: a, protocol: HTTP, port: 80}"
		http2   = "{name: b, protocol: HTTP, port: 81}"
		http3   = "{name: c, protocol: HTTP, port: 82}"
		tcp     = "{name: t, protocol: TCP, port: 90}"
		udp     = "{name: u, protocol: UDP, port: 91}"
		pass    = "{name: p, protocol: TLS, port: 8443, tls: {mode: Passthrough}}"
		unready = "{name: s, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: missing-cert}]}}"
		headers = "  headers: {earlyRequestHeaders: {}}\n"
		conn    = "  connection: {bufferLimit: 1Ei}\n"
		hdrMsg  = "Headers: EarlyRequestHeaders did not provide valid configuration to add/set/remove any headers"
		connMsg = "Connection: invalid BufferLimit value 1Ei"
	)
	for _, tc := range []struct {
		name, input, policy, section, want string
	}{
		{"three HTTP listeners: the HTTP settings' error three times",
			gateway(http1, http2, http3) + ctp("all", "", headers), "all", "",
			hdrMsg + "\n" + hdrMsg + "\n" + hdrMsg + "."},
		{"HTTP, TCP, UDP, an unprogrammed HTTPS and a taken listener: HTTP gives both, TCP the common one, the rest nothing",
			gateway(http1, tcp, udp, unready, http2) + ctp("all", "", conn+headers) + ctp("b-only", "b", ""), "all", "",
			connMsg + "\n" + hdrMsg + "\n" + connMsg + "."},
		{"TLS passthrough beside UDP: the common error once",
			gateway(udp, pass) + ctp("all", "", conn+headers), "all", "",
			connMsg + "."},
		{"only UDP and unprogrammed listeners: accepted",
			gateway(udp, unready) + ctp("all", "", conn+headers), "all", "",
			"Policy has been accepted."},
		{"a UDP section: accepted",
			gateway(http1, udp) + ctp("u-only", "u", conn), "u-only", "u",
			"Policy has been accepted."},
		{"one HTTP section: once",
			gateway(http1, http2) + ctp("a-only", "a", conn+headers), "a-only", "a",
			connMsg + "\n" + hdrMsg + "."},
		// a section policy claims its listener whether it is valid or not;
		// the whole Gateway's is translated on the others only
		{"every listener taken by a section policy, one of them invalid: accepted",
			gateway(http1, http2) + ctp("a-only", "a", "") + ctp("b-only", "b", conn) + ctp("all", "", conn), "all", "",
			"Policy has been accepted."},
		{"one listener left: its error once",
			gateway(http1, http2) + ctp("a-only", "a", "") + ctp("all", "", conn), "all", "",
			connMsg + "."},
		{"the policy's own section takes the only listener from its whole-Gateway target: accepted there",
			gateway(http1) + strings.Replace(ctp("all", "", conn), "name: gw}]", "name: gw}, {group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: a}]", 1), "all", "",
			"Policy has been accepted."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(file, []byte(class+tc.input), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, "status", "-f", file, "-o", "json")
			if out == "" {
				t.Fatalf("status: exit %d, no report\n%s", code, errOut)
			}
			var rep struct {
				Policies []struct {
					Name      string `json:"name"`
					Ancestors []struct {
						AncestorRef struct {
							SectionName string `json:"sectionName"`
						} `json:"ancestorRef"`
						Conditions []struct{ Type, Message string } `json:"conditions"`
					} `json:"ancestors"`
				} `json:"policies"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range rep.Policies {
				for _, a := range p.Ancestors {
					for _, c := range a.Conditions {
						if p.Name == tc.policy && a.AncestorRef.SectionName == tc.section && c.Type == "Accepted" {
							got = append(got, c.Message)
						}
					}
				}
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("Accepted messages %q, want %q", got, tc.want)
			}
		})
	}
}
