package secret

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// keyPairErrors are crypto/tls's X509KeyPair errors that are constants:
// they say what is wrong in words of their own and quote nothing of the
// input, so they may be passed on as they are (kgateway's listener status
// carries them). Any other error of X509KeyPair is rewritten.
var keyPairErrors = []string{
	"tls: failed to find any PEM data in certificate input",
	"tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched",
	"tls: failed to find any PEM data in key input",
	"tls: found a certificate rather than a key in the PEM for the private key",
	"tls: failed to parse private key",
	"tls: private key type does not match public key type",
	"tls: private key does not match public key",
	"tls: unknown public key algorithm",
}

// CheckKeyPair checks a TLS certificate chain and its private key as
// kgateway's sslutils.ValidateTlsSecretData does for a listener's
// certificate Secret (and its BackendConfigPolicy for a client
// certificate): the two must parse as a PEM key pair whose key matches the
// first certificate, and every CERTIFICATE block of the chain must parse
// as X.509. The error is crypto/tls's where that is a constant sentence;
// otherwise it names PEM block types from the closed set (PEMType) and
// block numbers, never content.
func CheckKeyPair(cert, key Value) error {
	_, err := tls.X509KeyPair(cert.bytes(), key.bytes())
	if err != nil {
		msg := err.Error()
		switch {
		case slices.Contains(keyPairErrors, msg):
			return errors.New(msg)
		case strings.Contains(msg, "in certificate input after skipping PEM blocks"):
			return fmt.Errorf(`tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: %s`, blockTypes(cert))
		case strings.Contains(msg, "in key input after skipping PEM blocks"):
			return fmt.Errorf(`tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: %s`, blockTypes(key))
		case strings.HasPrefix(msg, "x509:"):
			return errors.New("x509: the first certificate of the chain does not parse")
		}
		return errors.New("tls: the certificate and the private key are not a usable pair")
	}
	// kgateway parses the chain again as client-go's cert.ParseCertsPEM
	// does: a later CERTIFICATE block that is not X.509 fails it too.
	_, err = certificates(cert)
	return err
}

// CheckCACertificates checks a CA bundle (a ca.crt entry) as kgateway's
// sslutils.GetCACertFromConfigMap / GetCACertFromSecret do, through
// client-go's cert.ParseCertsPEM: it must hold at least one CERTIFICATE
// block, and each must parse as X.509; blocks of other types are skipped.
func CheckCACertificates(v Value) error {
	_, err := certificates(v)
	return err
}

// certificates parses every CERTIFICATE block of v.
func certificates(v Value) ([]*x509.Certificate, error) {
	data := v.bytes()
	var out []*x509.Certificate
	for n := 1; ; n++ {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("x509: PEM block %d (CERTIFICATE) does not parse as a certificate", n)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		// client-go's own sentence
		return nil, errors.New("data does not contain any valid RSA or ECDSA certificates")
	}
	return out, nil
}

// CertificatesPEM parses a value the way CheckCACertificates checks it,
// for callers that hold one in a ConfigMap (whose data is not secret, but
// is read through the same rule).
func CertificatesPEM(b []byte) error {
	_, err := certificates(NewValue(b))
	return err
}

// CleanedChainPEM is a certificate chain that is not secret (a policy's
// own text) as client-go's cert.ParseCertsPEM and cert.EncodeCertificates
// write it again: its CERTIFICATE blocks only, each re-encoded from the
// certificate it parses as, other blocks and text around them left out.
// kgateway's CleanedSslKeyPair writes a client certificate chain in this
// form once it has checked it; an error when the chain does not parse.
func CleanedChainPEM(b []byte) (string, error) {
	certs, err := certificates(NewValue(b))
	if err != nil {
		return "", err
	}
	var out strings.Builder
	for _, c := range certs {
		out.Write(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}))
	}
	return out.String(), nil
}

// blockTypes lists the PEM block types of v as a message may name them.
func blockTypes(v Value) string {
	data := v.bytes()
	var types []string
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		types = append(types, Term(b.Type, PEMTypes))
	}
	return "[" + strings.Join(types, " ") + "]"
}

// CheckTLSSecret checks a kubernetes.io/tls-style Secret's tls.crt,
// tls.key and ca.crt as kgateway's sslutils does: a Secret that holds
// only a ca.crt passes (its certificate and key are not checked);
// otherwise tls.crt and tls.key must be a key pair (CheckKeyPair).
func CheckTLSSecret(cert, key, ca Value) error {
	if cert.Len() == 0 && key.Len() == 0 && ca.Len() > 0 {
		return nil
	}
	return CheckKeyPair(cert, key)
}
