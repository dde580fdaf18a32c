package envoygateway

import (
	"fmt"
	"net/netip"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	preservecasev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/header_formatters/preserve_case/v3"
	xffv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/original_ip_detection/xff/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// This file renders the ClientTrafficPolicy fields that configure the
// HTTP connection manager of the listeners a policy targets, as Envoy
// Gateway's listener translation sets them. gwpol serves all HTTP
// listeners of a port through one connection manager, so a policy on one
// of several HTTP listeners sharing a port (a sectionName: a
// virtual-host-level merge) cannot be expressed: such a value is
// unsupported and fails the listener's routes closed, rather than
// reaching its port neighbours. On an HTTP listener alone on its port,
// and on an HTTPS listener, the settings are the listener's own.

// placement is where a field's merge configures the data plane: its
// scope, and for one HTTP listener's (ScopeVirtualHost) whether other
// HTTP listeners share its port.
type placement struct {
	scope      policy.Scope
	sharedPort bool
}

// shared reports whether the settings would reach the port's other
// listeners: gwpol serves all HTTP listeners of a port through one
// connection manager.
func (p placement) shared() bool { return p.scope == policy.ScopeVirtualHost && p.sharedPort }

// connectionManager is a field's fragment: the connection manager
// settings, or the unsupported one where they cannot apply.
func connectionManager(field string, at placement, m *hcmv3.HttpConnectionManager) []policy.Fragment {
	return listenerSettings(field, at, policy.Fragment{HCM: m})
}

// renderHTTP1 is the connection manager's HTTP/1 options: trailers,
// header names sent in the case they came in (the preserve_case
// formatter), the Upgrade values left alone (not upgraded), and HTTP/1
// connections closed at the maximum duration even mid-request (Envoy
// Gateway waits for the response otherwise, see renderClientConnection),
// and HTTP/1.0 accepted (xds translator listener.go:
// buildHTTPProtocolOptions), a request without a Host given the
// listener's default host where useDefaultHost asks for it
// (policy.Fragment.HTTP10DefaultHost: the host depends on the listener
// and its routes, listenerDefaultHost). Envoy Gateway gives the clusters
// of the HTTP routes the listener serves the same trailers, header case
// and HTTP/1.0 (xds translator translator.go:
// processHTTPListenerXdsTranslation passes the listener's HTTP1 to each
// route's cluster; cluster.go: buildTypedExtensionProtocolOptions
// (requiresHTTP1Options), buildHTTP1Settings): a finishing step on the
// route's cluster (policy.Fragment.ClusterFinish, withHTTP1Options),
// render taking it from the listener that shaped the rule's cluster.
func renderHTTP1(h *egv1a1.HTTP1Settings, who policyName, at placement) ([]policy.Fragment, error) {
	if k := unrenderedFields(who.at, h, "enableTrailers", "preserveHeaderCase", "disableSafeMaxConnectionDuration", "ignoredUpgradeTypes", "http10"); k != "" {
		return []policy.Fragment{{Capability: "envoygateway.ClientTrafficPolicy.http1." + k}}, nil
	}
	if h == nil {
		h = &egv1a1.HTTP1Settings{}
	}
	fr := policy.Fragment{}
	if h.DisableSafeMaxConnectionDuration != nil && *h.DisableSafeMaxConnectionDuration {
		fr.Unset = []string{"hcm.http1_safe_max_connection_duration"}
	}
	opts := &corev3.Http1ProtocolOptions{EnableTrailers: h.EnableTrailers != nil && *h.EnableTrailers}
	if h.PreserveHeaderCase != nil && *h.PreserveHeaderCase {
		pc, err := anypb.New(&preservecasev3.PreserveCaseFormatterConfig{})
		if err != nil {
			return nil, err
		}
		opts.HeaderKeyFormat = &corev3.Http1ProtocolOptions_HeaderKeyFormat{HeaderFormat: &corev3.Http1ProtocolOptions_HeaderKeyFormat_StatefulFormatter{
			StatefulFormatter: &corev3.TypedExtensionConfig{Name: "preserve_case", TypedConfig: pc}}}
	}
	ignored, err := ignoredUpgrades(h.IgnoredUpgradeTypes)
	if err != nil {
		return nil, err
	}
	opts.IgnoreHttp_11Upgrade = ignored
	if h.HTTP10 != nil {
		opts.AcceptHttp_10 = true
		fr.HTTP10DefaultHost = h.HTTP10.UseDefaultHost != nil && *h.HTTP10.UseDefaultHost
	}
	if opts.EnableTrailers || opts.HeaderKeyFormat != nil || len(ignored) > 0 || opts.AcceptHttp_10 {
		fr.HCM = &hcmv3.HttpConnectionManager{HttpProtocolOptions: opts}
	}
	if opts.EnableTrailers || opts.HeaderKeyFormat != nil || opts.AcceptHttp_10 {
		// The clusters of the listener's HTTP routes speak HTTP/1.1
		// upstream with the same trailers, header case and HTTP/1.0
		// (not ignoredUpgradeTypes, a downstream setting).
		up := &corev3.Http1ProtocolOptions{EnableTrailers: opts.EnableTrailers, HeaderKeyFormat: opts.HeaderKeyFormat, AcceptHttp_10: opts.AcceptHttp_10}
		fr.ClusterFinish = func(m proto.Message) { withHTTP1Options(m, up) }
	}
	if fr.HCM == nil && fr.Unset == nil {
		return nil, nil
	}
	return listenerSettings("http1", at, fr), nil
}

// renderScheme: MatchBackend sets the :scheme sent upstream to the
// upstream connection's (https to a TLS backend); MatchClient is Envoy's
// default.
func renderScheme(scheme *egv1a1.SchemeHeaderTransform, _ policyName, at placement) ([]policy.Fragment, error) {
	s := deref(scheme)
	switch s {
	case "MatchClient":
		return nil, nil
	case "MatchBackend":
		return connectionManager("scheme", at, &hcmv3.HttpConnectionManager{SchemeHeaderTransformation: &corev3.SchemeHeaderTransformation{MatchUpstream: true}}), nil
	}
	return nil, fmt.Errorf("scheme: unknown value %q", s)
}

// renderClientIPDetection: the client's address taken from
// X-Forwarded-For — through Envoy's xff original IP detection extension,
// trusting the listed CIDRs or (one hop fewer than configured, as Envoy
// Gateway keeps compatible with Envoy's counting) the last hops, and then
// not the connection's own address; or from a header of the client's
// choosing (customHeader). The direct source IP is Envoy's default.
func renderClientIPDetection(c *egv1a1.ClientIPDetectionSettings, _ policyName, at placement) ([]policy.Fragment, error) {
	if c == nil {
		return nil, nil
	}
	if ch := c.CustomHeader; ch != nil {
		ext, err := customHeaderIP(ch.Name, ch.FailClosed != nil && *ch.FailClosed)
		if err != nil {
			return nil, err
		}
		return connectionManager("clientIPDetection", at, &hcmv3.HttpConnectionManager{
			UseRemoteAddress:              wrapperspb.Bool(false),
			OriginalIpDetectionExtensions: []*corev3.TypedExtensionConfig{ext},
		}), nil
	}
	x := c.XForwardedFor
	if x == nil || (x.NumTrustedHops == nil && x.TrustedCIDRs == nil) {
		return nil, nil
	}
	cfg := &xffv3.XffConfig{SkipXffAppend: wrapperspb.Bool(x.DisableXForwardedForAppend != nil && *x.DisableXForwardedForAppend)}
	if x.TrustedCIDRs != nil {
		cfg.XffTrustedCidrs = &xffv3.XffTrustedCidrs{}
		for i, s := range x.TrustedCIDRs {
			p, err := netip.ParsePrefix(string(s))
			if err != nil {
				return nil, fmt.Errorf("clientIPDetection.xForwardedFor.trustedCIDRs[%d]: %w", i, err)
			}
			cfg.XffTrustedCidrs.Cidrs = append(cfg.XffTrustedCidrs.Cidrs, &corev3.CidrRange{AddressPrefix: p.Addr().String(), PrefixLen: wrapperspb.UInt32(uint32(p.Bits()))})
		}
	} else if *x.NumTrustedHops > 0 {
		cfg.XffNumTrustedHops = *x.NumTrustedHops - 1
	}
	a, err := anypb.New(cfg)
	if err != nil {
		return nil, err
	}
	return connectionManager("clientIPDetection", at, &hcmv3.HttpConnectionManager{
		UseRemoteAddress:              wrapperspb.Bool(false),
		OriginalIpDetectionExtensions: []*corev3.TypedExtensionConfig{{Name: "envoy.extensions.http.original_ip_detection.xff", TypedConfig: a}},
	}), nil
}

// renderClientTimeout is the connection manager's timeouts — the whole
// request, its headers, an idle connection and an idle stream — and the
// idle timeout of the TCP proxies of TCP and TLS listeners. The TCP
// timeouts of HTTP listeners (TLS handshake, connection inspection) are
// not rendered yet.
func renderClientTimeout(t *egv1a1.ClientTimeout, who policyName, at placement) ([]policy.Fragment, error) {
	if t == nil {
		return nil, nil
	}
	if k := unrenderedFields(who.at.field("tcp"), t.TCP, "idleTimeout"); k != "" {
		return []policy.Fragment{{Capability: "envoygateway.ClientTrafficPolicy.timeout.tcp." + k}}, nil
	}
	fr := policy.Fragment{}
	if t.TCP != nil {
		d, err := optDuration(t.TCP.IdleTimeout)
		if err != nil {
			return nil, fmt.Errorf("timeout.tcp.idleTimeout: %w", err)
		}
		if d != nil {
			fr.TCPProxy = &tcpproxyv3.TcpProxy{IdleTimeout: d}
		}
	}
	if t.HTTP != nil {
		m := &hcmv3.HttpConnectionManager{}
		for _, d := range []struct {
			name string
			v    *gwapiv1.Duration
			set  func(*durationpb.Duration)
		}{
			{"requestReceivedTimeout", t.HTTP.RequestReceivedTimeout, func(d *durationpb.Duration) { m.RequestTimeout = d }},
			{"requestHeadersReceivedTimeout", t.HTTP.RequestHeadersReceivedTimeout, func(d *durationpb.Duration) { m.RequestHeadersTimeout = d }},
			{"idleTimeout", t.HTTP.IdleTimeout, func(d *durationpb.Duration) {
				m.CommonHttpProtocolOptions = &corev3.HttpProtocolOptions{IdleTimeout: d}
			}},
			{"streamIdleTimeout", t.HTTP.StreamIdleTimeout, func(d *durationpb.Duration) { m.StreamIdleTimeout = d }},
		} {
			dur, err := optDuration(d.v)
			if err != nil {
				return nil, fmt.Errorf("timeout.http.%s: %w", d.name, err)
			}
			if dur != nil {
				d.set(dur)
			}
		}
		fr.HCM = m
	}
	if fr.HCM == nil && fr.TCPProxy == nil {
		return nil, nil
	}
	return listenerSettings("timeout", at, fr), nil
}
