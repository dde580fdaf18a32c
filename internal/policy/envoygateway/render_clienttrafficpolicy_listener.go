//lint:file-ignore SA1019 Envoy Gateway still reads its deprecated fields (users set them), so gwpol reads them too.

package envoygateway

import (
	"fmt"
	"math"
	"strconv"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	grpcwebv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/grpc_web/v3"
	proxyprotocolv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/listener/proxy_protocol/v3"
	connlimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/connection_limit/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	customheaderv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/original_ip_detection/custom_header/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	"k8s.io/apimachinery/pkg/api/resource"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// This file renders the ClientTrafficPolicy fields that configure the
// listener itself (socket options, listener filters, buffer and accept
// limits), the network filters before the connection manager (a
// connection limit) and more of the connection manager (paths, headers,
// HTTP/2, gRPC-Web), as Envoy Gateway's listener translation sets them
// over its baseline (render_target.go).

// listenerSettings is a field's fragment for the listener and its
// chains: fr, or the unsupported one where the field is one HTTP
// listener's among others of its port (see connectionManager).
func listenerSettings(field string, at placement, fr policy.Fragment) []policy.Fragment {
	if at.shared() {
		return []policy.Fragment{{Capability: "envoygateway.ClientTrafficPolicy." + field + ".one-listener-of-a-shared-port"}}
	}
	return []policy.Fragment{fr}
}

// renderClientTCPKeepalive is TCP keepalive on the clients' connections:
// the socket options Envoy Gateway sets on the listener (SO_KEEPALIVE,
// then TCP_KEEPCNT, TCP_KEEPIDLE and TCP_KEEPINTVL where given, Linux's
// numbers), times in whole seconds.
func renderClientTCPKeepalive(k *egv1a1.TCPKeepalive, _ policyName, at placement) ([]policy.Fragment, error) {
	if k == nil {
		k = &egv1a1.TCPKeepalive{}
	}
	const solSocket, ipprotoTCP = 1, 6
	opts := []*corev3.SocketOption{{Description: "socket option to enable tcp keep alive", Level: solSocket, Name: 9, Value: &corev3.SocketOption_IntValue{IntValue: 1}}}
	if k.Probes != nil {
		opts = append(opts, &corev3.SocketOption{Description: "socket option for keep alive probes", Level: ipprotoTCP, Name: 6, Value: &corev3.SocketOption_IntValue{IntValue: int64(*k.Probes)}})
	}
	for _, t := range []struct {
		name, desc string
		v          *gwapiv1.Duration
		opt        int64
	}{{"idleTime", "socket option for keep alive idle time", k.IdleTime, 4}, {"interval", "socket option for keep alive interval", k.Interval, 5}} {
		if t.v == nil {
			continue
		}
		d, err := time.ParseDuration(string(*t.v))
		if err != nil {
			return nil, fmt.Errorf("tcpKeepalive.%s: %w", t.name, err)
		}
		opts = append(opts, &corev3.SocketOption{Description: t.desc, Level: ipprotoTCP, Name: t.opt, Value: &corev3.SocketOption_IntValue{IntValue: int64(d / time.Second)}})
	}
	return listenerSettings("tcpKeepalive", at, policy.Fragment{Listener: &listenerv3.Listener{SocketOptions: opts}}), nil
}

// renderClientConnection: the listener's per-connection buffer and how
// many connections it accepts per socket event (0: as many as there are,
// Envoy's default), a connection_limit network filter before the
// connection manager, and the connection manager's limits on a
// connection's lifetime, requests and streams — with HTTP/1 connections
// closed only after a response (http1_safe_max_connection_duration),
// as Envoy Gateway does unless spec.http1 says otherwise.
func renderClientConnection(c *egv1a1.ClientConnection, who policyName, at placement) ([]policy.Fragment, error) {
	if k := unrenderedFields(who.at, c, "bufferLimit", "maxAcceptPerSocketEvent", "connectionLimit"); k != "" {
		return []policy.Fragment{{Capability: "envoygateway.ClientTrafficPolicy.connection." + k}}, nil
	}
	if c == nil {
		c = &egv1a1.ClientConnection{}
	}
	fr := policy.Fragment{}
	l := &listenerv3.Listener{}
	if q := c.BufferLimit; q != nil {
		n, ok := q.AsInt64()
		if !ok || n < 0 || n > math.MaxUint32 {
			return nil, fmt.Errorf("connection.bufferLimit: %s is not a byte count Envoy accepts", q)
		}
		l.PerConnectionBufferLimitBytes = wrapperspb.UInt32(uint32(n))
	}
	if n := c.MaxAcceptPerSocketEvent; n != nil {
		if *n == 0 {
			fr.Unset = append(fr.Unset, "listener.max_connections_to_accept_per_socket_event")
		} else {
			l.MaxConnectionsToAcceptPerSocketEvent = wrapperspb.UInt32(*n)
		}
	}
	fr.Listener = l
	if cl := c.ConnectionLimit; cl != nil {
		if cl.Value != nil {
			if *cl.Value < 0 {
				return nil, fmt.Errorf("connection.connectionLimit.value: %d is negative", *cl.Value)
			}
			f := &connlimitv3.ConnectionLimit{StatPrefix: "connection_limit", MaxConnections: wrapperspb.UInt64(uint64(*cl.Value))}
			d, err := optDuration(cl.CloseDelay)
			if err != nil {
				return nil, fmt.Errorf("connection.connectionLimit.closeDelay: %w", err)
			}
			f.Delay = d
			a, err := anypb.New(f)
			if err != nil {
				return nil, err
			}
			fr.NetworkFilters = append(fr.NetworkFilters, &listenerv3.Filter{Name: "envoy.filters.network.connection_limit", ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: a}})
		}
		common := &corev3.HttpProtocolOptions{}
		m := &hcmv3.HttpConnectionManager{}
		var err error
		if common.MaxConnectionDuration, err = optDuration(cl.MaxConnectionDuration); err != nil {
			return nil, fmt.Errorf("connection.connectionLimit.maxConnectionDuration: %w", err)
		}
		if common.MaxStreamDuration, err = optDuration(cl.MaxStreamDuration); err != nil {
			return nil, fmt.Errorf("connection.connectionLimit.maxStreamDuration: %w", err)
		}
		if cl.MaxRequestsPerConnection != nil {
			common.MaxRequestsPerConnection = wrapperspb.UInt32(*cl.MaxRequestsPerConnection)
		}
		if common.MaxConnectionDuration != nil {
			m.Http1SafeMaxConnectionDuration = true
		}
		if common.MaxConnectionDuration != nil || common.MaxStreamDuration != nil || common.MaxRequestsPerConnection != nil {
			m.CommonHttpProtocolOptions = common
			fr.HCM = m
		}
	}
	return listenerSettings("connection", at, fr), nil
}

// renderProxyProtocol reads the PROXY protocol header clients (a load
// balancer in front) send: the proxy_protocol listener filter, which lets
// connections without one through when optional.
func renderClientProxyProtocol(p *egv1a1.ProxyProtocolSettings, _ policyName, at placement) ([]policy.Fragment, error) {
	return proxyProtocolFilter("proxyProtocol", at, p != nil && p.Optional != nil && *p.Optional)
}

// renderEnableProxyProtocol is the older spelling of a required PROXY
// protocol header.
func renderEnableProxyProtocol(on *bool, _ policyName, at placement) ([]policy.Fragment, error) {
	if on == nil || !*on {
		return nil, nil
	}
	return proxyProtocolFilter("enableProxyProtocol", at, false)
}

func proxyProtocolFilter(field string, at placement, optional bool) ([]policy.Fragment, error) {
	a, err := anypb.New(&proxyprotocolv3.ProxyProtocol{AllowRequestsWithoutProxyProtocol: optional})
	if err != nil {
		return nil, err
	}
	return listenerSettings(field, at, policy.Fragment{Listener: &listenerv3.Listener{ListenerFilters: []*listenerv3.ListenerFilter{{
		Name: "envoy.filters.listener.proxy_protocol", ConfigType: &listenerv3.ListenerFilter_TypedConfig{TypedConfig: a}}}}}), nil
}

// escapedSlashes are spec.path.escapedSlashesAction's values.
var escapedSlashes = map[string]hcmv3.HttpConnectionManager_PathWithEscapedSlashesAction{
	"KeepUnchanged":       hcmv3.HttpConnectionManager_KEEP_UNCHANGED,
	"RejectRequest":       hcmv3.HttpConnectionManager_REJECT_REQUEST,
	"UnescapeAndRedirect": hcmv3.HttpConnectionManager_UNESCAPE_AND_REDIRECT,
	"UnescapeAndForward":  hcmv3.HttpConnectionManager_UNESCAPE_AND_FORWARD,
}

// renderPath: whether the connection manager merges adjacent slashes
// (Envoy Gateway's baseline does) and what it does with escaped ones.
func renderPath(p *egv1a1.PathSettings, _ policyName, at placement) ([]policy.Fragment, error) {
	if p == nil {
		p = &egv1a1.PathSettings{}
	}
	fr := policy.Fragment{HCM: &hcmv3.HttpConnectionManager{}}
	if p.DisableMergeSlashes != nil && *p.DisableMergeSlashes {
		fr.Unset = []string{"hcm.merge_slashes"}
	}
	if s := p.EscapedSlashesAction; s != nil {
		a, ok := escapedSlashes[string(*s)]
		if !ok {
			return nil, fmt.Errorf("path.escapedSlashesAction: unknown value %q", *s)
		}
		fr.HCM = &hcmv3.HttpConnectionManager{PathWithEscapedSlashesAction: a}
	}
	return listenerSettings("path", at, fr), nil
}

// underscores are spec.headers.withUnderscoresAction's values.
var underscores = map[string]corev3.HttpProtocolOptions_HeadersWithUnderscoresAction{
	"Allow":         corev3.HttpProtocolOptions_ALLOW,
	"RejectRequest": corev3.HttpProtocolOptions_REJECT_REQUEST,
	"DropHeader":    corev3.HttpProtocolOptions_DROP_HEADER,
}

// renderHeaders is the connection manager's header handling: a trailing
// dot stripped from the Host, what happens to header names with
// underscores (Envoy Gateway's baseline rejects the request; Allow is
// Envoy's zero value, so it is turned off rather than set), and an
// X-Request-ID from the client kept, and the request headers modified
// before routing and the response headers after it
// (render_headermutation.go). The other header settings are not rendered
// yet.
func renderHeaders(h *egv1a1.HeaderSettings, who policyName, at placement) ([]policy.Fragment, error) {
	if k := unrenderedFields(who.at, h, "host", "withUnderscoresAction", "preserveXRequestID", "xForwardedClientCert", "earlyRequestHeaders", "lateResponseHeaders"); k != "" {
		return []policy.Fragment{{Capability: "envoygateway.ClientTrafficPolicy.headers." + k}}, nil
	}
	if h == nil {
		h = &egv1a1.HeaderSettings{}
	}
	m := &hcmv3.HttpConnectionManager{}
	fr := policy.Fragment{HCM: m}
	if h.Host != nil && h.Host.StripTrailingHostDot != nil {
		m.StripTrailingHostDot = *h.Host.StripTrailingHostDot
	}
	if h.PreserveXRequestID != nil {
		m.PreserveExternalRequestId = *h.PreserveXRequestID
	}
	if s := h.WithUnderscoresAction; s != nil {
		a, ok := underscores[string(*s)]
		if !ok {
			return nil, fmt.Errorf("headers.withUnderscoresAction: unknown value %q", *s)
		}
		if a == corev3.HttpProtocolOptions_ALLOW {
			fr.Unset = []string{"hcm.common_http_protocol_options.headers_with_underscores_action"}
		} else {
			m.CommonHttpProtocolOptions = &corev3.HttpProtocolOptions{HeadersWithUnderscoresAction: a}
		}
	}
	if x := h.XForwardedClientCert; x != nil {
		if err := applyXFCC(x, m); err != nil {
			return nil, err
		}
	}
	if err := applyHeaderModifiers(h, m, &fr); err != nil {
		return nil, err
	}
	return listenerSettings("headers", at, fr), nil
}

// xfccModes are the API's modes; Sanitize, the default, is Envoy's too.
var xfccModes = map[string]hcmv3.HttpConnectionManager_ForwardClientCertDetails{
	"Sanitize":          hcmv3.HttpConnectionManager_SANITIZE,
	"ForwardOnly":       hcmv3.HttpConnectionManager_FORWARD_ONLY,
	"AppendForward":     hcmv3.HttpConnectionManager_APPEND_FORWARD,
	"SanitizeSet":       hcmv3.HttpConnectionManager_SANITIZE_SET,
	"AlwaysForwardOnly": hcmv3.HttpConnectionManager_ALWAYS_FORWARD_ONLY,
}

// apply sets the forwarding mode and, for the modes that add the client
// certificate's details (AppendForward, SanitizeSet), which details: as
// Envoy Gateway does, the other modes ignore certDetailsToAdd.
func applyXFCC(x *egv1a1.XForwardedClientCert, m *hcmv3.HttpConnectionManager) error {
	mode := hcmv3.HttpConnectionManager_SANITIZE
	if x.Mode != nil {
		var ok bool
		if mode, ok = xfccModes[string(*x.Mode)]; !ok {
			return fmt.Errorf("headers.xForwardedClientCert.mode: unknown value %q", *x.Mode)
		}
	}
	m.ForwardClientCertDetails = mode
	if mode != hcmv3.HttpConnectionManager_APPEND_FORWARD && mode != hcmv3.HttpConnectionManager_SANITIZE_SET || len(x.CertDetailsToAdd) == 0 {
		return nil
	}
	d := &hcmv3.HttpConnectionManager_SetCurrentClientCertDetails{}
	for _, c := range x.CertDetailsToAdd {
		switch c {
		case "Subject":
			d.Subject = wrapperspb.Bool(true)
		case "Cert":
			d.Cert = true
		case "Chain":
			d.Chain = true
		case "DNS":
			d.Dns = true
		case "URI":
			d.Uri = true
		default:
			return fmt.Errorf("headers.xForwardedClientCert.certDetailsToAdd: unknown value %q", c)
		}
	}
	m.SetCurrentClientCertDetails = d
	return nil
}

// renderClientHTTP2 is the connection manager's HTTP/2 options over
// Envoy Gateway's: window sizes, the stream limit, whether an invalid
// message ends only its stream or the connection, and PING keepalive.
func renderClientHTTP2(h *egv1a1.HTTP2Settings, _ policyName, at placement) ([]policy.Fragment, error) {
	o, err := http2Settings(h)
	if err != nil {
		return nil, err
	}
	return listenerSettings("http2", at, policy.Fragment{HCM: &hcmv3.HttpConnectionManager{Http2ProtocolOptions: o}}), nil
}

// http2Settings are HTTP/2 options as Envoy Gateway builds them, for the
// clients' connections and the backends' alike (gatewayapi http.go
// buildIRHTTP2Settings; xds translator listener.go and cluster.go
// buildHTTP2Settings): the window sizes given, the stream limit, whether
// an invalid message ends only its stream or the connection, and PING
// keepalive.
func http2Settings(h *egv1a1.HTTP2Settings) (*corev3.Http2ProtocolOptions, error) {
	if h == nil {
		h = &egv1a1.HTTP2Settings{}
	}
	o := &corev3.Http2ProtocolOptions{}
	for _, w := range []struct {
		name string
		q    *resource.Quantity
		set  func(*wrapperspb.UInt32Value)
	}{
		{"initialStreamWindowSize", h.InitialStreamWindowSize, func(x *wrapperspb.UInt32Value) { o.InitialStreamWindowSize = x }},
		{"initialConnectionWindowSize", h.InitialConnectionWindowSize, func(x *wrapperspb.UInt32Value) { o.InitialConnectionWindowSize = x }},
	} {
		if w.q == nil {
			continue
		}
		n, ok := w.q.AsInt64()
		if !ok || n < 65535 || n > math.MaxInt32 {
			return nil, fmt.Errorf("http2.%s: %s is out of range", w.name, w.q)
		}
		w.set(wrapperspb.UInt32(uint32(n)))
	}
	if h.MaxConcurrentStreams != nil {
		o.MaxConcurrentStreams = wrapperspb.UInt32(*h.MaxConcurrentStreams)
	}
	if s := h.OnInvalidMessage; s != nil {
		switch string(*s) {
		case "TerminateConnection":
			o.OverrideStreamErrorOnInvalidHttpMessage = wrapperspb.Bool(false)
		case "TerminateStream":
			o.OverrideStreamErrorOnInvalidHttpMessage = wrapperspb.Bool(true)
		default:
			return nil, fmt.Errorf("http2.onInvalidMessage: unknown value %q", *s)
		}
	}
	if k := h.ConnectionKeepalive; k != nil {
		ka := &corev3.KeepaliveSettings{}
		var err error
		if ka.Interval, err = optDuration(k.Interval); err != nil {
			return nil, fmt.Errorf("http2.connectionKeepalive.interval: %w", err)
		}
		if ka.Timeout, err = optDuration(k.Timeout); err != nil {
			return nil, fmt.Errorf("http2.connectionKeepalive.timeout: %w", err)
		}
		if ka.ConnectionIdleInterval, err = optDuration(k.IdleInterval); err != nil {
			return nil, fmt.Errorf("http2.connectionKeepalive.idleInterval: %w", err)
		}
		if k.IntervalJitter != nil {
			ka.IntervalJitter = &typev3.Percent{Value: float64(*k.IntervalJitter)}
		}
		o.ConnectionKeepalive = ka
	}
	return o, nil
}

// renderGRPC: gRPC-Web (browsers' gRPC) translated on every route of the
// listener — the grpc_web filter, on in the chain.
func renderGRPC(g *egv1a1.GRPCSettings, _ policyName, at placement) ([]policy.Fragment, error) {
	if g == nil || g.EnableWeb == nil || !*g.EnableWeb {
		return nil, nil
	}
	return listenerSettings("grpc", at, policy.Fragment{Filter: &policy.HTTPFilter{
		Name: "envoy.filters.http.grpc_web", Typed: &grpcwebv3.GrpcWeb{}, Order: orderGRPCWeb, Enabled: true}}), nil
}

// renderHTTP3 serves HTTP/3 beside HTTPS on the listeners that terminate
// TLS (policy.Fragment.HTTP3: the QUIC listener and the alt-svc header,
// as internal/render/envoy builds them for Envoy Gateway's shape).
func renderHTTP3(_ *egv1a1.HTTP3Settings, _ policyName, at placement) ([]policy.Fragment, error) {
	return listenerSettings("http3", at, policy.Fragment{HTTP3: true}), nil
}

// customHeaderIP is the client address taken from a header of the
// client's choosing (Envoy's custom_header original IP detection),
// trusted as the client's; failClosed answers 403 when it is missing or
// not an address.
func customHeaderIP(name string, failClosed bool) (*corev3.TypedExtensionConfig, error) {
	cfg := &customheaderv3.CustomHeaderConfig{HeaderName: name, AllowExtensionToSetAddressAsTrusted: true}
	if failClosed {
		cfg.RejectWithStatus = &typev3.HttpStatus{Code: typev3.StatusCode_Forbidden}
	}
	a, err := anypb.New(cfg)
	if err != nil {
		return nil, err
	}
	return &corev3.TypedExtensionConfig{Name: "envoy.extensions.http.original_ip_detection.custom_header", TypedConfig: a}, nil
}

// ignoredUpgrades are spec.http1.ignoredUpgradeTypes as Envoy string
// matchers.
func ignoredUpgrades(types []egv1a1.StringMatch) ([]*matcherv3.StringMatcher, error) {
	var out []*matcherv3.StringMatcher
	for i, t := range types {
		m := &matcherv3.StringMatcher{}
		switch deref(t.Type) {
		case "Exact", "":
			m.MatchPattern = &matcherv3.StringMatcher_Exact{Exact: t.Value}
		case "Prefix":
			m.MatchPattern = &matcherv3.StringMatcher_Prefix{Prefix: t.Value}
		case "Suffix":
			m.MatchPattern = &matcherv3.StringMatcher_Suffix{Suffix: t.Value}
		case "RegularExpression":
			m.MatchPattern = &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: t.Value}}
		default:
			return nil, fmt.Errorf("http1.ignoredUpgradeTypes[%s].type: unknown value %q", strconv.Itoa(i), deref(t.Type))
		}
		out = append(out, m)
	}
	return out, nil
}
