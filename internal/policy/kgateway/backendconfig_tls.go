package kgateway

import (
	"encoding/json"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/secret"
)

// tlsSpec is the part of spec.tls that is checked before translation: the
// certificate sources, the validation settings and the TLS parameters.
type tlsSpec struct {
	SecretRef *struct {
		Name string `json:"name"`
	} `json:"secretRef"`
	Files *struct {
		TLSCertificate *string `json:"tlsCertificate"`
		TLSKey         *string `json:"tlsKey"`
		RootCA         *string `json:"rootCA"`
	} `json:"files"`
	SimpleTLS               *bool          `json:"simpleTLS"`
	InsecureSkipVerify      *bool          `json:"insecureSkipVerify"`
	WellKnownCACertificates *string        `json:"wellKnownCACertificates"`
	VerifySubjectAltNames   []string       `json:"verifySubjectAltNames"`
	Parameters              *tlsParameters `json:"parameters"`
}

type tlsParameters struct {
	MinVersion          *string  `json:"minVersion"`
	MaxVersion          *string  `json:"maxVersion"`
	CipherSuites        []string `json:"cipherSuites"`
	EcdhCurves          []string `json:"ecdhCurves"`
	SignatureAlgorithms []string `json:"signatureAlgorithms"`
}

// tlsSources is what kgateway's extractTLSData reads from the Secret or
// the files: the client certificate and key, and the trusted CA, an empty
// value where the source holds none. known is false when the Secret's
// content is not in the input (config assumeExist, or a Secret written
// with metadata only, or none found): then nothing of it is checked, and
// render takes it to hold all three. The status check and render read
// the sources through readTLSSources, so they cannot disagree.
type tlsSources struct {
	cert, key, ca secret.Value
	known         bool
	// found: a secretRef's Secret is in the input or assumed to exist.
	found bool
}

// readTLSSources reads spec.tls's certificate source as extractTLSData
// does: the Secret's tls.crt, tls.key and ca.crt (in the policy's
// namespace, no ReferenceGrant), else the files, whose values the policy
// holds itself. insecureSkipVerify and wellKnownCACertificates name no
// source (the CRD takes exactly one of the four).
func readTLSSources(t tlsSpec, m *model.Model, ns string) tlsSources {
	var d tlsSources
	switch {
	case t.SecretRef != nil:
		var s *model.Opaque
		if m != nil {
			s = m.Secret(ns, t.SecretRef.Name)
		}
		if s == nil {
			return d
		}
		d.found = true
		if s.Assumed || len(s.Keys) == 0 {
			return d
		}
		d.known = true
		d.cert, _ = s.Value("tls.crt")
		d.key, _ = s.Value("tls.key")
		d.ca, _ = s.Value("ca.crt")
	case t.Files != nil:
		d.known = true
		d.cert = secret.NewValue([]byte(deref(t.Files.TLSCertificate)))
		d.key = secret.NewValue([]byte(deref(t.Files.TLSKey)))
		d.ca = secret.NewValue([]byte(deref(t.Files.RootCA)))
	}
	return d
}

// clientCertificate: kgateway's buildCertificateContext writes a client
// certificate only when the source holds both a chain and a key (one
// without the other is an error, neither is one-way TLS), and simpleTLS
// reads none; a Secret whose content is not in the input is taken to
// hold one.
func (d tlsSources) clientCertificate(t tlsSpec) bool {
	if isTrue(t.SimpleTLS) {
		return false
	}
	return !d.known || (d.cert.Len() > 0 && d.key.Len() > 0)
}

// trustedCA: buildValidationContext validates against the source's CA
// only when it holds one; a Secret whose content is not in the input is
// taken to hold one.
func (d tlsSources) trustedCA() bool { return !d.known || d.ca.Len() > 0 }

// checkTLS finds what makes kgateway reject a policy's tls, in its
// translateTLSConfig order (tls.go): with insecureSkipVerify nothing but
// the parameters; the Secret must exist (in the policy's namespace, no
// ReferenceGrant) and a ca.crt it holds must parse; a client certificate
// needs both its chain and its key, and they must be a PEM pair (not read
// for simpleTLS); without a trusted CA (and not the system's) there may be
// no verifySubjectAltNames. In Strict mode, where kgateway has Envoy
// validate the cluster, cipher suites Envoy's TLS library does not know.
// The Secret's values are read through internal/secret: a problem names
// the Secret and its keys, never what they hold.
func checkTLS(p *policy.Policy, v any, m *model.Model, ns string, strictMode bool) {
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
	invalid := func(path, format string, args ...any) {
		p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, path, format, args...))
	}
	if !isTrue(t.InsecureSkipVerify) {
		checkTLSData(t, m, ns, invalid)
	}
	if !strictMode || t.Parameters == nil {
		return
	}
	if bad := unknownCiphers(t.Parameters.CipherSuites); len(bad) > 0 {
		invalid("spec.tls.parameters.cipherSuites",
			"invalid xds configuration: Failed to initialize cipher suites %s. The following ciphers were rejected when tried individually: %s",
			strings.Join(t.Parameters.CipherSuites, ":"), strings.Join(bad, ", "))
	}
}

// checkTLSData is kgateway's buildTLSContext check by check.
func checkTLSData(t tlsSpec, m *model.Model, ns string, invalid func(path, format string, args ...any)) {
	d := readTLSSources(t, m, ns)
	path := "spec.tls.files"
	if t.SecretRef != nil {
		path = "spec.tls.secretRef"
		if !d.found {
			invalid(path, "failed to extract TLS data: Secret %s/%s not found", ns, t.SecretRef.Name)
			return
		}
		if !d.known {
			return
		}
		if d.ca.Len() > 0 {
			if err := secret.CheckCACertificates(d.ca); err != nil {
				invalid(path, "failed to extract TLS data: invalid ca.crt in Secret %s/%s: %v", ns, t.SecretRef.Name, err)
				return
			}
		}
	}
	if !isTrue(t.SimpleTLS) && (d.cert.Len() > 0 || d.key.Len() > 0) {
		if d.cert.Len() == 0 || d.key.Len() == 0 {
			invalid(path, "invalid TLS config: for if providing a client certificate, both certChain and privateKey must be provided")
			return
		}
		if err := secret.CheckKeyPair(d.cert, d.key); err != nil {
			invalid(path, "invalid certificate and key pair: %v", err)
			return
		}
	}
	if t.WellKnownCACertificates != nil && *t.WellKnownCACertificates == "System" {
		return
	}
	if (d.known || t.SecretRef == nil) && d.ca.Len() == 0 && len(t.VerifySubjectAltNames) > 0 {
		invalid("spec.tls.verifySubjectAltNames", "a root_ca must be provided if verify_subject_alt_name is not empty")
	}
}

func isTrue(b *bool) bool { return b != nil && *b }

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
