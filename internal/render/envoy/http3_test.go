package envoy

import (
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	quicv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/quic/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

func tlsChain(tls *tlsv3.DownstreamTlsContext) *listenerv3.FilterChain {
	fc := &listenerv3.FilterChain{Name: "https", Filters: []*listenerv3.Filter{{
		Name:       "envoy.filters.network.http_connection_manager",
		ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: mustAny(&hcmv3.HttpConnectionManager{StatPrefix: "http"})},
	}}}
	if tls != nil {
		fc.TransportSocket = &corev3.TransportSocket{Name: "envoy.transport_sockets.tls", ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(tls)}}
	}
	return fc
}

// TestQUICCapable: only a chain that terminates TLS without validating
// client certificates is served over QUIC.
func TestQUICCapable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chain *listenerv3.FilterChain
		want  bool
	}{
		{"plain text", tlsChain(nil), false},
		{"TLS", tlsChain(&tlsv3.DownstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{AlpnProtocols: []string{"h2"}}}), true},
		{"client certificates validated", tlsChain(&tlsv3.DownstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{
			ValidationContextType: &tlsv3.CommonTlsContext_ValidationContextSdsSecretConfig{ValidationContextSdsSecretConfig: &tlsv3.SdsSecretConfig{Name: "ca"}}}}), false},
		{"client certificate required", tlsChain(&tlsv3.DownstreamTlsContext{RequireClientCertificate: wrapperspb.Bool(true)}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := quicCapable(tc.chain); got != tc.want {
				t.Errorf("quicCapable %v, want %v", got, tc.want)
			}
		})
	}
}

// TestQUICChain: the HTTP/3 twin speaks HTTP/3 and offers only h3 in a
// QUIC transport around the same TLS settings; the original is untouched.
func TestQUICChain(t *testing.T) {
	orig := tlsChain(&tlsv3.DownstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{
		AlpnProtocols: []string{"h2", "http/1.1"}, TlsParams: &tlsv3.TlsParameters{TlsMinimumProtocolVersion: tlsv3.TlsParameters_TLSv1_3}}})
	q := quicChain(orig)
	m := &hcmv3.HttpConnectionManager{}
	if err := q.Filters[0].GetTypedConfig().UnmarshalTo(m); err != nil {
		t.Fatal(err)
	}
	if m.CodecType != hcmv3.HttpConnectionManager_HTTP3 || m.Http3ProtocolOptions == nil {
		t.Errorf("connection manager %v, want the HTTP/3 codec", m)
	}
	qt := &quicv3.QuicDownstreamTransport{}
	if err := q.GetTransportSocket().GetTypedConfig().UnmarshalTo(qt); err != nil {
		t.Fatalf("transport socket %v: %v", q.GetTransportSocket(), err)
	}
	common := qt.GetDownstreamTlsContext().GetCommonTlsContext()
	if alpn := common.GetAlpnProtocols(); len(alpn) != 1 || alpn[0] != "h3" {
		t.Errorf("ALPN %q, want [h3]", alpn)
	}
	if common.GetTlsParams().GetTlsMinimumProtocolVersion() != tlsv3.TlsParameters_TLSv1_3 {
		t.Errorf("TLS settings lost: %v", common)
	}
	if orig.GetTransportSocket().GetName() != "envoy.transport_sockets.tls" {
		t.Errorf("original chain changed: %v", orig.GetTransportSocket())
	}
	rc := &routev3.RouteConfiguration{VirtualHosts: []*routev3.VirtualHost{{Routes: []*routev3.Route{{Name: "a"}, {Name: "b"}}}}}
	advertiseHTTP3(rc, 8443)
	for _, r := range rc.VirtualHosts[0].Routes {
		if h := r.GetResponseHeadersToAdd(); len(h) != 1 || h[0].GetHeader().GetKey() != "alt-svc" || h[0].GetHeader().GetValue() != `h3=":8443"; ma=86400` {
			t.Errorf("route %s adds %v, want alt-svc for port 8443", r.Name, h)
		}
	}
}
