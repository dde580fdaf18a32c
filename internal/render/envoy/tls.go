package envoy

import (
	"slices"
	"strings"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// onPort are the rendered fields that apply on a listener port: those
// for every port, except that a kind's fields for this very port
// (policy.PortScoper) replace that kind's others there.
func onPort(fields []*rendered, port int32) []*rendered {
	perPort := map[string]bool{}
	for _, f := range fields {
		if f.port == port {
			perPort[kindOf(f)] = true
		}
	}
	out := make([]*rendered, 0, len(fields))
	for _, f := range fields {
		if f.port == port || (f.port == 0 && !perPort[kindOf(f)]) {
			out = append(out, f)
		}
	}
	return out
}

// kindOf is the group/kind of a rendered field.
func kindOf(f *rendered) string {
	k, _, _ := strings.Cut(f.kindKey, "#")
	return k
}

// downstreamTLS is the TLS context of an HTTPS listener that terminates
// TLS: the target's Baseline, its certificates (those that resolve, by
// SDS name), its tls.options as the controller's keys name them
// (topology.Keys.TLS, Listener.TLSOptions; the ALPN protocols of both
// replaced by the listener's DefaultALPN, its controller's verdict,
// when it has one), the client certificate
// validation of the Gateway's spec.tls.frontend for its port, and over
// those the settings policy fields make (a policy's client certificate
// validation).
func (gb *gatewayBuild) downstreamTLS(l *topology.Listener, fields []*rendered) *tlsv3.DownstreamTlsContext {
	tls := &tlsv3.DownstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{TlsParams: &tlsv3.TlsParameters{}}}
	if bl := gb.target.Baseline; bl != nil && bl.TLS != nil {
		overlay(tls, bl.TLS)
	}
	common := tls.CommonTlsContext
	for _, c := range gb.res.Graph.ResolvedCertificates(l) {
		common.TlsCertificateSdsSecretConfigs = append(common.TlsCertificateSdsSecretConfigs,
			&tlsv3.SdsSecretConfig{Name: policy.SecretSDSName(c.Namespace, c.Name), SdsConfig: adsSource()})
	}
	opts, _ := l.TLSOptions() // a listener whose options do not parse is not served
	if opts.ALPN != nil || common.AlpnProtocols == nil {
		common.AlpnProtocols = opts.ALPN
	}
	if l.DefaultALPN != nil {
		common.AlpnProtocols = slices.Clone(l.DefaultALPN)
	}
	p := common.TlsParams
	p.CipherSuites, p.EcdhCurves, p.SignatureAlgorithms = opts.CipherSuites, opts.ECDHCurves, opts.SignatureAlgorithms
	if opts.MinVersion != "" || p.TlsMinimumProtocolVersion == tlsv3.TlsParameters_TLS_AUTO {
		p.TlsMinimumProtocolVersion = tlsVersion(opts.MinVersion)
	}
	if opts.MaxVersion != "" || p.TlsMaximumProtocolVersion == tlsv3.TlsParameters_TLS_AUTO {
		p.TlsMaximumProtocolVersion = tlsVersion(opts.MaxVersion)
	}
	var vc *tlsv3.CertificateValidationContext
	if v := l.FrontendValidation(); v != nil {
		refs, _, _, _ := gb.res.Graph.FrontendCAs(l)
		vc = &tlsv3.CertificateValidationContext{TrustedCa: caBundle(refs)}
		tls.RequireClientCertificate = wrapperspb.Bool(v.Mode != gwv1.AllowInsecureFallback)
		if v.Mode == gwv1.AllowInsecureFallback {
			vc.TrustChainVerification = tlsv3.CertificateValidationContext_ACCEPT_UNTRUSTED
		}
	}
	if len(opts.CertificateHashes) > 0 || len(opts.SubjectAltNames) > 0 {
		if vc == nil {
			vc = &tlsv3.CertificateValidationContext{}
		}
		vc.VerifyCertificateHash = opts.CertificateHashes
		for _, san := range opts.SubjectAltNames {
			vc.MatchTypedSubjectAltNames = append(vc.MatchTypedSubjectAltNames, &tlsv3.SubjectAltNameMatcher{
				SanType: tlsv3.SubjectAltNameMatcher_DNS,
				Matcher: &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: san}},
			})
		}
	}
	if vc != nil {
		common.ValidationContextType = &tlsv3.CommonTlsContext_ValidationContext{ValidationContext: vc}
	}
	for _, f := range fields {
		if f.tls != nil || len(f.unset) > 0 {
			applySettings(tls, "tls", f, f.tls)
		}
	}
	return tls
}

func tlsVersion(v string) tlsv3.TlsParameters_TlsProtocol {
	return tlsv3.TlsParameters_TlsProtocol(tlsv3.TlsParameters_TlsProtocol_value[v])
}

// caBundle is where Envoy reads the CA certificates of a validation:
// gwpol never reads them (see policy.SecretFile), so one Secret's ca.crt
// is read from where it is mounted, and otherwise the bundle is an inline
// string of placeholders naming each ConfigMap's or Secret's ca.crt.
func caBundle(refs []topology.CARef) *corev3.DataSource {
	if len(refs) == 1 && refs[0].Kind == "Secret" {
		return &corev3.DataSource{Specifier: &corev3.DataSource_Filename{Filename: policy.SecretFile(refs[0].Namespace, refs[0].Name, "ca.crt")}}
	}
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = policy.ConfigMapPlaceholder(r.Namespace, r.Name, "ca.crt")
		if r.Kind == "Secret" {
			parts[i] = policy.SecretPlaceholder(r.Namespace, r.Name, "ca.crt")
		}
	}
	return &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: strings.Join(parts, "\n")}}
}
