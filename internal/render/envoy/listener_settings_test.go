package envoy

import (
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/gwpol/gwpol/internal/policy/envoygateway"
)

// TestApplySettings: a field's settings go over the baseline, the ones it
// turns off (its part's paths only) cleared first — a setting in a oneof,
// a nested one, a list —, and a path through an unset message or to an
// unknown name changes nothing.
func TestApplySettings(t *testing.T) {
	base := envoygateway.Target.Baseline
	for _, tc := range []struct {
		name  string
		part  string
		dst   proto.Message
		field *rendered
		src   proto.Message
		want  proto.Message
	}{
		{
			name:  "merge slashes off, escaped slashes kept",
			part:  "hcm",
			dst:   &hcmv3.HttpConnectionManager{MergeSlashes: true, PathWithEscapedSlashesAction: hcmv3.HttpConnectionManager_UNESCAPE_AND_REDIRECT},
			field: &rendered{unset: []string{"hcm.merge_slashes", "tls.disable_stateful_session_resumption"}},
			src:   &hcmv3.HttpConnectionManager{PathWithEscapedSlashesAction: hcmv3.HttpConnectionManager_KEEP_UNCHANGED},
			want:  &hcmv3.HttpConnectionManager{PathWithEscapedSlashesAction: hcmv3.HttpConnectionManager_KEEP_UNCHANGED},
		},
		{
			name:  "underscores allowed, idle timeout set beside",
			part:  "hcm",
			dst:   proto.Clone(base.HCM),
			field: &rendered{unset: []string{"hcm.common_http_protocol_options.headers_with_underscores_action"}},
			src:   &hcmv3.HttpConnectionManager{CommonHttpProtocolOptions: &corev3.HttpProtocolOptions{IdleTimeout: durationpb.New(10e9)}},
			want: func() proto.Message {
				m := proto.Clone(base.HCM).(*hcmv3.HttpConnectionManager)
				m.CommonHttpProtocolOptions = &corev3.HttpProtocolOptions{IdleTimeout: durationpb.New(10e9)}
				return m
			}(),
		},
		{
			name:  "session resumption on, no ALPN",
			part:  "tls",
			dst:   proto.Clone(base.TLS),
			field: &rendered{unset: []string{"tls.disable_stateless_session_resumption", "tls.disable_stateful_session_resumption", "tls.common_tls_context.alpn_protocols"}},
			want: &tlsv3.DownstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{TlsParams: &tlsv3.TlsParameters{
				TlsMinimumProtocolVersion: tlsv3.TlsParameters_TLSv1_2, TlsMaximumProtocolVersion: tlsv3.TlsParameters_TLSv1_3}}},
		},
		{
			name:  "paths that lead nowhere",
			part:  "hcm",
			dst:   &hcmv3.HttpConnectionManager{MergeSlashes: true},
			field: &rendered{unset: []string{"hcm.http2_protocol_options.max_concurrent_streams", "hcm.no_such_field"}},
			want:  &hcmv3.HttpConnectionManager{MergeSlashes: true},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			applySettings(tc.dst, tc.part, tc.field, tc.src)
			if !proto.Equal(tc.dst, tc.want) {
				t.Errorf("got %v\nwant %v", tc.dst, tc.want)
			}
		})
	}
}
