package kgateway

import (
	"fmt"
	"strings"

	"github.com/gwpol/gwpol/internal/topology"
)

// The tls.options keys kgateway reads on an HTTPS listener.
const (
	OptionALPN                  = "kgateway.dev/alpn-protocols"
	OptionCipherSuites          = "kgateway.dev/cipher-suites"
	OptionECDHCurves            = "kgateway.dev/ecdh-curves"
	OptionSignatureAlgorithms   = "kgateway.dev/signature-algorithms"
	OptionMinVersion            = "kgateway.dev/min-tls-version"
	OptionMaxVersion            = "kgateway.dev/max-tls-version"
	OptionVerifyCertificateHash = "kgateway.dev/verify-certificate-hash"
	OptionVerifySubjectAltNames = "kgateway.dev/verify-subject-alt-names"
)

// The ALPN option's values.
const (
	alpnAllowEmpty   = "allow-empty"
	defaultALPNProto = "h2,http/1.1"
)

// tlsOptions reads an HTTPS listener's tls.options as kgateway does
// (policy.Controller.TLSOptions; its sslutils): h2 and http/1.1 offered
// unless the ALPN option says otherwise ("allow-empty": none), comma
// lists kept in the order written, TLS versions as Envoy names them. An
// option kgateway rejects — an unknown TLS version, a certificate hash
// that is no SHA-256 digest, a maximum version below the minimum, subject
// alt names to verify without a trusted CA — is an error naming it.
func tlsOptions(l *topology.Listener) (topology.TLSOptions, error) {
	var o topology.TLSOptions
	opts := map[string]string{}
	if l.TLS != nil {
		for k, v := range l.TLS.Options {
			opts[string(k)] = string(v)
		}
	}
	alpn := defaultALPNProto
	if v, ok := opts[OptionALPN]; ok {
		alpn = v
	}
	if alpn != alpnAllowEmpty {
		o.ALPN = commaList(alpn)
	}
	o.CipherSuites = commaList(opts[OptionCipherSuites])
	o.ECDHCurves = commaList(opts[OptionECDHCurves])
	o.SignatureAlgorithms = commaList(opts[OptionSignatureAlgorithms])
	var err error
	if o.MinVersion, err = tlsVersion(OptionMinVersion, opts[OptionMinVersion]); err != nil {
		return o, err
	}
	if o.MaxVersion, err = tlsVersion(OptionMaxVersion, opts[OptionMaxVersion]); err != nil {
		return o, err
	}
	o.CertificateHashes = hashList(opts[OptionVerifyCertificateHash])
	var bad []string
	for _, h := range o.CertificateHashes {
		if !sha256Hash(h) {
			bad = append(bad, "invalid certificate hash: "+h)
		}
	}
	if len(bad) > 0 {
		return o, fmt.Errorf("%s", strings.Join(bad, "\n"))
	}
	if o.MinVersion != "" && o.MaxVersion != "" && o.MaxVersion < o.MinVersion {
		return o, fmt.Errorf("maximum tls version %s is less than minimum tls version %s", o.MaxVersion, o.MinVersion)
	}
	o.SubjectAltNames = commaList(opts[OptionVerifySubjectAltNames])
	if len(o.SubjectAltNames) > 0 && l.FrontendValidation() == nil {
		return o, fmt.Errorf("verify-subject-alt-names annotation requires a trusted CA to be configured")
	}
	return o, nil
}

// sha256Hash: a certificate hash kgateway accepts (sslutils
// validateCertificateHash) is a SHA-256 digest, 64 hex digits or 32
// colon-separated hex pairs.
func sha256Hash(h string) bool {
	hexOnly := func(s string) bool {
		for _, r := range s {
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
		return true
	}
	if len(h) == 64 {
		return hexOnly(h)
	}
	pairs := strings.Split(h, ":")
	if len(pairs) != 32 {
		return false
	}
	for _, p := range pairs {
		if len(p) != 2 || !hexOnly(p) {
			return false
		}
	}
	return true
}

func commaList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// hashList reads certificate hashes written comma-separated or as a
// YAML-like list folded into one string (" - A - B"), as kgateway's own
// examples write them.
func hashList(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
		if p != "-" {
			out = append(out, p)
		}
	}
	return out
}

func tlsVersion(opt, v string) (string, error) {
	switch v {
	case "":
		return "", nil
	case "1.0", "1.1", "1.2", "1.3":
		return "TLSv1_" + v[2:], nil
	}
	return "", fmt.Errorf("%s %q is not a TLS version (1.0, 1.1, 1.2 or 1.3)", opt, v)
}
