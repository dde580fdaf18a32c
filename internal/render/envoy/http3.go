package envoy

import (
	"cmp"
	"slices"
	"strconv"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	quicv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/quic/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
)

// HTTP/3 beside HTTPS, where a field turns it on (policy.Fragment.HTTP3,
// set by the kind whose controller serves it so): a UDP listener on the port, <listener>~quic, whose filter chains are
// the HTTPS chains that offer it, each with an HTTP/3 connection manager
// and its TLS context in a QUIC transport offering ALPN h3; and every
// route of those chains advertising it to HTTP/1 and HTTP/2 clients in an
// alt-svc response header (for a day). A chain that validates client
// certificates is not served over QUIC (quicCapable).

// servesHTTP3 reports whether a field of an HTTPS listener turns HTTP/3 on.
func servesHTTP3(fields []*rendered) bool {
	return slices.ContainsFunc(fields, func(f *rendered) bool { return f.http3 })
}

// quicCapable reports whether a chain can be served over QUIC: it
// terminates TLS, and validates no client certificate (Envoy does not
// over QUIC, so HTTP/3 stays off there; the kind that turns it on says
// so in its policy's status).
func quicCapable(fc *listenerv3.FilterChain) bool {
	tls := &tlsv3.DownstreamTlsContext{}
	if fc.GetTransportSocket().GetTypedConfig().UnmarshalTo(tls) != nil {
		return false
	}
	return tls.GetCommonTlsContext().GetValidationContextType() == nil && !tls.GetRequireClientCertificate().GetValue()
}

// quicChain is the HTTP/3 twin of a TLS-terminating HTTP filter chain.
func quicChain(fc *listenerv3.FilterChain) *listenerv3.FilterChain {
	q := proto.Clone(fc).(*listenerv3.FilterChain)
	for _, f := range q.Filters {
		m := &hcmv3.HttpConnectionManager{}
		if f.GetTypedConfig().UnmarshalTo(m) != nil {
			continue // not the connection manager
		}
		m.CodecType = hcmv3.HttpConnectionManager_HTTP3
		m.Http3ProtocolOptions = &corev3.Http3ProtocolOptions{}
		f.ConfigType = &listenerv3.Filter_TypedConfig{TypedConfig: mustAny(m)}
	}
	tls := &tlsv3.DownstreamTlsContext{}
	if q.GetTransportSocket().GetTypedConfig().UnmarshalTo(tls) == nil {
		if tls.CommonTlsContext == nil {
			tls.CommonTlsContext = &tlsv3.CommonTlsContext{}
		}
		tls.CommonTlsContext.AlpnProtocols = []string{"h3"}
		q.TransportSocket = &corev3.TransportSocket{
			Name:       "envoy.transport_sockets.quic",
			ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(&quicv3.QuicDownstreamTransport{DownstreamTlsContext: tls})},
		}
	}
	return q
}

// quicListener is the UDP listener of a port's HTTP/3 chains, on the
// address the port's TCP listener binds.
func quicListener(name, addr string, compat bool, port int32, chains []*listenerv3.FilterChain) *listenerv3.Listener {
	slices.SortFunc(chains, func(a, b *listenerv3.FilterChain) int { return cmp.Compare(a.Name, b.Name) })
	return &listenerv3.Listener{
		Name: name + "~quic",
		Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
			Protocol: corev3.SocketAddress_UDP, Address: addr, Ipv4Compat: compat, PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: uint32(port)},
		}}},
		FilterChains: chains,
		// drained only when modified, as the QUIC listeners of the data
		// plane whose kind turns HTTP/3 on are
		DrainType: listenerv3.Listener_MODIFY_ONLY,
		UdpListenerConfig: &listenerv3.UdpListenerConfig{
			QuicOptions:            &listenerv3.QuicProtocolOptions{},
			DownstreamSocketConfig: &corev3.UdpSocketConfig{},
		},
	}
}

// advertiseHTTP3 adds the alt-svc header to every route of a
// RouteConfiguration: HTTP/3 on the listener's port, for 86400 s.
func advertiseHTTP3(rc *routev3.RouteConfiguration, port int32) {
	value := `h3=":` + strconv.Itoa(int(port)) + `"; ma=86400`
	for _, vh := range rc.VirtualHosts {
		for _, r := range vh.Routes {
			r.ResponseHeadersToAdd = append(r.ResponseHeadersToAdd, &corev3.HeaderValueOption{
				Header: &corev3.HeaderValue{Key: "alt-svc", Value: value},
			})
		}
	}
}
