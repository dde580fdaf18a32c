//lint:file-ignore SA1019 Envoy Gateway still reads its deprecated fields (users set them), so gwpol reads them too.

package envoygateway

import (
	"fmt"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/policy"
)

// matcher is the Envoy string matcher of a match type (Exact when
// unset).
func sanMatcher(m egv1a1.StringMatch) (*matcherv3.StringMatcher, error) {
	switch deref(m.Type) {
	case "", "Exact":
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: m.Value}}, nil
	case "Prefix":
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Prefix{Prefix: m.Value}}, nil
	case "Suffix":
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Suffix{Suffix: m.Value}}, nil
	case "RegularExpression":
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: m.Value}}}, nil
	}
	return nil, fmt.Errorf("unknown match type %q", deref(m.Type))
}

// tlsVersions are spec.tls's version names.
var tlsVersions = map[string]tlsv3.TlsParameters_TlsProtocol{
	"Auto": tlsv3.TlsParameters_TLS_AUTO,
	"1.0":  tlsv3.TlsParameters_TLSv1_0,
	"1.1":  tlsv3.TlsParameters_TLSv1_1,
	"1.2":  tlsv3.TlsParameters_TLSv1_2,
	"1.3":  tlsv3.TlsParameters_TLSv1_3,
}

// renderClientTLS is the TLS context of the listeners that terminate TLS,
// over Envoy Gateway's baseline (TLS 1.2 to 1.3, ALPN h2 and http/1.1,
// no session resumption): protocol versions, cipher suites, curves and
// signature algorithms, the ALPN protocols (an empty list offers none),
// session resumption turned on, and client certificates validated
// against the CA bundle the policy names. Envoy Gateway gathers the
// bundle's certificates from its Secrets and ConfigMaps into one SDS
// secret per policy; gwpol reads no Secret data and names that secret
// secret/<policy namespace>/<policy name>/ca.crt. The other TLS settings
// are not rendered yet.
func renderClientTLS(t *egv1a1.ClientTLSSettings, who policyName, at placement) ([]policy.Fragment, error) {
	if k := unrenderedFields(who.at, t, "minVersion", "maxVersion", "ciphers", "ecdhCurves", "signatureAlgorithms", "alpnProtocols", "session", "clientValidation"); k != "" {
		return []policy.Fragment{{Capability: "envoygateway.ClientTrafficPolicy.tls." + k}}, nil
	}
	if t == nil {
		t = &egv1a1.ClientTLSSettings{}
	}
	if k := unrenderedFields(who.at.field("clientValidation"), t.ClientValidation, "optional", "allowExpiredCertificate", "caCertificateRefs", "mode", "spkiHashes", "certificateHashes", "subjectAltNames"); k != "" {
		return []policy.Fragment{{Capability: "envoygateway.ClientTrafficPolicy.tls.clientValidation." + k}}, nil
	}
	params := &tlsv3.TlsParameters{CipherSuites: t.Ciphers, EcdhCurves: t.ECDHCurves, SignatureAlgorithms: t.SignatureAlgorithms}
	var alpn []string
	for _, a := range t.ALPNProtocols {
		alpn = append(alpn, string(a))
	}
	common := &tlsv3.CommonTlsContext{TlsParams: params, AlpnProtocols: alpn}
	ctx := &tlsv3.DownstreamTlsContext{CommonTlsContext: common}
	fr := policy.Fragment{DownstreamTLS: ctx}
	for _, ver := range []struct {
		name, field string
		v           *egv1a1.TLSVersion
		set         func(tlsv3.TlsParameters_TlsProtocol)
	}{
		{"minVersion", "tls_minimum_protocol_version", t.MinVersion, func(p tlsv3.TlsParameters_TlsProtocol) { params.TlsMinimumProtocolVersion = p }},
		{"maxVersion", "tls_maximum_protocol_version", t.MaxVersion, func(p tlsv3.TlsParameters_TlsProtocol) { params.TlsMaximumProtocolVersion = p }},
	} {
		if ver.v == nil {
			continue
		}
		p, ok := tlsVersions[string(*ver.v)]
		if !ok {
			return nil, fmt.Errorf("tls.%s: unknown version %q", ver.name, *ver.v)
		}
		if p == tlsv3.TlsParameters_TLS_AUTO {
			fr.Unset = append(fr.Unset, "tls.common_tls_context.tls_params."+ver.field)
		}
		ver.set(p)
	}
	if t.ALPNProtocols != nil && len(t.ALPNProtocols) == 0 {
		fr.Unset = append(fr.Unset, "tls.common_tls_context.alpn_protocols")
	}
	if s := t.Session; s != nil && s.Resumption != nil {
		if s.Resumption.Stateless != nil {
			fr.Unset = append(fr.Unset, "tls.disable_stateless_session_resumption")
		}
		if s.Resumption.Stateful != nil {
			fr.Unset = append(fr.Unset, "tls.disable_stateful_session_resumption")
		}
	}
	if c := t.ClientValidation; c != nil {
		if err := clientValidation(ctx, c, who); err != nil {
			return nil, err
		}
	}
	return listenerSettings("tls", at, fr), nil
}

// rawObject is an object value's members (nil for another value).

// clientValidation sets how client certificates are validated: against
// the CA bundle the policy names (one SDS secret, see renderClientTLS),
// with the hashes and subject alternative names they must carry and
// expired ones accepted where asked (Envoy's combined validation context
// then holds those beside the bundle); without a bundle, mode Request
// asks for a certificate and RequireAny requires one, trusting any. The
// certificate is required unless optional, and Envoy Gateway says so
// either way.
func clientValidation(ctx *tlsv3.DownstreamTlsContext, c *egv1a1.ClientValidationContext, who policyName) error {
	common := ctx.CommonTlsContext
	mode, sans := c.Mode, c.SubjectAltNames
	if len(c.CACertificateRefs) == 0 {
		if mode == nil {
			return nil
		}
		switch string(*mode) {
		case "Request":
			ctx.RequireClientCertificate = wrapperspb.Bool(false)
		case "RequireAny":
			ctx.RequireClientCertificate = wrapperspb.Bool(true)
		default:
			return fmt.Errorf("tls.clientValidation.mode: unknown value %q", *mode)
		}
		common.ValidationContextType = &tlsv3.CommonTlsContext_ValidationContext{ValidationContext: &tlsv3.CertificateValidationContext{
			TrustChainVerification: tlsv3.CertificateValidationContext_ACCEPT_UNTRUSTED}}
		return nil
	}
	if mode != nil {
		return fmt.Errorf("tls.clientValidation.mode %q with caCertificateRefs is not rendered yet", *mode)
	}
	sds := &tlsv3.SdsSecretConfig{Name: policy.SecretSDSName(who.namespace, who.name+"/ca.crt"), SdsConfig: &corev3.ConfigSource{
		ResourceApiVersion:    corev3.ApiVersion_V3,
		ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}},
	}}
	def := &tlsv3.CertificateValidationContext{VerifyCertificateSpki: c.SPKIHashes, VerifyCertificateHash: c.CertificateHashes,
		AllowExpiredCertificate: c.AllowExpiredCertificate != nil && *c.AllowExpiredCertificate}
	if sans != nil {
		others := make([]egv1a1.StringMatch, len(sans.OtherNames))
		oids := make([]string, len(sans.OtherNames))
		for i, o := range sans.OtherNames {
			others[i], oids[i] = o.StringMatch, o.Oid
		}
		for _, group := range []struct {
			t    tlsv3.SubjectAltNameMatcher_SanType
			ms   []egv1a1.StringMatch
			oids []string
		}{
			{tlsv3.SubjectAltNameMatcher_DNS, sans.DNSNames, nil},
			{tlsv3.SubjectAltNameMatcher_EMAIL, sans.EmailAddresses, nil},
			{tlsv3.SubjectAltNameMatcher_IP_ADDRESS, sans.IPAddresses, nil},
			{tlsv3.SubjectAltNameMatcher_URI, sans.URIs, nil},
			{tlsv3.SubjectAltNameMatcher_OTHER_NAME, others, oids},
		} {
			for i, m := range group.ms {
				sm, err := sanMatcher(m)
				if err != nil {
					return fmt.Errorf("tls.clientValidation.subjectAltNames: %w", err)
				}
				oid := ""
				if group.oids != nil {
					oid = group.oids[i]
				}
				def.MatchTypedSubjectAltNames = append(def.MatchTypedSubjectAltNames, &tlsv3.SubjectAltNameMatcher{SanType: group.t, Matcher: sm, Oid: oid})
			}
		}
	}
	if proto.Equal(def, &tlsv3.CertificateValidationContext{}) {
		common.ValidationContextType = &tlsv3.CommonTlsContext_ValidationContextSdsSecretConfig{ValidationContextSdsSecretConfig: sds}
	} else {
		common.ValidationContextType = &tlsv3.CommonTlsContext_CombinedValidationContext{CombinedValidationContext: &tlsv3.CommonTlsContext_CombinedCertificateValidationContext{
			DefaultValidationContext: def, ValidationContextSdsSecretConfig: sds}}
	}
	ctx.RequireClientCertificate = wrapperspb.Bool(!c.Optional)
	return nil
}
