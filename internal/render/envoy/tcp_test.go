package envoy_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
)

// streamBase is a Gateway with two passthrough TLS listeners sharing port
// 8443 and a TCP listener, and the Services the routes below send to.
const streamBase = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners:
  - {name: a, protocol: TLS, port: 8443, hostname: a.example.com, tls: {mode: Passthrough}}
  - {name: b, protocol: TLS, port: 8443, hostname: b.example.com, tls: {mode: Passthrough}}
  - {name: tcp, protocol: TCP, port: 9000}
---
apiVersion: v1
kind: Service
metadata: {name: one, namespace: infra}
spec: {ports: [{port: 443}]}
---
apiVersion: v1
kind: Service
metadata: {name: two, namespace: infra}
spec: {ports: [{port: 443}]}
`

func streamRoute(kind, name, created, section, hostnames, backends string, rules int) string {
	rule := "  - backendRefs: [" + backends + "]\n"
	return fmt.Sprintf(`---
apiVersion: gateway.networking.k8s.io/v1
kind: %s
metadata: {name: %s, namespace: infra, creationTimestamp: %q}
spec:
  parentRefs: [{name: gw%s}]
  hostnames: [%s]
  rules:
%s`, kind, name, created, section, hostnames, strings.Repeat(rule, rules))
}

// TestStreamChains checks the L4 filter chains on the cases the render
// goldens leave out: which route a TCP listener serves, a route with
// several rules, weights of zero, and one route reaching a port through
// two TLS listeners (Envoy takes no two chains of one name).
func TestStreamChains(t *testing.T) {
	const (
		one  = "{name: one, port: 443}"
		two  = "{name: two, port: 443}"
		tcp  = ", sectionName: tcp"
		a, b = ", sectionName: a", ", sectionName: b"
	)
	cases := []struct {
		name   string
		routes string
		port   string
		// want: per filter chain, "name server,names -> cluster" or
		// "name server,names -> cluster:weight cluster:weight"
		want []string
	}{
		{"tcp serves the oldest route", streamRoute("TCPRoute", "new", "2024-02-01T00:00:00Z", tcp, "", two, 1) +
			streamRoute("TCPRoute", "old", "2024-01-01T00:00:00Z", tcp, "", one, 1),
			"listener~9000", []string{"listener~9000-infra.old-rule-0  -> kube_infra_one_443"}},
		{"several rules: no chain", streamRoute("TCPRoute", "r", "2024-01-01T00:00:00Z", tcp, "", one, 2), "listener~9000", nil},
		{"zero weights are left out", streamRoute("TCPRoute", "r", "2024-01-01T00:00:00Z", tcp, "", one+", {name: two, port: 443, weight: 0}, {name: gone, port: 443, weight: 3}", 1),
			"listener~9000", []string{"listener~9000-infra.r-rule-0  -> kube_infra_one_443:1 blackhole-cluster:3"}},
		{"all weights zero: nowhere", streamRoute("TCPRoute", "r", "2024-01-01T00:00:00Z", tcp, "", "{name: one, port: 443, weight: 0}, {name: two, port: 443, weight: 0}", 1),
			"listener~9000", []string{"listener~9000-infra.r-rule-0  -> blackhole-cluster"}},
		{"a chain per TLSRoute, by SNI", streamRoute("TLSRoute", "r1", "2024-01-01T00:00:00Z", a, "", one, 1) +
			streamRoute("TLSRoute", "r2", "2024-01-01T00:00:00Z", b, "", two, 1),
			"listener~8443", []string{"listener~8443-infra.r1-rule-0 a.example.com -> kube_infra_one_443", "listener~8443-infra.r2-rule-0 b.example.com -> kube_infra_two_443"}},
		{"one route through two listeners: one chain", streamRoute("TLSRoute", "r", "2024-01-01T00:00:00Z", "", "", one, 1),
			"listener~8443", []string{"listener~8443-infra.r-rule-0 a.example.com,b.example.com -> kube_infra_one_443"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, target := range []string{"kgateway", "envoy"} {
				gw := renderInline(t, streamBase+c.routes, target)
				var got []string
				for _, l := range gw.Listeners {
					if l.Name != c.port {
						continue
					}
					for _, fc := range l.FilterChains {
						got = append(got, describeStreamChain(t, fc))
					}
				}
				if !slices.Equal(got, c.want) {
					t.Errorf("%s: chains\n got %q\nwant %q", target, got, c.want)
				}
			}
		})
	}
}

func describeStreamChain(t *testing.T, fc *listenerv3.FilterChain) string {
	t.Helper()
	tp := &tcpproxyv3.TcpProxy{}
	if len(fc.Filters) != 1 || fc.Filters[0].GetTypedConfig().UnmarshalTo(tp) != nil {
		t.Fatalf("chain %s: want one tcp_proxy filter, got %v", fc.Name, fc.Filters)
	}
	if tp.StatPrefix != fc.Name {
		t.Errorf("chain %s: stat prefix %q", fc.Name, tp.StatPrefix)
	}
	to := tp.GetCluster()
	for _, w := range tp.GetWeightedClusters().GetClusters() {
		to = strings.TrimSpace(fmt.Sprintf("%s %s:%d", to, w.Name, w.Weight))
	}
	return fmt.Sprintf("%s %s -> %s", fc.Name, strings.Join(fc.GetFilterChainMatch().GetServerNames(), ","), to)
}
