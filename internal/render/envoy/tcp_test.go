package envoy_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
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

// streamRoute is a TCPRoute or TLSRoute; hostnames "" writes none (a
// TCPRoute has no such field; a TLSRoute v1 requires it).
func streamRoute(kind, name, created, section, hostnames, backends string, rules int) string {
	rule := "  - backendRefs: [" + backends + "]\n"
	if hostnames != "" {
		hostnames = "  hostnames: [" + hostnames + "]\n"
	}
	return fmt.Sprintf(`---
apiVersion: gateway.networking.k8s.io/v1
kind: %s
metadata: {name: %s, namespace: infra, creationTimestamp: %q}
spec:
  parentRefs: [{name: gw%s}]
%s  rules:
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
		{"a chain per TLSRoute, by SNI", streamRoute("TLSRoute", "r1", "2024-01-01T00:00:00Z", a, "a.example.com", one, 1) +
			streamRoute("TLSRoute", "r2", "2024-01-01T00:00:00Z", b, "b.example.com", two, 1),
			"listener~8443", []string{"listener~8443-infra.r1-rule-0 a.example.com -> kube_infra_one_443", "listener~8443-infra.r2-rule-0 b.example.com -> kube_infra_two_443"}},
		{"one route through two listeners: one chain", streamRoute("TLSRoute", "r", "2024-01-01T00:00:00Z", "", "a.example.com, b.example.com", one, 1),
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

// streamPolicyBase is a Gateway with a terminating TLS listener and a TCP
// listener, each with one route.
const streamPolicyBase = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: gwpol
  listeners:
  - {name: tls, protocol: TLS, port: 6443, tls: {mode: Terminate, certificateRefs: [{name: cert}]}}
  - {name: tcp, protocol: TCP, port: 9000}
---
apiVersion: v1
kind: Secret
metadata: {name: cert, namespace: infra}
type: kubernetes.io/tls
---
apiVersion: v1
kind: Service
metadata: {name: one, namespace: infra}
spec: {ports: [{port: 443}]}
` + `---
apiVersion: gateway.networking.k8s.io/v1
kind: TLSRoute
metadata: {name: t, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: tls}]
  hostnames: [tls.example.com]
  rules: [{backendRefs: [{name: one, port: 443}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: TCPRoute
metadata: {name: c, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: tcp}]
  rules: [{backendRefs: [{name: one, port: 443}]}]
`

func streamListener(t *testing.T, gw *envoy.Gateway, name string) *listenerv3.Listener {
	t.Helper()
	for _, l := range gw.Listeners {
		if l.Name == name {
			if len(l.FilterChains) != 1 {
				t.Fatalf("%s: %d filter chains, want 1", name, len(l.FilterChains))
			}
			return l
		}
	}
	t.Fatalf("no listener %s", name)
	return nil
}

// TestStreamListenerClientTrafficPolicy: an Envoy Gateway
// ClientTrafficPolicy on a TLS or TCP listener (sectionName) reaches the
// listener's TCP proxy chain, replacing the Gateway's policy whole there
// (fields it leaves unset included), with its merge metadata on the chain.
func TestStreamListenerClientTrafficPolicy(t *testing.T) {
	const policies = `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: whole, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  tls: {minVersion: "1.3"}
  timeout: {tcp: {idleTimeout: 1m}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: on-tls, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: tls}]
  tls: {maxVersion: "1.2"}
  connection: {connectionLimit: {value: 5}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: on-tcp, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: tcp}]
  timeout: {tcp: {idleTimeout: 7m}}
  enableProxyProtocol: true
`
	gw := renderInline(t, streamPolicyBase+policies, "envoygateway")

	tl := streamListener(t, gw, "listener~6443")
	fc := tl.FilterChains[0]
	tls := &tlsv3.DownstreamTlsContext{}
	if err := fc.GetTransportSocket().GetTypedConfig().UnmarshalTo(tls); err != nil {
		t.Fatal(err)
	}
	p := tls.GetCommonTlsContext().GetTlsParams()
	// the listener's tls replaces the Gateway's: no 1.3 minimum
	if p.GetTlsMaximumProtocolVersion() != tlsv3.TlsParameters_TLSv1_2 || p.GetTlsMinimumProtocolVersion() != tlsv3.TlsParameters_TLSv1_2 {
		t.Errorf("tls chain: TLS params %v, want 1.2 to 1.2 (the listener's policy over Envoy Gateway's baseline)", p)
	}
	if len(fc.Filters) != 2 || fc.Filters[0].Name != "envoy.filters.network.connection_limit" {
		t.Errorf("tls chain: filters %v, want the connection limit before the tcp_proxy", fc.Filters)
	}
	tp := &tcpproxyv3.TcpProxy{}
	if err := fc.Filters[len(fc.Filters)-1].GetTypedConfig().UnmarshalTo(tp); err != nil {
		t.Fatal(err)
	}
	if tp.GetIdleTimeout() != nil {
		t.Errorf("tls chain: idle timeout %s, want none: the listener's policy replaces the Gateway's whole there (Envoy Gateway translates a Gateway's policy only on the sections no listener policy claims), and it sets none", tp.GetIdleTimeout().AsDuration())
	}
	owners := fc.GetMetadata().GetFilterMetadata()["merge.gateway.envoyproxy.io/ClientTrafficPolicy"].AsMap()
	if fmt.Sprint(owners) != "map[connection:[gateway.envoyproxy.io/ClientTrafficPolicy/infra/on-tls] tls:[gateway.envoyproxy.io/ClientTrafficPolicy/infra/on-tls]]" {
		t.Errorf("tls chain metadata: %v", owners)
	}

	cl := streamListener(t, gw, "listener~9000")
	if len(cl.ListenerFilters) != 1 || cl.ListenerFilters[0].Name != "envoy.filters.listener.proxy_protocol" {
		t.Errorf("tcp listener: listener filters %v, want the PROXY protocol's", cl.ListenerFilters)
	}
	if err := cl.FilterChains[0].Filters[0].GetTypedConfig().UnmarshalTo(tp); err != nil {
		t.Fatal(err)
	}
	if got := tp.GetIdleTimeout().AsDuration().String(); got != "7m0s" {
		t.Errorf("tcp chain: idle timeout %s, want the listener's 7m0s", got)
	}
	if cl.FilterChains[0].TransportSocket != nil {
		t.Errorf("tcp chain: a transport socket on a listener that terminates no TLS")
	}
}

// TestStreamListenerOtherKinds: a kgateway TrafficPolicy on a TCP or
// TLS listener configures nothing there: the render is the one without
// it, with no finding.
func TestStreamListenerOtherKinds(t *testing.T) {
	const tp = `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: on-%[1]s, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: %[1]s}]
  timeouts: {request: 5s}
`
	for _, target := range []string{"kgateway", "envoy"} {
		without := renderInline(t, streamPolicyBase, target)
		with := renderInline(t, streamPolicyBase+fmt.Sprintf(tp, "tls")+fmt.Sprintf(tp, "tcp"), target)
		if len(with.Listeners) != len(without.Listeners) {
			t.Fatalf("%s: %d listeners, want %d", target, len(with.Listeners), len(without.Listeners))
		}
		for i := range with.Listeners {
			if !proto.Equal(with.Listeners[i], without.Listeners[i]) {
				t.Errorf("%s: listener %s changed by TrafficPolicies on the stream listeners", target, with.Listeners[i].Name)
			}
		}
	}
}

// TestStreamListenerUnsupported: what a ClientTrafficPolicy on a TCP or
// TLS listener sets that the listener's chains cannot take is GWP404 —
// TLS on a passthrough listener, Envoy listener settings of one listener
// among others of its port — never dropped in silence.
func TestStreamListenerUnsupported(t *testing.T) {
	const input = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: gwpol
  listeners:
  - {name: a, protocol: TLS, port: 8443, hostname: a.example.com, tls: {mode: Passthrough}}
  - {name: b, protocol: TLS, port: 8443, hostname: b.example.com, tls: {mode: Passthrough}}
---
apiVersion: v1
kind: Service
metadata: {name: one, namespace: infra}
spec: {ports: [{port: 443}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: TLSRoute
metadata: {name: r, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: a}]
  hostnames: [a.example.com]
  rules: [{backendRefs: [{name: one, port: 443}]}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: on-a, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: a}]
  tls: {minVersion: "1.3"}
  tcpKeepalive: {}
`
	objs, err := manifest.Parse("inline.yaml", []byte(input), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := policy.Config{}
	out := render(t, compile(t, &manifest.Set{Objects: objs}, cfg), envoy.Options{Target: "envoygateway", Config: cfg})
	got := diagText(out.Diagnostics)
	for _, want := range []string{"GWP404: unsupported: field tls sets nothing the TCP proxy chains of TLS listener a take", "GWP404: unsupported: field tcpKeepalive sets Envoy listener settings for listener a, which shares port 8443"} {
		if !strings.Contains(got, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, got)
		}
	}
	l := out.Gateways[0].Listeners[0]
	if len(l.SocketOptions) != 0 || l.FilterChains[0].TransportSocket != nil {
		t.Errorf("listener %s: socket options %v, transport socket %v; want neither", l.Name, l.SocketOptions, l.FilterChains[0].TransportSocket)
	}
}
