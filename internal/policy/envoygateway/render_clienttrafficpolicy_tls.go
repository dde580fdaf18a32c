package envoygateway

import (
	"encoding/json"
	"fmt"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// clientTLS is spec.tls, the part rendered so far.
type clientTLS struct {
	MinVersion          *string  `json:"minVersion"`
	MaxVersion          *string  `json:"maxVersion"`
	Ciphers             []string `json:"ciphers"`
	ECDHCurves          []string `json:"ecdhCurves"`
	SignatureAlgorithms []string `json:"signatureAlgorithms"`
	ALPNProtocols       []string `json:"alpnProtocols"`
	Session             *struct {
		Resumption *struct {
			Stateless *struct{} `json:"stateless"`
			Stateful  *struct{} `json:"stateful"`
		} `json:"resumption"`
	} `json:"session"`
	ClientValidation *struct {
		Optional                *bool             `json:"optional"`
		AllowExpiredCertificate *bool             `json:"allowExpiredCertificate"`
		CACertificateRefs       []json.RawMessage `json:"caCertificateRefs"`
	} `json:"clientValidation"`
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
func renderClientTLS(v json.RawMessage, who policyName, at placement) ([]policy.Fragment, error) {
	if k := unrenderedKeys(v, "minVersion", "maxVersion", "ciphers", "ecdhCurves", "signatureAlgorithms", "alpnProtocols", "session", "clientValidation"); k != "" {
		return []policy.Fragment{{Capability: "envoygateway.ClientTrafficPolicy.tls." + k}}, nil
	}
	var t clientTLS
	if err := json.Unmarshal(v, &t); err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	if raw, ok := rawObject(v)["clientValidation"]; ok {
		if k := unrenderedKeys(raw, "optional", "allowExpiredCertificate", "caCertificateRefs"); k != "" {
			return []policy.Fragment{{Capability: "envoygateway.ClientTrafficPolicy.tls.clientValidation." + k}}, nil
		}
	}
	params := &tlsv3.TlsParameters{CipherSuites: t.Ciphers, EcdhCurves: t.ECDHCurves, SignatureAlgorithms: t.SignatureAlgorithms}
	common := &tlsv3.CommonTlsContext{TlsParams: params, AlpnProtocols: t.ALPNProtocols}
	ctx := &tlsv3.DownstreamTlsContext{CommonTlsContext: common}
	fr := policy.Fragment{DownstreamTLS: ctx}
	for _, ver := range []struct {
		name, field string
		v           *string
		set         func(tlsv3.TlsParameters_TlsProtocol)
	}{
		{"minVersion", "tls_minimum_protocol_version", t.MinVersion, func(p tlsv3.TlsParameters_TlsProtocol) { params.TlsMinimumProtocolVersion = p }},
		{"maxVersion", "tls_maximum_protocol_version", t.MaxVersion, func(p tlsv3.TlsParameters_TlsProtocol) { params.TlsMaximumProtocolVersion = p }},
	} {
		if ver.v == nil {
			continue
		}
		p, ok := tlsVersions[*ver.v]
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
	if c := t.ClientValidation; c != nil && len(c.CACertificateRefs) > 0 {
		sds := &tlsv3.SdsSecretConfig{Name: policy.SecretSDSName(who.namespace, who.name+"/ca.crt"), SdsConfig: &corev3.ConfigSource{
			ResourceApiVersion:    corev3.ApiVersion_V3,
			ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}},
		}}
		if c.AllowExpiredCertificate != nil && *c.AllowExpiredCertificate {
			common.ValidationContextType = &tlsv3.CommonTlsContext_CombinedValidationContext{CombinedValidationContext: &tlsv3.CommonTlsContext_CombinedCertificateValidationContext{
				DefaultValidationContext:         &tlsv3.CertificateValidationContext{AllowExpiredCertificate: true},
				ValidationContextSdsSecretConfig: sds,
			}}
		} else {
			common.ValidationContextType = &tlsv3.CommonTlsContext_ValidationContextSdsSecretConfig{ValidationContextSdsSecretConfig: sds}
		}
		if c.Optional == nil || !*c.Optional {
			ctx.RequireClientCertificate = wrapperspb.Bool(true)
		}
	}
	return listenerSettings("tls", at, fr), nil
}

// rawObject is an object value's members (nil for another value).
func rawObject(v json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return nil
	}
	return m
}
