package envoy

import (
	"fmt"
	"slices"
	"strings"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// ListenerBaseline is what a controller writes on every listener, HTTP
// connection manager and TLS context of a Gateway before any policy tunes
// them; policy fields' settings go over it (and may turn its settings off,
// policy.Fragment.Unset). Nil parts are Envoy's defaults.
type ListenerBaseline struct {
	Listener *listenerv3.Listener
	HCM      *hcmv3.HttpConnectionManager
	TLS      *tlsv3.DownstreamTlsContext
}

// envoyGatewayBaseline is Envoy Gateway's: a 32 KiB connection buffer and
// one connection accepted per socket event; requests with underscores in
// header names rejected, escaped slashes unescaped and redirected, its
// HTTP/2 window sizes and stream limit; TLS 1.2 to 1.3, no session
// resumption, ALPN h2 and http/1.1.
func envoyGatewayBaseline() *ListenerBaseline {
	return &ListenerBaseline{
		Listener: &listenerv3.Listener{
			PerConnectionBufferLimitBytes:        wrapperspb.UInt32(32768),
			MaxConnectionsToAcceptPerSocketEvent: wrapperspb.UInt32(1),
		},
		HCM: &hcmv3.HttpConnectionManager{
			CommonHttpProtocolOptions: &corev3.HttpProtocolOptions{
				HeadersWithUnderscoresAction: corev3.HttpProtocolOptions_REJECT_REQUEST,
			},
			Http2ProtocolOptions: &corev3.Http2ProtocolOptions{
				InitialConnectionWindowSize: wrapperspb.UInt32(1048576),
				InitialStreamWindowSize:     wrapperspb.UInt32(65536),
				MaxConcurrentStreams:        wrapperspb.UInt32(100),
			},
			PathWithEscapedSlashesAction: hcmv3.HttpConnectionManager_UNESCAPE_AND_REDIRECT,
		},
		TLS: &tlsv3.DownstreamTlsContext{
			CommonTlsContext: &tlsv3.CommonTlsContext{
				TlsParams: &tlsv3.TlsParameters{
					TlsMinimumProtocolVersion: tlsv3.TlsParameters_TLSv1_2,
					TlsMaximumProtocolVersion: tlsv3.TlsParameters_TLSv1_3,
				},
				AlpnProtocols: []string{"h2", "http/1.1"},
			},
			DisableStatefulSessionResumption: true,
			SessionTicketKeysType:            &tlsv3.DownstreamTlsContext_DisableStatelessSessionResumption{DisableStatelessSessionResumption: true},
		},
	}
}

// applySettings lays one rendered field's settings of a part ("listener",
// "hcm", "chain" or "tls") over dst: the settings it turns off first,
// then its message.
func applySettings(dst proto.Message, part string, f *rendered, src proto.Message) {
	for _, path := range f.unset {
		rest, ok := strings.CutPrefix(path, part+".")
		if ok {
			clearPath(dst.ProtoReflect(), strings.Split(rest, "."))
		}
	}
	if src != nil && src.ProtoReflect().IsValid() {
		overlay(dst, src)
	}
}

// clearPath clears the field a path of proto field names leads to
// (nothing when a message on the way is not set or a name is unknown).
func clearPath(m protoreflect.Message, path []string) {
	fd := m.Descriptor().Fields().ByName(protoreflect.Name(path[0]))
	if fd == nil || !m.Has(fd) {
		return
	}
	if len(path) == 1 {
		m.Clear(fd)
		return
	}
	if fd.Message() == nil || fd.IsList() || fd.IsMap() {
		return
	}
	clearPath(m.Mutable(fd).Message(), path[1:])
}

// connectionSettings lays the listener and connection settings of
// rendered fields over a listener.
func connectionSettings(el *listenerv3.Listener, fields []*rendered) {
	for _, f := range fields {
		if f.listener != nil || len(f.unset) > 0 {
			applySettings(el, "listener", f, f.listener)
		}
	}
}

// reportSharedListener reports the listener settings (socket options,
// listener filters, buffer and accept limits) a listener's own fields
// make where the listener shares its port, and so its Envoy listener,
// with others: they are left out rather than imposed on the neighbours
// (GWP404). fields are the listener's merge, whole the Gateway's, which
// apply to every listener of the port.
func (gb *gatewayBuild) reportSharedListener(l *topology.Listener, fields, whole []*rendered) {
	for _, f := range fields {
		if slices.Contains(whole, f) || (f.listener == nil && !slices.ContainsFunc(f.unset, func(p string) bool { return strings.HasPrefix(p, "listener.") })) {
			continue
		}
		for _, p := range f.contributors {
			gb.report(p, f.field, policy.LintUnsupportedCapability.Code, fmt.Sprintf(
				"unsupported: field %s sets Envoy listener settings for listener %s, which shares port %d with other listeners of its Gateway; render target %s serves them with one Envoy listener and leaves these settings out",
				f.field, l.Name, l.Port, gb.target.Name))
		}
	}
}
