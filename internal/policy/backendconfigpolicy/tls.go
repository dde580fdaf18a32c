package backendconfigpolicy

import (
	"crypto/tls"
	"encoding/json"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// tlsSpec is the part of spec.tls that is checked before translation: the
// certificate files and the TLS parameters.
type tlsSpec struct {
	Files *struct {
		TLSCertificate *string `json:"tlsCertificate"`
		TLSKey         *string `json:"tlsKey"`
		RootCA         *string `json:"rootCA"`
	} `json:"files"`
	Parameters *tlsParameters `json:"parameters"`
}

type tlsParameters struct {
	MinVersion          *string  `json:"minVersion"`
	MaxVersion          *string  `json:"maxVersion"`
	CipherSuites        []string `json:"cipherSuites"`
	EcdhCurves          []string `json:"ecdhCurves"`
	SignatureAlgorithms []string `json:"signatureAlgorithms"`
}

// checkTLS finds what makes kgateway reject a policy's tls: a client
// certificate and key that are not a PEM pair (kgateway parses them when
// it translates, in every validation mode), and — in Strict mode, where
// kgateway has Envoy validate the cluster — cipher suites Envoy's TLS
// library does not know.
func checkTLS(p *policy.Policy, v any, strictMode bool) {
	if v == nil {
		return
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return
	}
	var t tlsSpec
	if json.Unmarshal(raw, &t) != nil {
		return // the renderer reports the shape
	}
	if f := t.Files; f != nil && (f.TLSCertificate != nil || f.TLSKey != nil) {
		if _, err := tls.X509KeyPair([]byte(deref(f.TLSCertificate)), []byte(deref(f.TLSKey))); err != nil {
			p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "spec.tls.files", "invalid certificate and key pair: %v", err))
		}
	}
	if !strictMode || t.Parameters == nil {
		return
	}
	if bad := unknownCiphers(t.Parameters.CipherSuites); len(bad) > 0 {
		p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "spec.tls.parameters.cipherSuites",
			"invalid xds configuration: Failed to initialize cipher suites %s. The following ciphers were rejected when tried individually: %s",
			strings.Join(t.Parameters.CipherSuites, ":"), strings.Join(bad, ", ")))
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// unknownCiphers are the cipher suites BoringSSL (Envoy's TLS library)
// rejects one by one: neither a suite it implements nor a selector of
// its cipher-list syntax ("[A|B]" groups, !, +, - prefixes, keywords).
func unknownCiphers(suites []string) []string {
	var bad []string
	for _, s := range suites {
		if !knownCipher(s) {
			bad = append(bad, s)
		}
	}
	return bad
}

func knownCipher(s string) bool {
	if g, ok := strings.CutPrefix(s, "["); ok {
		g, ok = strings.CutSuffix(g, "]")
		if !ok {
			return false
		}
		for _, c := range strings.Split(g, "|") {
			if !knownCipher(c) {
				return false
			}
		}
		return true
	}
	s = strings.TrimLeft(s, "!+-")
	for _, part := range strings.Split(s, "+") {
		if !boringCiphers[part] && !boringCipherKeywords[part] {
			return false
		}
	}
	return s != ""
}

// boringCiphers are the TLS 1.2 suites BoringSSL implements, by its names.
var boringCiphers = setOf(
	"ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
	"ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
	"ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305", "ECDHE-PSK-CHACHA20-POLY1305",
	"ECDHE-ECDSA-AES128-SHA", "ECDHE-RSA-AES128-SHA", "ECDHE-PSK-AES128-CBC-SHA",
	"ECDHE-ECDSA-AES256-SHA", "ECDHE-RSA-AES256-SHA", "ECDHE-PSK-AES256-CBC-SHA",
	"AES128-GCM-SHA256", "AES256-GCM-SHA384", "AES128-SHA", "PSK-AES128-CBC-SHA",
	"AES256-SHA", "PSK-AES256-CBC-SHA", "DES-CBC3-SHA",
	"ECDHE-ECDSA-AES128-SHA256", "ECDHE-RSA-AES128-SHA256",
)

// boringCipherKeywords select groups of suites in BoringSSL's syntax.
var boringCipherKeywords = setOf(
	"ALL", "DEFAULT", "COMPLEMENTOFDEFAULT", "COMPLEMENTOFALL", "HIGH", "MEDIUM", "FIPS",
	"kRSA", "RSA", "kECDHE", "kEECDH", "ECDHE", "EECDH", "kPSK", "aRSA", "aECDSA", "ECDSA", "aPSK", "PSK",
	"3DES", "AES128", "AES256", "AES", "AESGCM", "CHACHA20", "SHA1", "SHA", "SHA256", "SHA384",
	"SSLv3", "TLSv1", "TLSv1.2", "@STRENGTH",
)

func setOf(names ...string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}
