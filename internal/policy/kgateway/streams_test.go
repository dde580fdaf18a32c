package kgateway

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestProgrammedStreamRoutes: which routes kgateway programs on a TCP or TLS
// listener, and that a TCP or TLS listener none of whose port's routes is
// programmed is not Programmed itself.
func TestProgrammedStreamRoutes(t *testing.T) {
	const gw = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  listeners:
  - {name: tcp, protocol: TCP, port: 9000}
  - {name: tls, protocol: TLS, port: 8443, tls: {mode: Passthrough}}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: ns}
spec: {ports: [{port: 80}]}`
	stream := func(kind, name, created, section string, rules, backends int) string {
		refs := strings.TrimSuffix(strings.Repeat("{name: svc, port: 80}, ", backends), ", ")
		rule := fmt.Sprintf("  - backendRefs: [%s]\n", refs)
		return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1alpha2
kind: %s
metadata: {name: %s, namespace: ns, creationTimestamp: %q}
spec:
  parentRefs: [{name: gw, sectionName: %s}]
  rules:
%s`, kind, name, created, section, strings.Repeat(rule, rules))
	}
	cases := []struct {
		name     string
		routes   []string
		listener string
		want     []string // route names, in order
	}{
		{"no route", nil, "tcp", nil},
		{"tcp: the oldest only", []string{stream("TCPRoute", "a-new", "2024-02-01T00:00:00Z", "tcp", 1, 1), stream("TCPRoute", "b-old", "2024-01-01T00:00:00Z", "tcp", 1, 1)}, "tcp", []string{"b-old"}},
		{"tcp: same age, first by name", []string{stream("TCPRoute", "b", "2024-01-01T00:00:00Z", "tcp", 1, 1), stream("TCPRoute", "a", "2024-01-01T00:00:00Z", "tcp", 1, 1)}, "tcp", []string{"a"}},
		{"tcp: the oldest has two rules, nothing", []string{stream("TCPRoute", "new", "2024-02-01T00:00:00Z", "tcp", 1, 1), stream("TCPRoute", "old", "2024-01-01T00:00:00Z", "tcp", 2, 1)}, "tcp", nil},
		{"tcp: a rule without backendRefs, nothing", []string{stream("TCPRoute", "r", "2024-01-01T00:00:00Z", "tcp", 1, 0)}, "tcp", nil},
		{"tls: every route that can be programmed", []string{stream("TLSRoute", "a", "2024-01-01T00:00:00Z", "tls", 1, 1), stream("TLSRoute", "b", "2024-01-01T00:00:00Z", "tls", 2, 1), stream("TLSRoute", "c", "2024-01-01T00:00:00Z", "tls", 1, 2)}, "tls", []string{"a", "c"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := kgatewayGraph(t, append([]string{gw}, c.routes...)...)
			l := g.Gateway("ns", "gw").Listener(c.listener)
			var got []string
			for _, a := range l.StreamRoutes() {
				got = append(got, a.Route.Meta.Name)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("StreamRoutes = %q, want %q", got, c.want)
			}
		})
	}
}
