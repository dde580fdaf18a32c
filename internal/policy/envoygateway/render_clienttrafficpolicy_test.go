package envoygateway

import (
	"encoding/json"
	"slices"
	"testing"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	connlimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/connection_limit/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	xffv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/original_ip_detection/xff/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestConnectionManagerScope: a ClientTrafficPolicy field configures the
// connection manager where its merge is a RouteConfiguration's (the
// Gateway's, or an HTTPS listener's own), and is unsupported where it is
// one HTTP listener's among the others of its port.
func TestConnectionManagerScope(t *testing.T) {
	for _, tc := range []struct {
		name    string
		render  func(json.RawMessage, policyName, placement) ([]policy.Fragment, error)
		value   string
		at      placement
		wantCap string
	}{
		{"http1 on the Gateway", raw3(renderHTTP1), `{"preserveHeaderCase":true}`, placement{scope: policy.ScopeRouteConfig}, ""},
		{"http1 on one HTTP listener of a shared port", raw3(renderHTTP1), `{"preserveHeaderCase":true}`, placement{scope: policy.ScopeVirtualHost, sharedPort: true}, "envoygateway.ClientTrafficPolicy.http1.one-listener-of-a-shared-port"},
		{"http1 on an HTTP listener alone on its port", raw3(renderHTTP1), `{"preserveHeaderCase":true}`, placement{scope: policy.ScopeVirtualHost}, ""},
		{"http1 http10", raw3(renderHTTP1), `{"http10":{}}`, placement{scope: policy.ScopeRouteConfig}, ""},
		{"http1 http10 on one HTTP listener of a shared port", raw3(renderHTTP1), `{"http10":{"useDefaultHost":true}}`, placement{scope: policy.ScopeVirtualHost, sharedPort: true}, "envoygateway.ClientTrafficPolicy.http1.one-listener-of-a-shared-port"},
		{"scheme", raw3(renderScheme), `"MatchBackend"`, placement{scope: policy.ScopeRouteConfig}, ""},
		{"custom client IP header", raw3(renderClientIPDetection), `{"customHeader":{"name":"x-real-ip"}}`, placement{scope: policy.ScopeRouteConfig}, ""},
		{"TCP idle timeout", raw3(renderClientTimeout), `{"tcp":{"idleTimeout":"1s"}}`, placement{scope: policy.ScopeRouteConfig}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := tc.render(json.RawMessage(tc.value), policyName{}, tc.at)
			if err != nil {
				t.Fatal(err)
			}
			if len(frags) != 1 {
				t.Fatalf("%d fragments, want 1", len(frags))
			}
			if frags[0].Capability != tc.wantCap {
				t.Errorf("capability %q, want %q", frags[0].Capability, tc.wantCap)
			}
			if tc.wantCap == "" && frags[0].HCM == nil && frags[0].TCPProxy == nil {
				t.Errorf("no connection manager settings")
			}
		})
	}
}

// TestXFFTrustedHops: Envoy Gateway configures one trusted hop fewer than
// the policy names (Envoy counts the hops differently), and stops using
// the connection's address.
func TestXFFTrustedHops(t *testing.T) {
	frags, err := raw3(renderClientIPDetection)(json.RawMessage(`{"xForwardedFor":{"numTrustedHops":2}}`), policyName{}, placement{scope: policy.ScopeRouteConfig})
	if err != nil {
		t.Fatal(err)
	}
	m, ok := frags[0].HCM.(*hcmv3.HttpConnectionManager)
	if !ok {
		t.Fatalf("fragment %+v holds no connection manager", frags[0])
	}
	if m.GetUseRemoteAddress().GetValue() {
		t.Errorf("use_remote_address still on")
	}
	cfg := &xffv3.XffConfig{}
	if err := m.GetOriginalIpDetectionExtensions()[0].GetTypedConfig().UnmarshalTo(cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.XffNumTrustedHops != 1 {
		t.Errorf("xff_num_trusted_hops %d, want 1", cfg.XffNumTrustedHops)
	}
}

// TestListenerSettingsUnset: a setting whose "off" is Envoy's zero value,
// where Envoy Gateway's baseline has it on, is turned off by path rather
// than by a message (a merge cannot carry a zero).
func TestListenerSettingsUnset(t *testing.T) {
	at := placement{scope: policy.ScopeRouteConfig}
	for _, tc := range []struct {
		name      string
		render    func(json.RawMessage, policyName, placement) ([]policy.Fragment, error)
		value     string
		wantUnset []string
	}{
		{"merge slashes off", raw3(renderPath), `{"disableMergeSlashes":true}`, []string{"hcm.merge_slashes"}},
		{"merge slashes kept", raw3(renderPath), `{"disableMergeSlashes":false}`, nil},
		{"underscores allowed", raw3(renderHeaders), `{"withUnderscoresAction":"Allow"}`, []string{"hcm.common_http_protocol_options.headers_with_underscores_action"}},
		{"underscores dropped", raw3(renderHeaders), `{"withUnderscoresAction":"DropHeader"}`, nil},
		{"every connection accepted at once", raw3(renderClientConnection), `{"maxAcceptPerSocketEvent":0}`, []string{"listener.max_connections_to_accept_per_socket_event"}},
		{"HTTP/1 connections closed mid-request", raw3(renderHTTP1), `{"disableSafeMaxConnectionDuration":true}`, []string{"hcm.http1_safe_max_connection_duration"}},
		{"no ALPN", raw3(renderClientTLS), `{"alpnProtocols":[]}`, []string{"tls.common_tls_context.alpn_protocols"}},
		{"session resumption on", raw3(renderClientTLS), `{"session":{"resumption":{"stateless":{},"stateful":{}}}}`,
			[]string{"tls.disable_stateless_session_resumption", "tls.disable_stateful_session_resumption"}},
		{"automatic minimum version", raw3(renderClientTLS), `{"minVersion":"Auto"}`, []string{"tls.common_tls_context.tls_params.tls_minimum_protocol_version"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := tc.render(json.RawMessage(tc.value), policyName{kind: "clienttrafficpolicy", namespace: "infra", name: "p"}, at)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range frags {
				got = append(got, f.Unset...)
			}
			if !slices.Equal(got, tc.wantUnset) {
				t.Errorf("unset %q, want %q", got, tc.wantUnset)
			}
		})
	}
}

// TestClientValidation: the CA bundle is one SDS secret named after the
// policy; a client certificate is required unless optional, and an
// expired one accepted through the combined validation context.
func TestClientValidation(t *testing.T) {
	who := policyName{kind: "clienttrafficpolicy", namespace: "infra", name: "mtls"}
	for _, tc := range []struct {
		name                   string
		value                  string
		wantRequire, wantCombo bool
	}{
		{"required", `{"clientValidation":{"caCertificateRefs":[{"name":"ca"}]}}`, true, false},
		{"optional", `{"clientValidation":{"optional":true,"caCertificateRefs":[{"name":"ca"}]}}`, false, false},
		{"expired allowed", `{"clientValidation":{"allowExpiredCertificate":true,"caCertificateRefs":[{"name":"ca"}]}}`, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := raw3(renderClientTLS)(json.RawMessage(tc.value), who, placement{scope: policy.ScopeRouteConfig})
			if err != nil {
				t.Fatal(err)
			}
			ctx, ok := frags[0].DownstreamTLS.(*tlsv3.DownstreamTlsContext)
			if !ok {
				t.Fatalf("fragment %+v holds no TLS context", frags[0])
			}
			if got := ctx.GetRequireClientCertificate().GetValue(); got != tc.wantRequire {
				t.Errorf("require_client_certificate %v, want %v", got, tc.wantRequire)
			}
			common := ctx.GetCommonTlsContext()
			sds := common.GetValidationContextSdsSecretConfig()
			if tc.wantCombo {
				combo := common.GetCombinedValidationContext()
				if !combo.GetDefaultValidationContext().GetAllowExpiredCertificate() {
					t.Errorf("expired certificates not allowed: %v", combo)
				}
				sds = combo.GetValidationContextSdsSecretConfig()
			}
			if want := "secret/infra/mtls/ca.crt"; sds.GetName() != want {
				t.Errorf("CA bundle SDS name %q, want %q", sds.GetName(), want)
			}
		})
	}
}

// TestConnectionLimit: a connection limit is a network filter before
// the connection manager; the connection's maximum duration lets HTTP/1
// finish its response first.
func TestConnectionLimit(t *testing.T) {
	frags, err := raw3(renderClientConnection)(json.RawMessage(`{"connectionLimit":{"value":3,"closeDelay":"10s","maxConnectionDuration":"300s"}}`), policyName{}, placement{scope: policy.ScopeVirtualHost})
	if err != nil {
		t.Fatal(err)
	}
	if len(frags) != 1 || len(frags[0].NetworkFilters) != 1 {
		t.Fatalf("fragments %+v, want one with one network filter", frags)
	}
	nf, ok := frags[0].NetworkFilters[0].(*listenerv3.Filter)
	if !ok || nf.GetName() != "envoy.filters.network.connection_limit" {
		t.Fatalf("network filter %v", frags[0].NetworkFilters[0])
	}
	cl := &connlimitv3.ConnectionLimit{}
	if err := nf.GetTypedConfig().UnmarshalTo(cl); err != nil {
		t.Fatal(err)
	}
	if cl.GetMaxConnections().GetValue() != 3 || cl.GetDelay().AsDuration().Seconds() != 10 {
		t.Errorf("connection limit %v, want 3 connections, 10s delay", cl)
	}
	m, ok := frags[0].HCM.(*hcmv3.HttpConnectionManager)
	if !ok || !m.GetHttp1SafeMaxConnectionDuration() || m.GetCommonHttpProtocolOptions().GetMaxConnectionDuration().AsDuration().Seconds() != 300 {
		t.Errorf("connection manager %v, want a 300s maximum duration, safe for HTTP/1", frags[0].HCM)
	}
}

// TestClientValidationWithoutCA: mode Request asks for a client
// certificate and RequireAny requires one, any certificate trusted; the
// hashes and names a certificate must carry go beside the CA bundle.
func TestClientValidationWithoutCA(t *testing.T) {
	at := placement{scope: policy.ScopeRouteConfig}
	for _, tc := range []struct {
		mode        string
		wantRequire bool
	}{{"Request", false}, {"RequireAny", true}} {
		frags, err := raw3(renderClientTLS)(json.RawMessage(`{"clientValidation":{"mode":"`+tc.mode+`"}}`), policyName{}, at)
		if err != nil {
			t.Fatal(err)
		}
		ctx, ok := frags[0].DownstreamTLS.(*tlsv3.DownstreamTlsContext)
		if !ok {
			t.Fatalf("%s: no TLS context in %+v", tc.mode, frags[0])
		}
		if ctx.GetRequireClientCertificate() == nil || ctx.GetRequireClientCertificate().GetValue() != tc.wantRequire {
			t.Errorf("%s: require_client_certificate %v, want %v", tc.mode, ctx.GetRequireClientCertificate(), tc.wantRequire)
		}
		if v := ctx.GetCommonTlsContext().GetValidationContext(); v.GetTrustChainVerification() != tlsv3.CertificateValidationContext_ACCEPT_UNTRUSTED {
			t.Errorf("%s: validation context %v, want any certificate trusted", tc.mode, v)
		}
	}
	frags, err := raw3(renderClientTLS)(json.RawMessage(`{"clientValidation":{"caCertificateRefs":[{"name":"ca"}],"certificateHashes":["ab"],
		"subjectAltNames":{"dnsNames":[{"type":"Suffix","value":".example.com"}],"otherNames":[{"oid":"1.2.3","value":"x"}]}}}`), policyName{namespace: "ns", name: "p"}, at)
	if err != nil {
		t.Fatal(err)
	}
	ctx, _ := frags[0].DownstreamTLS.(*tlsv3.DownstreamTlsContext)
	def := ctx.GetCommonTlsContext().GetCombinedValidationContext().GetDefaultValidationContext()
	sans := def.GetMatchTypedSubjectAltNames()
	if len(def.GetVerifyCertificateHash()) != 1 || len(sans) != 2 || sans[0].GetSanType() != tlsv3.SubjectAltNameMatcher_DNS ||
		sans[0].GetMatcher().GetSuffix() != ".example.com" || sans[1].GetOid() != "1.2.3" {
		t.Errorf("default validation context %v, want the hash and both names", def)
	}
}

// TestXForwardedClientCert: each mode is Envoy's forward_client_cert_details
// (Sanitize when none is given); the certificate's details are set only
// for the modes that add them (AppendForward, SanitizeSet), ignored by the
// others as Envoy Gateway ignores them; an unknown value is an error.
func TestXForwardedClientCert(t *testing.T) {
	for _, tc := range []struct {
		value   string
		mode    hcmv3.HttpConnectionManager_ForwardClientCertDetails
		details string // protojson of set_current_client_cert_details, "" for none
		err     bool
	}{
		{value: `{}`, mode: hcmv3.HttpConnectionManager_SANITIZE},
		{value: `{"mode":"Sanitize","certDetailsToAdd":["Cert"]}`, mode: hcmv3.HttpConnectionManager_SANITIZE},
		{value: `{"mode":"ForwardOnly","certDetailsToAdd":["Cert"]}`, mode: hcmv3.HttpConnectionManager_FORWARD_ONLY},
		{value: `{"mode":"AlwaysForwardOnly"}`, mode: hcmv3.HttpConnectionManager_ALWAYS_FORWARD_ONLY},
		{value: `{"mode":"AppendForward"}`, mode: hcmv3.HttpConnectionManager_APPEND_FORWARD},
		{value: `{"mode":"AppendForward","certDetailsToAdd":["Cert"]}`, mode: hcmv3.HttpConnectionManager_APPEND_FORWARD, details: `{"cert":true}`},
		{value: `{"mode":"SanitizeSet","certDetailsToAdd":["Cert","URI","Chain","Subject","DNS"]}`, mode: hcmv3.HttpConnectionManager_SANITIZE_SET,
			details: `{"subject":true,"cert":true,"chain":true,"dns":true,"uri":true}`},
		{value: `{"mode":"Append"}`, err: true},
		{value: `{"mode":"SanitizeSet","certDetailsToAdd":["Email"]}`, err: true},
	} {
		t.Run(tc.value, func(t *testing.T) {
			frags, err := raw3(renderHeaders)(json.RawMessage(`{"xForwardedClientCert":`+tc.value+`}`), policyName{}, placement{scope: policy.ScopeRouteConfig})
			if tc.err {
				if err == nil {
					t.Fatalf("got %+v, want an error", frags)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m, ok := frags[0].HCM.(*hcmv3.HttpConnectionManager)
			if len(frags) != 1 || !ok {
				t.Fatalf("got %+v, want connection manager settings", frags)
			}
			if m.ForwardClientCertDetails != tc.mode {
				t.Errorf("mode %v, want %v", m.ForwardClientCertDetails, tc.mode)
			}
			got := ""
			if d := m.SetCurrentClientCertDetails; d != nil {
				b, err := protojson.Marshal(d)
				if err != nil {
					t.Fatal(err)
				}
				got = compactJSON(t, string(b))
			}
			if want := tc.details; want != "" {
				tc.details = compactJSON(t, want)
			}
			if got != tc.details {
				t.Errorf("details %s, want %s", got, tc.details)
			}
		})
	}
}
