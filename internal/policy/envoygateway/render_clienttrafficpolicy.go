package envoygateway

import (
	"encoding/json"
	"fmt"
	"net/netip"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	preservecasev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/header_formatters/preserve_case/v3"
	xffv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/original_ip_detection/xff/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// This file renders the ClientTrafficPolicy fields that configure the
// HTTP connection manager of the listeners a policy targets, as Envoy
// Gateway's listener translation sets them. gwpol serves all HTTP
// listeners of a port through one connection manager, so a policy on one
// of them (a sectionName of an HTTP listener: a virtual-host-level
// merge) cannot be expressed: such a value is unsupported and fails the
// listener's routes closed, rather than reaching its port neighbours.

// connectionManager is a field's fragment: the connection manager
// settings, or the unsupported one where they cannot apply.
func connectionManager(field string, in policy.Scope, m *hcmv3.HttpConnectionManager) []policy.Fragment {
	if in == policy.ScopeVirtualHost {
		return []policy.Fragment{{Capability: "envoygateway.ClientTrafficPolicy." + field + ".one-listener-of-a-shared-port"}}
	}
	return []policy.Fragment{{HCM: m}}
}

// http1Settings is spec.http1.
type http1Settings struct {
	EnableTrailers     *bool `json:"enableTrailers"`
	PreserveHeaderCase *bool `json:"preserveHeaderCase"`
	HTTP10             *struct {
		UseDefaultHost *bool `json:"useDefaultHost"`
	} `json:"http10"`
}

// renderHTTP1 is the connection manager's HTTP/1 options: trailers, and
// header names sent in the case they came in (the preserve_case
// formatter). Accepting HTTP/1.0 (with a default host taken from the
// listener) is not rendered yet.
func renderHTTP1(v json.RawMessage, _ policyName, sc policy.Scope) ([]policy.Fragment, error) {
	if k := unrenderedKeys(v, "enableTrailers", "preserveHeaderCase"); k != "" {
		return []policy.Fragment{{Capability: "envoygateway.ClientTrafficPolicy.http1." + k}}, nil
	}
	var h http1Settings
	if err := json.Unmarshal(v, &h); err != nil {
		return nil, fmt.Errorf("http1: %w", err)
	}
	trailers := h.EnableTrailers != nil && *h.EnableTrailers
	preserve := h.PreserveHeaderCase != nil && *h.PreserveHeaderCase
	if !trailers && !preserve {
		return nil, nil
	}
	opts := &corev3.Http1ProtocolOptions{EnableTrailers: trailers}
	if preserve {
		pc, err := anypb.New(&preservecasev3.PreserveCaseFormatterConfig{})
		if err != nil {
			return nil, err
		}
		opts.HeaderKeyFormat = &corev3.Http1ProtocolOptions_HeaderKeyFormat{HeaderFormat: &corev3.Http1ProtocolOptions_HeaderKeyFormat_StatefulFormatter{
			StatefulFormatter: &corev3.TypedExtensionConfig{Name: "preserve_case", TypedConfig: pc}}}
	}
	return connectionManager("http1", sc, &hcmv3.HttpConnectionManager{HttpProtocolOptions: opts}), nil
}

// renderScheme: MatchBackend sets the :scheme sent upstream to the
// upstream connection's (https to a TLS backend); MatchClient is Envoy's
// default.
func renderScheme(v json.RawMessage, _ policyName, sc policy.Scope) ([]policy.Fragment, error) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, fmt.Errorf("scheme: %w", err)
	}
	switch s {
	case "MatchClient":
		return nil, nil
	case "MatchBackend":
		return connectionManager("scheme", sc, &hcmv3.HttpConnectionManager{SchemeHeaderTransformation: &corev3.SchemeHeaderTransformation{MatchUpstream: true}}), nil
	}
	return nil, fmt.Errorf("scheme: unknown value %q", s)
}

// clientIPSettings is spec.clientIPDetection.
type clientIPSettings struct {
	XForwardedFor *struct {
		NumTrustedHops             *uint32  `json:"numTrustedHops"`
		TrustedCIDRs               []string `json:"trustedCIDRs"`
		DisableXForwardedForAppend *bool    `json:"disableXForwardedForAppend"`
	} `json:"xForwardedFor"`
}

// renderClientIPDetection: the client's address taken from
// X-Forwarded-For — through Envoy's xff original IP detection extension,
// trusting the listed CIDRs or (one hop fewer than configured, as Envoy
// Gateway keeps compatible with Envoy's counting) the last hops, and then
// not the connection's own address. The direct source IP is Envoy's
// default. A custom header is not rendered yet.
func renderClientIPDetection(v json.RawMessage, _ policyName, sc policy.Scope) ([]policy.Fragment, error) {
	if k := unrenderedKeys(v, "xForwardedFor", "directSourceIP"); k != "" {
		return []policy.Fragment{{Capability: "envoygateway.ClientTrafficPolicy.clientIPDetection." + k}}, nil
	}
	var c clientIPSettings
	if err := json.Unmarshal(v, &c); err != nil {
		return nil, fmt.Errorf("clientIPDetection: %w", err)
	}
	x := c.XForwardedFor
	if x == nil || (x.NumTrustedHops == nil && x.TrustedCIDRs == nil) {
		return nil, nil
	}
	cfg := &xffv3.XffConfig{SkipXffAppend: wrapperspb.Bool(x.DisableXForwardedForAppend != nil && *x.DisableXForwardedForAppend)}
	if x.TrustedCIDRs != nil {
		cfg.XffTrustedCidrs = &xffv3.XffTrustedCidrs{}
		for i, s := range x.TrustedCIDRs {
			p, err := netip.ParsePrefix(s)
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
	return connectionManager("clientIPDetection", sc, &hcmv3.HttpConnectionManager{
		UseRemoteAddress:              wrapperspb.Bool(false),
		OriginalIpDetectionExtensions: []*corev3.TypedExtensionConfig{{Name: "envoy.extensions.http.original_ip_detection.xff", TypedConfig: a}},
	}), nil
}

// clientTimeouts is spec.timeout's HTTP part.
type clientTimeouts struct {
	HTTP *struct {
		RequestReceivedTimeout        *string `json:"requestReceivedTimeout"`
		RequestHeadersReceivedTimeout *string `json:"requestHeadersReceivedTimeout"`
		IdleTimeout                   *string `json:"idleTimeout"`
		StreamIdleTimeout             *string `json:"streamIdleTimeout"`
	} `json:"http"`
}

// renderClientTimeout is the connection manager's timeouts: the whole
// request, its headers, an idle connection and an idle stream. The TCP
// timeouts (TLS handshake, connection inspection, an idle TCP
// connection) are not rendered yet.
func renderClientTimeout(v json.RawMessage, _ policyName, sc policy.Scope) ([]policy.Fragment, error) {
	if k := unrenderedKeys(v, "http"); k != "" {
		return []policy.Fragment{{Capability: "envoygateway.ClientTrafficPolicy.timeout." + k}}, nil
	}
	var t clientTimeouts
	if err := json.Unmarshal(v, &t); err != nil {
		return nil, fmt.Errorf("timeout: %w", err)
	}
	if t.HTTP == nil {
		return nil, nil
	}
	m := &hcmv3.HttpConnectionManager{}
	for _, d := range []struct {
		name string
		v    *string
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
	return connectionManager("timeout", sc, m), nil
}
