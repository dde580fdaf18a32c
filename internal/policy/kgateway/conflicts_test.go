package kgateway

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestListenerConflicts: kgateway's verdict on listeners sharing a port
// (translator/listener/validation.go: validateListeners,
// protocolConflict, hostNameConflict): the first listener of a port
// keeps it for its protocol as written, the others of that protocol
// stand and the rest are ProtocolConflict; then the first listener of
// each hostname stands and a later one is HostnameConflict. A conflicted
// listener is Accepted and Programmed False with the conflict's reason.
func TestListenerConflicts(t *testing.T) {
	gw := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: http-a, protocol: HTTP, port: 80, hostname: a.example.com}
  - {name: tcp, protocol: TCP, port: 80}
  - {name: http-a-again, protocol: HTTP, port: 80, hostname: a.example.com}
  - {name: udp, protocol: UDP, port: 80}
  - {name: https, protocol: HTTPS, port: 443, hostname: a.example.com, tls: {certificateRefs: [{name: cert}]}}
  - {name: tls, protocol: TLS, port: 443, hostname: b.example.com, tls: {mode: Passthrough}}
  - {name: http-443, protocol: HTTP, port: 443, hostname: c.example.com}
  - {name: tls-only, protocol: TLS, port: 8443, hostname: a.example.com, tls: {mode: Passthrough}}
  - {name: https-8443, protocol: HTTPS, port: 8443, hostname: b.example.com, tls: {certificateRefs: [{name: cert}]}}
  - {name: https-8443-a, protocol: HTTPS, port: 8443, hostname: a.example.com, tls: {certificateRefs: [{name: cert}]}}`
	g := kgatewayGraph(t, gw, "apiVersion: v1\nkind: Secret\nmetadata: {name: cert, namespace: infra}")
	tests := []struct{ listener, conflicted, accepted, programmed string }{
		{"http", "False/NoConflicts", "True/Accepted", "True/Programmed"},
		{"http-a", "False/NoConflicts", "True/Accepted", "True/Programmed"},
		{"tcp", "True/ProtocolConflict", "False/ProtocolConflict", "False/ProtocolConflict"},
		{"http-a-again", "True/HostnameConflict", "False/HostnameConflict", "False/HostnameConflict"},
		{"udp", "False/NoConflicts", "False/UnsupportedProtocol", "True/Programmed"},
		// HTTPS first: TLS is SNI-routed as HTTPS is, but not the
		// protocol the first listener has, once HTTP makes two classes.
		{"https", "False/NoConflicts", "True/Accepted", "True/Programmed"},
		{"tls", "True/ProtocolConflict", "False/ProtocolConflict", "False/ProtocolConflict"},
		{"http-443", "True/ProtocolConflict", "False/ProtocolConflict", "False/ProtocolConflict"},
		// TLS and HTTPS alone share a port; hostnames still may not.
		{"tls-only", "False/NoConflicts", "True/Accepted", "False/Invalid"},
		{"https-8443", "False/NoConflicts", "True/Accepted", "True/Programmed"},
		{"https-8443-a", "True/HostnameConflict", "False/HostnameConflict", "False/HostnameConflict"},
	}
	for _, tt := range tests {
		t.Run(tt.listener, func(t *testing.T) {
			l := g.Gateway("infra", "gw").Listener(tt.listener)
			var got []string
			for _, typ := range []string{"Conflicted", "Accepted", "Programmed"} {
				c := findCond(l.Conditions, typ)
				got = append(got, string(c.Status)+"/"+c.Reason)
			}
			if diff := cmp.Diff([]string{tt.conflicted, tt.accepted, tt.programmed}, got); diff != "" {
				t.Errorf("Conflicted, Accepted, Programmed (-want +got):\n%s", diff)
			}
		})
	}
}
