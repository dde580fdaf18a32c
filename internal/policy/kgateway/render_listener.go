package kgateway

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	accesslogv3 "github.com/envoyproxy/go-control-plane/envoy/config/accesslog/v3"
	mutationv3 "github.com/envoyproxy/go-control-plane/envoy/config/common/mutation_rules/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	healthcheckv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/health_check/v3"
	proxyprotocolv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/listener/proxy_protocol/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	earlyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/early_header_mutation/header_mutation/v3"
	xffv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/original_ip_detection/xff/v3"
	uuidv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/request_id/uuid/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	"k8s.io/apimachinery/pkg/api/resource"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// ListenerPolicy renders its settings into the HTTP connection manager
// and the Listener of the Gateway's listeners, as kgateway does.
var _ policy.Renderer = ListenerKind{}

// RenderField implements policy.Renderer: each field is a partial
// HttpConnectionManager or Listener. A field gwpol does not render yet
// is unsupported (GWP404), never dropped.
func (ListenerKind) RenderField(in policy.FieldInput, env *policy.Env) ([]policy.Fragment, error) {
	if len(in.Values) == 0 {
		return nil, nil
	}
	v := in.Values[0]
	ns := "" // the policy's namespace, for references without one
	if len(in.Namespaces) > 0 {
		ns = in.Namespaces[0]
	}
	switch {
	case ListenerKind{}.PortEntry(in.Key) != "":
		return perPortPartFragments(in, env)
	case strings.HasPrefix(in.Key, keyPerPort):
		return perPortFragments(in, env)
	case in.Key == keyClientCertValidation:
		return clientCertValidation(v, ns)
	case in.Key == "default.transportSocketConnectTimeout":
		d, err := listenerDuration("transportSocketConnectTimeout", v)
		if err != nil {
			return nil, err
		}
		return []policy.Fragment{{FilterChain: &listenerv3.FilterChain{TransportSocketConnectTimeout: d}}}, nil
	}
	h := &hcmv3.HttpConnectionManager{}
	var l *listenerv3.Listener
	key := strings.TrimPrefix(strings.TrimPrefix(in.Key, "default."), "httpSettings.")
	var clusters []proto.Message
	switch key {
	case "accessLog":
		logs, cs, err := accessLogs(v, in, env)
		if err != nil {
			return nil, err
		}
		h.AccessLog, clusters = logs, cs
	case "tracing":
		t, _ := v.(*Tracing)
		if t == nil {
			return nil, nil
		}
		tr, cs, err := listenerTracing(t, in, env)
		if err != nil {
			return nil, err
		}
		h.Tracing, clusters = tr, cs
	case "upgradeConfig":
		u, _ := v.(*UpgradeConfig)
		if u == nil {
			return nil, nil
		}
		for _, t := range u.EnabledUpgrades {
			h.UpgradeConfigs = append(h.UpgradeConfigs, &hcmv3.HttpConnectionManager_UpgradeConfig{UpgradeType: t})
		}
	case "accessLogConfig":
		return nil, nil // kgateway's second record of accessLog, which renders it
	case "useRemoteAddress":
		h.UseRemoteAddress = wrapperspb.Bool(val[bool](v))
	case "xffConfig":
		m, _ := v.(*xffSettings)
		if m == nil {
			return nil, nil
		}
		x := &xffv3.XffConfig{XffNumTrustedHops: uint32(max(derefOr(m.XffNumTrustedHops), 0))}
		if m.SkipXFFAppend != nil {
			x.SkipXffAppend = wrapperspb.Bool(*m.SkipXFFAppend)
		}
		if len(m.XffTrustedCIDRs) > 0 {
			x.XffTrustedCidrs = &xffv3.XffTrustedCidrs{}
			for i, c := range m.XffTrustedCIDRs {
				p, err := netip.ParsePrefix(c)
				if err != nil {
					return nil, &settingError{field: fmt.Sprintf("xffTrustedCIDRs[%d]", i), msg: cidrError(c)}
				}
				x.XffTrustedCidrs.Cidrs = append(x.XffTrustedCidrs.Cidrs, &corev3.CidrRange{AddressPrefix: p.Addr().String(), PrefixLen: wrapperspb.UInt32(uint32(p.Bits()))})
			}
		}
		h.OriginalIpDetectionExtensions = []*corev3.TypedExtensionConfig{{Name: "envoy.http.original_ip_detection.xff", TypedConfig: pack(x)}}
	case "xffNumTrustedHops":
		h.XffNumTrustedHops = uint32(val[int32](v))
	case "skipXffAppend":
		h.SkipXffAppend = val[bool](v)
	case "preserveExternalRequestId":
		h.PreserveExternalRequestId = val[bool](v)
	case "generateRequestId":
		h.GenerateRequestId = wrapperspb.Bool(val[bool](v))
	case "proxy100Continue":
		h.Proxy_100Continue = val[bool](v)
	case "stripTrailingHostDot":
		h.StripTrailingHostDot = val[bool](v)
	case "serverName":
		h.ServerName = val[string](v)
	case "maxRequestHeadersKb":
		h.MaxRequestHeadersKb = wrapperspb.UInt32(uint32(val[int32](v)))
	case "serverHeaderTransformation":
		t, ok := hcmv3.HttpConnectionManager_ServerHeaderTransformation_value[enumName(val[string](v))]
		if !ok {
			return nil, fmt.Errorf("serverHeaderTransformation %q is not Overwrite, AppendIfAbsent or PassThrough", val[string](v))
		}
		h.ServerHeaderTransformation = hcmv3.HttpConnectionManager_ServerHeaderTransformation(t)
	case "stripHostPortMode":
		switch m := val[string](v); m {
		case "AnyPort":
			h.StripPortMode = &hcmv3.HttpConnectionManager_StripAnyHostPort{StripAnyHostPort: true}
		case "MatchingPort":
			h.StripMatchingHostPort = true
		default:
			return nil, fmt.Errorf("stripHostPortMode %q is not AnyPort or MatchingPort", m)
		}
	case "mergeStreamIdleTimeout":
		d, err := listenerDuration("streamIdleTimeout", v)
		if err != nil {
			return nil, err
		}
		h.StreamIdleTimeout = d
	case "mergeIdleTimeout":
		d, err := listenerDuration("idleTimeout", v)
		if err != nil {
			return nil, err
		}
		h.CommonHttpProtocolOptions = &corev3.HttpProtocolOptions{IdleTimeout: d}
	case "maxHeadersCount":
		h.CommonHttpProtocolOptions = &corev3.HttpProtocolOptions{MaxHeadersCount: wrapperspb.UInt32(uint32(val[int32](v)))}
	case "maxRequestsPerConnection":
		h.CommonHttpProtocolOptions = &corev3.HttpProtocolOptions{MaxRequestsPerConnection: wrapperspb.UInt32(uint32(val[int32](v)))}
	case "http2ProtocolOptions":
		o, err := http2Options(v)
		if err != nil {
			return nil, err
		}
		h.Http2ProtocolOptions = o
	case "localReplyConfig":
		c, err := localReplyConfig(v, in, env)
		if err != nil {
			return nil, err
		}
		h.LocalReplyConfig = c
	case "healthCheckPolicy":
		hc, _ := v.(*EnvoyHealthCheck)
		if hc == nil {
			return nil, nil
		}
		return []policy.Fragment{{Filter: healthCheckFilter(hc.Path)}}, nil
	case "preserveHttp1HeaderCase":
		// kgateway's ApplyHCM keeps the case of HTTP/1 header names only
		// when the setting is true; false writes nothing (the merge still
		// names the policy, as kgateway's mergePreserveHttp1HeaderCase)
		if !val[bool](v) {
			return nil, nil
		}
		h.HttpProtocolOptions = &corev3.Http1ProtocolOptions{HeaderKeyFormat: preserveCaseHeaderFormat()}
	case "acceptHttp10":
		// as preserveHttp1HeaderCase: only true writes (and so creates
		// the HTTP/1 options); false leaves them as they are
		if !val[bool](v) {
			return nil, nil
		}
		h.HttpProtocolOptions = &corev3.Http1ProtocolOptions{AcceptHttp_10: true}
	case "defaultHostForHttp10":
		h.HttpProtocolOptions = &corev3.Http1ProtocolOptions{DefaultHostForHttp_10: val[string](v)}
	case "forwardClientCertDetails.mode":
		t, ok := hcmv3.HttpConnectionManager_ForwardClientCertDetails_value[enumName(val[string](v))]
		if !ok {
			return nil, fmt.Errorf("forwardClientCertDetails.mode %q is not an Envoy mode", val[string](v))
		}
		h.ForwardClientCertDetails = hcmv3.HttpConnectionManager_ForwardClientCertDetails(t)
	case "forwardClientCertDetails.details":
		d, _ := v.(*ClientCertDetails)
		if d == nil {
			return nil, nil
		}
		s := &hcmv3.HttpConnectionManager_SetCurrentClientCertDetails{Cert: derefOr(d.Cert), Chain: derefOr(d.Chain), Dns: derefOr(d.DNS), Uri: derefOr(d.URI)}
		if d.Subject != nil {
			s.Subject = wrapperspb.Bool(*d.Subject)
		}
		h.SetCurrentClientCertDetails = s
	case "uuidRequestIdConfig":
		c, _ := v.(*UUIDRequestIDConfig)
		u := &uuidv3.UuidRequestIdConfig{PackTraceReason: wrapperspb.Bool(true), UseRequestIdForTraceSampling: wrapperspb.Bool(true)}
		if c != nil && c.PackTraceReason != nil {
			u.PackTraceReason = wrapperspb.Bool(*c.PackTraceReason)
		}
		if c != nil && c.UseRequestIDForTraceSampling != nil {
			u.UseRequestIdForTraceSampling = wrapperspb.Bool(*c.UseRequestIDForTraceSampling)
		}
		h.RequestIdExtension = &hcmv3.RequestIDExtension{TypedConfig: pack(u)}
	case "earlyHeaderMutationExtensions":
		f, _ := v.(*gwv1.HTTPHeaderFilter)
		if f == nil {
			return nil, nil
		}
		m := &earlyv3.HeaderMutation{}
		for _, a := range f.Add {
			m.Mutations = append(m.Mutations, &mutationv3.HeaderMutation{Action: &mutationv3.HeaderMutation_Append{Append: &corev3.HeaderValueOption{
				Header: &corev3.HeaderValue{Key: string(a.Name), Value: a.Value}}}})
		}
		for _, a := range f.Set {
			m.Mutations = append(m.Mutations, &mutationv3.HeaderMutation{Action: &mutationv3.HeaderMutation_Append{Append: &corev3.HeaderValueOption{
				Header: &corev3.HeaderValue{Key: string(a.Name), Value: a.Value}, AppendAction: corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD}}})
		}
		for _, r := range f.Remove {
			m.Mutations = append(m.Mutations, &mutationv3.HeaderMutation{Action: &mutationv3.HeaderMutation_Remove{Remove: r}})
		}
		h.EarlyHeaderMutationExtensions = []*corev3.TypedExtensionConfig{{Name: "envoy.http.early_header_mutation.header_mutation", TypedConfig: pack(m)}}
	case "tcpKeepalive":
		k, _ := v.(*TCPKeepalive)
		if k == nil {
			return nil, nil
		}
		ka := &corev3.TcpKeepalive{}
		if k.KeepAliveProbes != nil {
			ka.KeepaliveProbes = wrapperspb.UInt32(uint32(*k.KeepAliveProbes))
		}
		for _, x := range []struct {
			s   *string
			dst **wrapperspb.UInt32Value
		}{{k.KeepAliveTime, &ka.KeepaliveTime}, {k.KeepAliveInterval, &ka.KeepaliveInterval}} {
			if x.s == nil {
				continue
			}
			d, err := time.ParseDuration(*x.s)
			if err != nil {
				return nil, fmt.Errorf("tcpKeepalive: %q is not a duration", *x.s)
			}
			*x.dst = wrapperspb.UInt32(uint32(d / time.Second))
		}
		l = &listenerv3.Listener{TcpKeepalive: ka}
		h = nil
	case "proxyProtocol":
		pc, _ := v.(*ProxyProtocolConfig)
		if pc == nil {
			return nil, nil
		}
		pp := &proxyprotocolv3.ProxyProtocol{AllowRequestsWithoutProxyProtocol: derefOr(pc.AllowRequestsWithoutProxyProtocol)}
		if parts := strings.Split(in.Contributors[0], "/"); len(parts) == 4 {
			pp.StatPrefix = parts[2] + "_" + parts[3] // kgateway's: the policy's namespace and name
		}
		l = &listenerv3.Listener{ListenerFilters: []*listenerv3.ListenerFilter{{
			Name: "envoy.filters.listener.proxy_protocol", ConfigType: &listenerv3.ListenerFilter_TypedConfig{TypedConfig: pack(pp)},
		}}}
		h = nil
	case "perConnectionBufferLimitBytes":
		l = &listenerv3.Listener{PerConnectionBufferLimitBytes: wrapperspb.UInt32(uint32(val[int32](v)))}
		h = nil
	default:
		return nil, diag.Errorf(diag.Unsupported, "gwpol does not render ListenerPolicy %s yet", in.Key)
	}
	fr := policy.Fragment{TypedClusters: clusters}
	if h != nil {
		fr.HCM = h
	}
	if l != nil {
		fr.Listener = l
	}
	return []policy.Fragment{fr}, nil
}

// perPortPartFragments renders a setting another policy's perPort entry
// fills in the entry in effect for its port: as the default section's
// setting renders, for that port only.
func perPortPartFragments(in policy.FieldInput, env *policy.Env) ([]policy.Fragment, error) {
	port := ListenerKind{}.FieldPort(in.Key)
	if port <= 0 {
		return nil, fmt.Errorf("%s: not a port", in.Key)
	}
	sub := in
	sub.Key = defaultKeyOfPart(in.Key)
	frags, err := ListenerKind{}.RenderField(sub, env)
	if err != nil {
		return nil, fmt.Errorf("perPort %d: %w", port, err)
	}
	for i := range frags {
		frags[i].Port = port
	}
	return frags, nil
}

// perPortFragments renders a perPort entry: each of its settings as the
// default section's would render, for its port only (where it replaces
// the default section whole, as kgateway applies it).
func perPortFragments(in policy.FieldInput, env *policy.Env) ([]policy.Fragment, error) {
	port := ListenerKind{}.FieldPort(in.Key)
	if port <= 0 {
		return nil, fmt.Errorf("%s: not a port", in.Key)
	}
	cfg, _ := in.Values[0].(*ListenerConfig)
	if cfg == nil {
		return nil, nil
	}
	var out []policy.Fragment
	for _, f := range listenerFields {
		v := f.get(cfg)
		if x, ok := v.(*xffSettings); ok {
			v, _ = withValidCIDRs(x) // a bad CIDR is left out (and reported at decode)
		}
		if !isSet(v) {
			continue
		}
		sub := in
		sub.Key, sub.Values = f.key, []any{v}
		frags, err := ListenerKind{}.RenderField(sub, env)
		if err != nil && diag.KindOf(err) != diag.Unsupported {
			continue // invalid: reported at decode (checkListenerValues), left out here as kgateway leaves it out
		}
		if err != nil {
			return nil, fmt.Errorf("perPort %d: %w", port, err)
		}
		for _, fr := range frags {
			fr.Port = port
			out = append(out, fr)
		}
	}
	if len(out) == 0 {
		out = append(out, policy.Fragment{Port: port}) // still replaces the default section there
	}
	return out, nil
}

// clientCertValidation requires (mode Require, the default) or asks for
// (Optional) a client certificate signed by the CAs named, on the
// listeners the policy applies to.
func clientCertValidation(v any, ns string) ([]policy.Fragment, error) {
	c, _ := v.(*ClientCertificateValidationConfig)
	if c == nil {
		return nil, nil
	}
	if len(c.CACertificateRefs) == 0 {
		return nil, fmt.Errorf("clientCertificateValidation names no caCertificateRefs")
	}
	parts := make([]string, len(c.CACertificateRefs))
	for i, r := range c.CACertificateRefs {
		refNS := ns
		if r.Namespace != nil && *r.Namespace != "" {
			refNS = string(*r.Namespace)
		}
		// kgateway takes a CA bundle from a core ConfigMap or Secret only
		// (listenerpolicy resourceRefs' caCertRefs; other refs are refused
		// in translation): the pair decides, not the kind alone.
		switch gk := model.RefGroupKind(&r.Group, &r.Kind, model.GroupKind{}); gk {
		case model.GroupKind{Kind: "ConfigMap"}:
			parts[i] = policy.ConfigMapPlaceholder(refNS, string(r.Name), "ca.crt")
		case model.GroupKind{Kind: "Secret"}:
			parts[i] = policy.SecretPlaceholder(refNS, string(r.Name), "ca.crt")
		default:
			return nil, fmt.Errorf("clientCertificateValidation.caCertificateRefs[%d] names %s, not a core ConfigMap or Secret", i, gk)
		}
	}
	// gwpol never reads the CAs: one Secret's ca.crt is read from where it
	// is mounted, any other bundle is named by placeholders.
	ca := &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: strings.Join(parts, "\n")}}
	if r := c.CACertificateRefs[0]; len(c.CACertificateRefs) == 1 && r.Kind == "Secret" {
		refNS := ns
		if r.Namespace != nil && *r.Namespace != "" {
			refNS = string(*r.Namespace)
		}
		ca.Specifier = &corev3.DataSource_Filename{Filename: policy.SecretFile(refNS, string(r.Name), "ca.crt")}
	}
	tls := &tlsv3.DownstreamTlsContext{
		CommonTlsContext: &tlsv3.CommonTlsContext{ValidationContextType: &tlsv3.CommonTlsContext_ValidationContext{
			ValidationContext: &tlsv3.CertificateValidationContext{TrustedCa: ca}}},
		RequireClientCertificate: wrapperspb.Bool(c.Mode == nil || *c.Mode != "Optional"),
	}
	return []policy.Fragment{{DownstreamTLS: tls}}, nil
}

// val is the value a *T field value points at, T's zero value when it is
// unset or of another type.
func val[T any](v any) T {
	p, _ := v.(*T)
	return derefOr(p)
}

func derefOr[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// healthCheckFilter answers health checks on an exact path itself (not
// passing them to a backend), on every route of the listener.
func healthCheckFilter(path string) *policy.HTTPFilter {
	return &policy.HTTPFilter{Name: "envoy.filters.http.health_check", Order: orderHealthCheck, Enabled: true, Typed: &healthcheckv3.HealthCheck{
		PassThroughMode: wrapperspb.Bool(false),
		Headers: []*routev3.HeaderMatcher{{Name: ":path", HeaderMatchSpecifier: &routev3.HeaderMatcher_StringMatch{
			StringMatch: &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: path}}}}},
	}}
}

// HTTP/2 flow-control windows kgateway accepts (RFC 7540's initial window
// to its largest), in bytes.
const (
	minHTTP2Window = 65535
	maxHTTP2Window = 2147483647
)

// http2Options tunes downstream HTTP/2. A window outside the range
// kgateway accepts is an error (one per window, in kgateway's words): the
// policy is invalid and the options are left out, as in kgateway.
func http2Options(v any) (*corev3.Http2ProtocolOptions, error) {
	o, _ := v.(*ListenerHTTP2ProtocolOptions)
	if o == nil {
		return nil, nil
	}
	out := &corev3.Http2ProtocolOptions{AllowConnect: derefOr(o.AllowConnect)}
	if o.MaxConcurrentStreams != nil {
		out.MaxConcurrentStreams = wrapperspb.UInt32(uint32(max(*o.MaxConcurrentStreams, 0)))
	}
	var errs settingErrors
	for _, w := range []struct {
		name string
		q    *resource.Quantity
		dst  **wrapperspb.UInt32Value
	}{
		{"initialStreamWindowSize", o.InitialStreamWindowSize, &out.InitialStreamWindowSize},
		{"initialConnectionWindowSize", o.InitialConnectionWindowSize, &out.InitialConnectionWindowSize},
	} {
		if w.q == nil {
			continue
		}
		n := w.q.Value()
		if n < minHTTP2Window || n > maxHTTP2Window {
			errs = append(errs, &settingError{field: w.name, msg: fmt.Sprintf("%s must be between %d and %d bytes (inclusive), got %d", w.name, minHTTP2Window, maxHTTP2Window, n)})
			continue
		}
		*w.dst = wrapperspb.UInt32(uint32(n))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

func listenerDuration(field string, v any) (*durationpb.Duration, error) {
	s := val[string](v)
	d, err := time.ParseDuration(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %q is not a duration", field, s)
	}
	return durationpb.New(d), nil
}

// accessLogs renders the access log sinks (file, gRPC or OpenTelemetry)
// with their filters, and the clusters of their services.
func accessLogs(v any, in policy.FieldInput, env *policy.Env) ([]*accesslogv3.AccessLog, []proto.Message, error) {
	logs, ok := v.([]AccessLog)
	if !ok {
		return nil, nil, fmt.Errorf("unexpected value %T", v)
	}
	var out []*accesslogv3.AccessLog
	var clusters []proto.Message
	for i, l := range logs {
		al, cl, err := accessLogSink(l, in, env)
		if err != nil {
			return nil, nil, fmt.Errorf("accessLog[%d]: %w", i, err)
		}
		out = append(out, al)
		if cl != nil {
			clusters = append(clusters, cl)
		}
	}
	return out, clusters, nil
}
