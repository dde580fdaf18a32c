package envoy_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"

	udpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/udp/udp_proxy/v3"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/secret/secrettest"
)

// emptyStreamGateway is a Gateway of Envoy Gateway's class with the
// listeners given, the certificate a terminating listener names and the
// Service the routes below send to.
func emptyStreamGateway(listeners ...string) string {
	cert, key := secrettest.KeyPair()
	lines := make([]string, len(listeners))
	for i, l := range listeners {
		lines[i] = "  - " + l + "\n"
	}
	return egClass + egGateway("infra", lines...) + "---\n" + secrettest.SecretYAML("infra", "cert", "tls.crt", cert, "tls.key", key) +
		"type: kubernetes.io/tls\n" + egService("infra", "one", "{port: 443}")
}

// describeEmptyStream describes a listener's chains: "name sni -> cluster",
// then "+tls" for a transport socket, the network filters before the
// proxy, and the proxy's idle timeout; a UDP proxy's listener as
// "udp -> cluster"; an HTTP chain as "connection manager name".
func describeEmptyStream(t *testing.T, l *listenerv3.Listener) []string {
	t.Helper()
	var out []string
	for _, lf := range l.ListenerFilters {
		up := &udpproxyv3.UdpProxyConfig{}
		if lf.GetTypedConfig().UnmarshalTo(up) == nil {
			r := &udpproxyv3.Route{}
			if err := up.GetMatcher().GetOnNoMatch().GetAction().GetTypedConfig().UnmarshalTo(r); err != nil {
				t.Fatal(err)
			}
			out = append(out, "udp -> "+r.Cluster)
		} else {
			out = append(out, "listener filter "+lf.Name)
		}
	}
	for _, fc := range l.FilterChains {
		tp := &tcpproxyv3.TcpProxy{}
		last := fc.Filters[len(fc.Filters)-1]
		if last.GetTypedConfig().UnmarshalTo(tp) != nil {
			out = append(out, "connection manager "+fc.Name)
			continue
		}
		d := fmt.Sprintf("%s %s -> %s", fc.Name, strings.Join(fc.GetFilterChainMatch().GetServerNames(), ","), tp.GetCluster())
		if fc.TransportSocket != nil {
			d += " +tls"
		}
		for _, f := range fc.Filters[:len(fc.Filters)-1] {
			d += " " + f.Name
		}
		if tp.IdleTimeout != nil {
			d += " idle " + tp.IdleTimeout.AsDuration().String()
		}
		out = append(out, d)
	}
	return out
}

// TestEmptyStreamChains (B124): Envoy Gateway gives a TCP or TLS listener
// no route is served on a TCP proxy chain to EmptyCluster, once per Envoy
// listener, without server names or TLS termination but with the
// listener's connection limit and TCP idle timeout; a UDP listener
// without a route proxies to EmptyCluster too (xds translator
// translator.go: processTCPListenerXdsTranslation,
// processUDPListenerXdsTranslation). Upstream Envoy's target leaves such
// listeners out.
func TestEmptyStreamChains(t *testing.T) {
	const (
		tcp          = "{name: tcp, protocol: TCP, port: 9000}"
		passA        = "{name: a, protocol: TLS, port: 8443, hostname: a.example.com, tls: {mode: Passthrough}}"
		passB        = "{name: b, protocol: TLS, port: 8443, hostname: b.example.com, tls: {mode: Passthrough}}"
		terminate    = "{name: term, protocol: TLS, port: 6443, tls: {mode: Terminate, certificateRefs: [{name: cert}]}}"
		udp          = "{name: dns, protocol: UDP, port: 5353}"
		http         = "{name: web, protocol: HTTP, port: 8080}"
		ctpOnTCP     = "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: c, namespace: infra}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: tcp}]\n  timeout: {tcp: {idleTimeout: 7m}}\n  connection: {connectionLimit: {value: 5}}\n"
		emptyCluster = "EmptyCluster"
	)
	routeOnA := streamRouteEG("TLSRoute", "ra", "a", "hostnames: [a.example.com]")
	routeOnTCP := streamRouteEG("TCPRoute", "rt", "tcp", "")
	cases := []struct {
		name, input string
		// want, per Envoy listener name (suffix after "~"), its chains
		want map[string][]string
		// cluster: whether EmptyCluster is written
		cluster bool
	}{
		{"a TCP listener without a route", emptyStreamGateway(tcp),
			map[string][]string{"9000": {"EmptyCluster  -> EmptyCluster"}}, true},
		{"a passthrough TLS listener without a route: no SNI match, no inspector", emptyStreamGateway(passA),
			map[string][]string{"8443": {"EmptyCluster  -> EmptyCluster"}}, true},
		{"a terminating TLS listener without a route terminates nothing", emptyStreamGateway(terminate),
			map[string][]string{"6443": {"EmptyCluster  -> EmptyCluster"}}, true},
		{"two listeners of a port without routes: one chain", emptyStreamGateway(passA, passB),
			map[string][]string{"8443": {"EmptyCluster  -> EmptyCluster"}}, true},
		{"one of two TLS listeners served: the route's chain and the empty one", emptyStreamGateway(passA, passB) + routeOnA,
			map[string][]string{"8443": {"EmptyCluster  -> EmptyCluster", "listener filter envoy.filters.listener.tls_inspector"}}, true},
		{"a served TCP listener has no empty chain", emptyStreamGateway(tcp) + routeOnTCP,
			map[string][]string{"9000": nil}, false},
		{"the listener's connection limit and idle timeout", emptyStreamGateway(tcp) + ctpOnTCP,
			map[string][]string{"9000": {"EmptyCluster  -> EmptyCluster envoy.filters.network.connection_limit idle 7m0s"}}, true},
		{"a UDP listener without a route", emptyStreamGateway(udp),
			map[string][]string{"5353~udp": {"udp -> EmptyCluster"}}, true},
		{"an HTTP listener without a route has no empty chain", emptyStreamGateway(http),
			map[string][]string{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gw := renderInline(t, c.input, "envoygateway")
			got := map[string][]string{}
			for _, l := range gw.Listeners {
				_, port, _ := strings.Cut(l.Name, "~")
				var chains []string
				for _, d := range describeEmptyStream(t, l) {
					if !strings.HasPrefix(d, "EmptyCluster") && !strings.HasPrefix(d, "udp") && !strings.HasPrefix(d, "listener filter") {
						continue // a route's own chain
					}
					chains = append(chains, d)
				}
				slices.Sort(chains)
				if chains != nil || c.want[port] != nil {
					got[port] = chains
				}
			}
			for port, want := range c.want {
				if !slices.Equal(got[port], want) {
					t.Errorf("listener %s: chains\n got %q\nwant %q", port, got[port], want)
				}
			}
			for port := range got {
				if _, ok := c.want[port]; !ok && got[port] != nil {
					t.Errorf("listener %s: unexpected chains %q", port, got[port])
				}
			}
			var empty *clusterv3.Cluster
			for _, cl := range gw.Clusters {
				if cl.Name == emptyCluster {
					empty = cl
				}
			}
			if (empty != nil) != c.cluster {
				t.Fatalf("EmptyCluster written: %v, want %v", empty != nil, c.cluster)
			}
			if empty != nil && (empty.GetType() != clusterv3.Cluster_STATIC || empty.LoadAssignment != nil) {
				t.Errorf("EmptyCluster: %v, want a static cluster without endpoints", empty)
			}
		})
	}
	// upstream Envoy's target keeps leaving such listeners out
	gw := renderInline(t, emptyStreamGateway(tcp, passA), "envoy")
	if len(gw.Listeners) != 0 || len(gw.Clusters) != 0 {
		t.Errorf("envoy target: %d listeners, %d clusters, want none", len(gw.Listeners), len(gw.Clusters))
	}
}

// streamRouteEG is a TCPRoute or TLSRoute to Service one on the
// Gateway's listener section; extra is a spec line (hostnames).
func streamRouteEG(kind, name, section, extra string) string {
	if extra != "" {
		extra = "  " + extra + "\n"
	}
	return fmt.Sprintf(`---
apiVersion: gateway.networking.k8s.io/v1
kind: %s
metadata: {name: %s, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: %s}]
%s  rules: [{backendRefs: [{name: one, port: 443}]}]
`, kind, name, section, extra)
}

// TestInvalidPolicyDropsStreamRoutes (L47): a ClientTrafficPolicy Envoy
// Gateway fails to translate on a TCP or TLS listener removes the
// listener's routes, and the listener proxies to EmptyCluster
// (clienttrafficpolicy.go: translateClientTrafficPolicyForListener,
// "tcpIR.Routes = nil"): the Gateway's policy on every listener it
// applies to, a listener's own on that listener only; a listener whose
// own valid policy replaces the Gateway's invalid one keeps its route.
// Each shape was checked against Envoy Gateway's translator.
func TestInvalidPolicyDropsStreamRoutes(t *testing.T) {
	ctp := func(name, section, bufferLimit string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw" + section + "}]\n  connection: {bufferLimit: " + bufferLimit + "}\n"
	}
	base := emptyStreamGateway("{name: tcp, protocol: TCP, port: 9000}", "{name: tcp2, protocol: TCP, port: 9001}") +
		streamRouteEG("TCPRoute", "rt", "tcp", "") + streamRouteEG("TCPRoute", "rt2", "tcp2", "")
	const served, empty = "kube_infra_one_443", "EmptyCluster"
	cases := []struct {
		name, policies string
		want           map[string]string // listener → the cluster its chain proxies to
	}{
		{"the Gateway's invalid policy: no listener serves its route", ctp("g", "", "5Gi"),
			map[string]string{"listener~9000": empty, "listener~9001": empty}},
		{"a listener's invalid policy: that listener only", ctp("l", ", sectionName: tcp", "5Gi"),
			map[string]string{"listener~9000": empty, "listener~9001": served}},
		{"a listener's valid policy replaces the Gateway's invalid one there", ctp("g", "", "5Gi") + ctp("l", ", sectionName: tcp", "1Mi"),
			map[string]string{"listener~9000": served, "listener~9001": empty}},
		{"valid policies: every route served", ctp("g", "", "1Mi"),
			map[string]string{"listener~9000": served, "listener~9001": served}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := compileInline(t, base+c.policies, policy.Config{})
			out := render(t, res, envoy.Options{Target: "envoygateway"})
			got := map[string]string{}
			for _, l := range out.Gateways[0].Listeners {
				tp := &tcpproxyv3.TcpProxy{}
				fcs := l.FilterChains
				if len(fcs) != 1 || fcs[0].Filters[len(fcs[0].Filters)-1].GetTypedConfig().UnmarshalTo(tp) != nil {
					t.Fatalf("%s: want one tcp_proxy chain, got %v", l.Name, fcs)
				}
				got[l.Name] = tp.GetCluster()
			}
			if !maps.Equal(got, c.want) {
				t.Errorf("clusters by listener\n got %v\nwant %v", got, c.want)
			}
		})
	}
}
