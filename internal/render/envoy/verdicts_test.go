package envoy_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/secret/secrettest"
)

// This file holds render's side of verdicts a controller decides once
// (on a listener, a route) and status, explain and lint report too: what
// the rendered configuration serves must be what they say.

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
	certs := secrettest.TLSSecretYAML("infra", "wild", "*.shared.test") + secrettest.TLSSecretYAML("infra", "shared", "x.shared.test") +
		secrettest.TLSSecretYAML("infra", "other", "other.test") + secrettest.TLSSecretYAML("infra", "api", "api.example.test")
	listener := func(name, hostname, cert string) string {
		return "  - {name: " + name + ", protocol: HTTPS, port: 443, hostname: '" + hostname + "', tls: {certificateRefs: [{name: " + cert + "}]}}\n"
	}
	gateway := func(listeners string) string { return egGateway("infra", listeners) + egRoute("infra") }
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
			got := chainALPN(t, renderInline(t, egClass+tt.input+certs, "envoygateway"), "listener~443")
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

// egStreamBase is an Envoy Gateway Gateway with a passthrough TLS
// listener, a terminating one, a TCP listener, and the backends the
// routes below send to: Services one and two, and a DynamicResolver
// Backend.
func egStreamBase(t *testing.T) string {
	return egClass + egGateway("infra",
		"  - {name: pass, protocol: TLS, port: 443, tls: {mode: Passthrough}}\n",
		"  - {name: term, protocol: TLS, port: 8443, tls: {mode: Terminate, certificateRefs: [{name: cert}]}}\n") + `  - {name: tcp, protocol: TCP, port: 9000}
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
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: dyn, namespace: infra}
spec: {type: DynamicResolver}
` + secrettest.TLSSecretYAML("infra", "cert", "www.example.com")
}

// backendOn enables Envoy Gateway's Backend kind.
func backendOn(c *policy.Config) { c.Values = map[string]any{"envoyGateway.enableBackend": true} }

// streamChainNames are the filter chain names of every Envoy listener,
// by listener.
func streamChainNames(gw *envoy.Gateway) map[string][]string {
	out := map[string][]string{}
	for _, l := range gw.Listeners {
		for _, fc := range l.FilterChains {
			out[l.Name] = append(out[l.Name], fc.Name)
		}
	}
	return out
}

// TestTLSRouteDynamicResolverOnTerminatingListener: a TLSRoute whose
// backend is a DynamicResolver forwards by the SNI, so Envoy Gateway
// serves it on passthrough listeners only; on a listener that terminates
// TLS it writes ResolvedRefs False and builds no chain for it, and render
// builds none (the port, with no other route, has only the empty chain
// of a listener without routes, L46).
func TestTLSRouteDynamicResolverOnTerminatingListener(t *testing.T) {
	route := `---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata: {name: r, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  hostnames: [www.example.com]
  rules: [{backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: dyn}]}]
`
	got := streamChainNames(renderInline(t, egStreamBase(t)+route, "envoygateway", backendOn))
	if len(got["listener~443"]) != 1 || got["listener~443"][0] == "EmptyCluster" || !slices.Equal(got["listener~8443"], []string{"EmptyCluster"}) {
		t.Errorf("chains by listener %v: want one route chain on the passthrough listener (443), only the empty one (L46) on the terminating one (8443)", got)
	}
}

// egStreamRoute is a TCPRoute or TLSRoute of namespace infra to the
// listener section of Gateway gw, created at created, with the rules
// given (each a backendRefs list).
func egStreamRoute(kind, name, created, section, hostnames string, rules ...string) string {
	var b strings.Builder
	b.WriteString("---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: infra, creationTimestamp: '" + created + "'}\nspec:\n")
	b.WriteString("  parentRefs: [{name: gw, sectionName: " + section + "}]\n")
	if hostnames != "" {
		b.WriteString("  hostnames: [" + hostnames + "]\n")
	}
	b.WriteString("  rules:\n")
	for _, r := range rules {
		b.WriteString("  - backendRefs: " + r + "\n")
	}
	return b.String()
}

// TestEnvoyGatewayStreamRoutes: the routes Envoy Gateway programs on a
// TCP or TLS listener, the ones its status reports Accepted — the first
// TCPRoute of one rule (by creationTimestamp, then namespace and name)
// on a TCP listener, and on a TLS listener every TLSRoute (their rules'
// backends pooled), or, when it has none, the first TCPRoute — and no
// other. A listener serving none has the empty chain (L46).
func TestEnvoyGatewayStreamRoutes(t *testing.T) {
	const (
		one = "[{name: one, port: 443}]"
		two = "[{name: two, port: 443}]"
	)
	tests := []struct {
		name, routes string
		want         map[string][]string
	}{
		{"the first TCPRoute by creation time", egStreamRoute("TCPRoute", "a-late", "2024-03-01T00:00:00Z", "tcp", "", one) +
			egStreamRoute("TCPRoute", "z-early", "2024-01-01T00:00:00Z", "tcp", "", two),
			map[string][]string{"listener~9000": {"listener~9000-infra.z-early-rule-0"}}},
		{"as old: the first by name", egStreamRoute("TCPRoute", "b", "2024-01-01T00:00:00Z", "tcp", "", one) +
			egStreamRoute("TCPRoute", "a", "2024-01-01T00:00:00Z", "tcp", "", two),
			map[string][]string{"listener~9000": {"listener~9000-infra.a-rule-0"}}},
		{"a TCPRoute of two rules is refused and takes no listener", egStreamRoute("TCPRoute", "old", "2024-01-01T00:00:00Z", "tcp", "", one, two) +
			egStreamRoute("TCPRoute", "new", "2024-02-01T00:00:00Z", "tcp", "", two),
			map[string][]string{"listener~9000": {"listener~9000-infra.new-rule-0"}}},
		{"a TLS listener's TLSRoutes, and no TCPRoute there", egStreamRoute("TLSRoute", "t", "2024-02-01T00:00:00Z", "term", "www.example.com", one) +
			egStreamRoute("TCPRoute", "c", "2024-01-01T00:00:00Z", "term", "", two),
			map[string][]string{"listener~8443": {"listener~8443-infra.t-rule-0"}}},
		{"a TLS listener without TLSRoutes serves its first TCPRoute", egStreamRoute("TCPRoute", "c2", "2024-02-01T00:00:00Z", "term", "", one) +
			egStreamRoute("TCPRoute", "c1", "2024-01-01T00:00:00Z", "term", "", two),
			map[string][]string{"listener~8443": {"listener~8443-infra.c1-rule-0"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := streamChainNames(renderInline(t, egStreamBase(t)+tt.routes, "envoygateway", backendOn))
			for _, l := range []string{"listener~443", "listener~8443", "listener~9000"} {
				if tt.want[l] == nil {
					tt.want[l] = []string{"EmptyCluster"}
				}
			}
			if !maps.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("chains by listener\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// TestEnvoyGatewayTLSRouteRulesPooled: Envoy Gateway pools the
// backendRefs of a TLSRoute's rules into one destination.
func TestEnvoyGatewayTLSRouteRulesPooled(t *testing.T) {
	in := egStreamBase(t) + egStreamRoute("TLSRoute", "t", "2024-01-01T00:00:00Z", "pass", "www.example.com", "[{name: one, port: 443}]", "[{name: two, port: 443}]")
	gw := renderInline(t, in, "envoygateway", backendOn)
	var got []string
	for _, l := range gw.Listeners {
		for _, fc := range l.FilterChains {
			tp := &tcpproxyv3.TcpProxy{}
			if err := fc.Filters[len(fc.Filters)-1].GetTypedConfig().UnmarshalTo(tp); err != nil {
				t.Fatal(err)
			}
			for _, c := range tp.GetWeightedClusters().GetClusters() {
				got = append(got, c.Name)
			}
		}
	}
	if len(got) != 2 {
		t.Errorf("weighted clusters %v, want both rules' backends", got)
	}
}

// http10Base is an Envoy Gateway Gateway with an HTTP listener of its
// own hostname (port 80) and one without (port 8080), a route on both,
// and the routes given.
var http10Base = egClass + egGateway("app", "  - {name: http, port: 80, protocol: HTTP, hostname: a.example.com}\n", "  - {name: b, port: 8080, protocol: HTTP}\n") + egRoute("app") + `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: wide, namespace: app}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
`

// http10Of is, per Envoy listener, how its connection manager takes
// HTTP/1.0: "-" not at all, else "accept" and the default host given.
func http10Of(t *testing.T, gw *envoy.Gateway) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range gw.Listeners {
		for _, fc := range l.FilterChains {
			m := &hcmv3.HttpConnectionManager{}
			if err := fc.Filters[len(fc.Filters)-1].GetTypedConfig().UnmarshalTo(m); err != nil {
				t.Fatalf("listener %s: %v", l.Name, err)
			}
			o := m.GetHttpProtocolOptions()
			out[l.Name] = "-"
			if o.GetAcceptHttp_10() {
				out[l.Name] = "accept " + o.GetDefaultHostForHttp_10()
			}
		}
	}
	return out
}

// directStatuses are the statuses of the direct responses of the routes
// of the RouteConfiguration named rc, "" for one that forwards.
func directStatuses(gw *envoy.Gateway, rc string) []string {
	var out []string
	for _, c := range gw.RouteConfigurations {
		if c.Name != rc {
			continue
		}
		for _, vh := range c.VirtualHosts {
			for _, r := range vh.Routes {
				st := ""
				if d := r.GetDirectResponse(); d != nil {
					st = fmt.Sprint(d.Status)
				}
				out = append(out, st)
			}
		}
	}
	return out
}

// TestEnvoyGatewayHTTP10DefaultHost: a ClientTrafficPolicy's http1.http10
// makes Envoy Gateway accept HTTP/1.0; with useDefaultHost, a request
// without a Host gets the listener's hostname, else, on a wildcard-only
// listener, the one route hostname without a wildcard there. Where it
// finds none, the policy is refused on that listener only: its routes
// answer 500 and its connection manager takes no HTTP/1.0, while the
// other listeners keep the policy — what explain and status say too.
func TestEnvoyGatewayHTTP10DefaultHost(t *testing.T) {
	wild := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: wild, namespace: app}\nspec:\n  parentRefs: [{name: gw, sectionName: b}]\n  hostnames: ['*.example.com']\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n"
	named := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: named, namespace: app}\nspec:\n  parentRefs: [{name: gw, sectionName: b}]\n  hostnames: [www.example.com]\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n"
	tests := []struct {
		name, input string
		want        map[string]string
		answers8080 []string
	}{
		{"HTTP/1.0 without a default host", http10Base + "  http1: {http10: {}}\n",
			map[string]string{"listener~80": "accept ", "listener~8080": "accept "}, []string{""}},
		{"the listener's hostname, or the one named route's", http10Base + "  http1: {http10: {useDefaultHost: true}}\n" + named,
			map[string]string{"listener~80": "accept a.example.com", "listener~8080": "accept www.example.com"}, []string{"", ""}},
		{"no named route: refused on that listener alone", http10Base + "  http1: {http10: {useDefaultHost: true}}\n" + wild,
			map[string]string{"listener~80": "accept a.example.com", "listener~8080": "-"}, []string{"500", "500"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw := renderInline(t, tt.input, "envoygateway")
			if got := http10Of(t, gw); !maps.Equal(got, tt.want) {
				t.Errorf("HTTP/1.0 by listener\n got %v\nwant %v", got, tt.want)
			}
			if got := directStatuses(gw, "listener~8080"); !slices.Equal(got, tt.answers8080) {
				t.Errorf("routes of listener~8080 answer %q, want %q", got, tt.answers8080)
			}
		})
	}
}

// TestEnvoyGatewayReadsNoTLSOptions: Envoy Gateway reads no tls.options
// key, so on its Gateways another controller's options (kgateway's TLS
// version and ciphers, one of them invalid) neither configure an HTTPS
// listener nor leave it unserved: its status says Programmed, and render
// serves it with Envoy Gateway's TLS.
func TestEnvoyGatewayReadsNoTLSOptions(t *testing.T) {
	in := egClass + egGateway("infra", "  - {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert}], options: {kgateway.dev/min-tls-version: bogus, kgateway.dev/cipher-suites: ECDHE-RSA-AES128-GCM-SHA256}}}\n") +
		egRoute("infra") + secrettest.TLSSecretYAML("infra", "cert", "www.example.com")
	gw := renderInline(t, in, "envoygateway")
	var tls *tlsv3.DownstreamTlsContext
	for _, l := range gw.Listeners {
		for _, fc := range l.FilterChains {
			tls = &tlsv3.DownstreamTlsContext{}
			if err := fc.GetTransportSocket().GetTypedConfig().UnmarshalTo(tls); err != nil {
				t.Fatal(err)
			}
		}
	}
	if tls == nil {
		t.Fatal("the HTTPS listener is not served")
	}
	p := tls.GetCommonTlsContext().GetTlsParams()
	if p.GetTlsMinimumProtocolVersion() != tlsv3.TlsParameters_TLSv1_2 || len(p.GetCipherSuites()) > 0 || strings.Join(tls.GetCommonTlsContext().GetAlpnProtocols(), ",") != "h2,http/1.1" {
		t.Errorf("TLS %v, want Envoy Gateway's: TLS 1.2 at least, no cipher list, ALPN h2,http/1.1", tls.GetCommonTlsContext())
	}
}

// TestEnvoyGatewayUnprogrammedListener: Envoy Gateway builds nothing for
// a listener its verdict leaves unprogrammed (Programmed False: here an
// allowedRoutes selector that does not parse), so render serves only the
// other listener.
func TestEnvoyGatewayUnprogrammedListener(t *testing.T) {
	in := egClass + egGateway("infra",
		"  - {name: bad, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: Selector, selector: {matchExpressions: [{key: team, operator: In, values: []}]}}}}\n",
		"  - {name: good, protocol: HTTP, port: 8080}\n") + egRoute("infra")
	var got []string
	for _, l := range renderInline(t, in, "envoygateway").Listeners {
		got = append(got, l.Name)
	}
	if !slices.Equal(got, []string{"listener~8080"}) {
		t.Errorf("listeners %v, want the programmed one's only (listener~8080)", got)
	}
}

// TestEnvoyGatewayUncertifiedListener: an HTTPS listener whose
// certificates Envoy Gateway cannot use (validateTerminateModeAndGetTLSSecrets,
// tls.go parseCertsFromTLSSecretsData: a Secret without tls.key, an
// expired certificate, a key that is not the certificate's) is not
// programmed, so it gets no Envoy listener; one valid certificate beside
// an invalid one is enough (PartiallyInvalidCertificateRef, Programmed
// True). The HTTP listener of port 8080 is there in every shape.
func TestEnvoyGatewayUncertifiedListener(t *testing.T) {
	now := time.Now()
	good, goodKey := selfSigned(t, now.AddDate(-1, 0, 0), now.AddDate(5, 0, 0))
	old, oldKey := selfSigned(t, now.AddDate(-3, 0, 0), now.AddDate(-1, 0, 0))
	tlsSecret := func(name string, kv ...string) string {
		return "---\n" + secrettest.SecretYAML("infra", name, kv...) + "type: kubernetes.io/tls\n"
	}
	for _, tc := range []struct {
		name, secrets, refs string
		want                []string
	}{
		{"a Secret without tls.key", tlsSecret("c1", "tls.crt", good), "[{name: c1}]", []string{"listener~8080"}},
		{"an expired certificate", tlsSecret("c1", "tls.crt", old, "tls.key", oldKey), "[{name: c1}]", []string{"listener~8080"}},
		{"a key that is not the certificate's", tlsSecret("c1", "tls.crt", good, "tls.key", oldKey), "[{name: c1}]", []string{"listener~8080"}},
		{"a valid pair", tlsSecret("c1", "tls.crt", good, "tls.key", goodKey), "[{name: c1}]", []string{"listener~8080", "listener~8443"}},
		{"an expired certificate beside a valid one", tlsSecret("c1", "tls.crt", old, "tls.key", oldKey) + tlsSecret("c2", "tls.crt", good, "tls.key", goodKey), "[{name: c1}, {name: c2}]", []string{"listener~8080", "listener~8443"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := egClass + egGateway("infra",
				"  - {name: secure, protocol: HTTPS, port: 8443, hostname: www.example.com, tls: {certificateRefs: "+tc.refs+"}}\n",
				"  - {name: plain, protocol: HTTP, port: 8080}\n") + tc.secrets + egRoute("infra")
			var got []string
			for _, l := range renderInline(t, in, "envoygateway").Listeners {
				got = append(got, l.Name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("listeners %v, want %v", got, tc.want)
			}
		})
	}
}

// selfSigned is a certificate valid from..to and its key, PEM.
func selfSigned(t *testing.T, from, to time.Time) (crt, key string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "www.example.com"}, DNSNames: []string{"www.example.com"},
		NotBefore: from, NotAfter: to, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}))
}

// egMirrorBase is an Envoy Gateway HTTP Gateway with the backends a
// RequestMirror may copy requests to: a Service with an endpoint, one
// whose EndpointSlice lists none for its port, and Envoy Gateway Backends
// (an FQDN, a DynamicResolver, one whose own CA ConfigMap is missing).
const egMirrorBase = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: eg
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: app, namespace: infra}
spec: {ports: [{port: 8080}]}
---
apiVersion: v1
kind: Service
metadata: {name: idle, namespace: infra}
spec: {ports: [{port: 8080}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: idle-1, namespace: infra, labels: {kubernetes.io/service-name: idle}}
addressType: IPv4
ports: [{port: 8080}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: ext, namespace: infra}
spec: {endpoints: [{fqdn: {hostname: mirror.example.com, port: 8443}}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: dyn, namespace: infra}
spec: {type: DynamicResolver}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: no-ca, namespace: infra}
spec: {endpoints: [{fqdn: {hostname: mirror.example.com, port: 443}}], tls: {caCertificateRefs: [{group: "", kind: ConfigMap, name: nope}]}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
`

// TestEnvoyGatewayMirrors: Envoy Gateway mirrors to the destination it
// builds for a RequestMirror's backendRef — an Envoy Gateway Backend too,
// named by its kind in any group it reads (processRequestMirrorFilter →
// processDestination) — keeping the Host (buildXdsRequestMirrorPolicies);
// a mirror it does not configure (its Service has no endpoint: the rule
// is still served) copies nothing, as the route verdict says.
func TestEnvoyGatewayMirrors(t *testing.T) {
	tests := []struct {
		name, rule string
		// forward is the cluster the route forwards to, "" for a direct
		// response; mirrors are its mirror policies' clusters.
		forward string
		mirrors []string
	}{
		{"a Backend", "  - filters: [{type: RequestMirror, requestMirror: {backendRef: {group: gateway.envoyproxy.io, kind: Backend, name: ext}}}]\n    backendRefs: [{name: app, port: 8080}]\n",
			"kube_infra_app_8080", []string{"backend_infra_ext_0"}},
		{"a Backend named without its group, with a port", "  - filters: [{type: RequestMirror, requestMirror: {backendRef: {kind: Backend, name: ext, port: 9}}}]\n    backendRefs: [{name: app, port: 8080}]\n",
			"kube_infra_app_8080", []string{"backend_infra_ext_9"}},
		{"a DynamicResolver Backend", "  - filters: [{type: RequestMirror, requestMirror: {backendRef: {group: gateway.envoyproxy.io, kind: Backend, name: dyn}, percent: 10}}]\n    backendRefs: [{name: app, port: 8080}]\n",
			"kube_infra_app_8080", []string{"backend_infra_dyn_0"}},
		{"a Service without an endpoint beside a Backend: only the Backend is mirrored to", "  - filters: [{type: RequestMirror, requestMirror: {backendRef: {name: idle, port: 8080}}}, {type: RequestMirror, requestMirror: {backendRef: {group: gateway.envoyproxy.io, kind: Backend, name: ext}}}]\n    backendRefs: [{name: app, port: 8080}]\n",
			"kube_infra_app_8080", []string{"backend_infra_ext_0"}},
		{"a Backend whose CA is missing: the rule answers 500", "  - filters: [{type: RequestMirror, requestMirror: {backendRef: {group: gateway.envoyproxy.io, kind: Backend, name: no-ca}}}]\n    backendRefs: [{name: app, port: 8080}]\n",
			"", nil},
		{"a backendRef to a Backend in the multicluster group is Envoy Gateway's Backend", "  - backendRefs: [{group: multicluster.x-k8s.io, kind: Backend, name: ext}]\n",
			"backend_infra_ext_0", nil},
		{"a backendRef to a Service in Envoy Gateway's group is the Service", "  - backendRefs: [{group: gateway.envoyproxy.io, kind: Service, name: app, port: 8080}]\n",
			"kube_infra_app_8080", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw := renderInline(t, egMirrorBase+tt.rule, "envoygateway", backendOn)
			var act *routev3.RouteAction
			for _, rc := range gw.RouteConfigurations {
				for _, vh := range rc.VirtualHosts {
					for _, r := range vh.Routes {
						act = r.GetRoute()
					}
				}
			}
			if got := act.GetCluster(); got != tt.forward {
				t.Errorf("forwards to %q, want %q", got, tt.forward)
			}
			var got []string
			for _, m := range act.GetRequestMirrorPolicies() {
				got = append(got, m.Cluster)
				if !m.DisableShadowHostSuffixAppend {
					t.Errorf("mirror to %s appends -shadow to the Host; Envoy Gateway keeps it", m.Cluster)
				}
			}
			if !slices.Equal(got, tt.mirrors) {
				t.Errorf("mirrors to %v, want %v", got, tt.mirrors)
			}
			clusters := map[string]bool{}
			for _, c := range gw.Clusters {
				clusters[c.Name] = true
			}
			for _, c := range tt.mirrors {
				if !clusters[c] {
					t.Errorf("mirror cluster %s not rendered", c)
				}
			}
		})
	}
}
