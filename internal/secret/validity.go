package secret

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"time"
)

// The certificate checks a controller makes on the PEM data of a TLS
// Secret or a CA bundle (Envoy Gateway's tls.go: validateCertBlock,
// validateServingCertificateChain, filterValidCACertificates, validateCrl,
// parseCertsFromTLSSecretsData). They depend on the time, as the
// controller's do: now is when the controller would look. Their errors say
// PEM block numbers, validity dates and key formats from a closed set,
// never a certificate's content.

// certBlock checks the certificates of one PEM block (the n-th, from 1):
// they parse and are valid at now.
func certBlock(b *pem.Block, n int, now time.Time) error {
	certs, err := x509.ParseCertificates(b.Bytes)
	if err != nil {
		return fmt.Errorf("PEM block %d is not a valid certificate", n)
	}
	for _, c := range certs {
		if now.After(c.NotAfter) {
			return fmt.Errorf("the certificate in PEM block %d has expired since %v", n, c.NotAfter)
		}
		if now.Before(c.NotBefore) {
			return fmt.Errorf("the certificate in PEM block %d will be valid after %v", n, c.NotBefore)
		}
	}
	return nil
}

// blocks are the PEM blocks of data, in order, up to the first text that
// is not one.
func blocks(data []byte) []*pem.Block {
	var out []*pem.Block
	for len(data) > 0 {
		b, rest := pem.Decode(data)
		if b == nil {
			break
		}
		out = append(out, b)
		data = rest
	}
	return out
}

// CheckServingChain checks a serving certificate chain (a TLS Secret's
// tls.crt) as Envoy Gateway's validateServingCertificateChain does: there
// is data, at least one PEM block, and every block's certificates parse and
// are valid at now (an expired intermediate refuses the whole chain).
func CheckServingChain(v Value, now time.Time) error {
	data := v.bytes()
	if len(data) == 0 {
		return errors.New("no certificate data provided")
	}
	bs := blocks(data)
	for i, b := range bs {
		if err := certBlock(b, i+1, now); err != nil {
			return err
		}
	}
	if len(bs) == 0 {
		return errors.New("unable to decode pem data for certificate")
	}
	return nil
}

// Leaf is a serving chain's first certificate as a controller compares
// the certificates of one listener: its public key algorithm, which may be
// said, and the domains it serves (its DNS SANs, else its common name),
// for the comparison only, not to print; SANs are its DNS SANs alone
// (the certificates of listeners sharing a port are compared by them),
// not to print either.
type Leaf struct {
	Algorithm string
	Domains   []string
	SANs      []string
}

// CheckServingKeyPair checks a TLS Secret's tls.key against its tls.crt, which
// CheckServingChain accepted, as parseCertsFromTLSSecretsData does: the
// first private key block (skipping others, such as EC PARAMETERS) is
// PKCS1, PKCS8 or EC and parses in its format, and it matches the
// certificate. It returns the leaf's algorithm and domains.
func CheckServingKeyPair(chain, key Value) (Leaf, error) {
	bs := blocks(chain.bytes())
	if len(bs) == 0 {
		return Leaf{}, errors.New("unable to decode pem data in tls.crt")
	}
	leaf, err := x509.ParseCertificate(bs[0].Bytes)
	if err != nil {
		return Leaf{}, errors.New("unable to parse certificate in tls.crt")
	}
	kb := firstKeyBlock(key.bytes())
	if kb == nil {
		return Leaf{}, errors.New("unable to decode pem data in tls.key")
	}
	switch kb.Type {
	case "PRIVATE KEY":
		_, err = x509.ParsePKCS8PrivateKey(kb.Bytes)
	case "RSA PRIVATE KEY":
		_, err = x509.ParsePKCS1PrivateKey(kb.Bytes)
	case "EC PRIVATE KEY":
		_, err = x509.ParseECPrivateKey(kb.Bytes)
	default:
		return Leaf{}, fmt.Errorf("%s key format found in tls.key, supported formats are PKCS1, PKCS8 or EC", PEMType(kb.Type))
	}
	if err != nil {
		format := map[string]string{"PRIVATE KEY": "PKCS8", "RSA PRIVATE KEY": "PKCS1", "EC PRIVATE KEY": "EC"}[kb.Type]
		return Leaf{}, fmt.Errorf("unable to parse %s formatted private key in tls.key", format)
	}
	var certPEM []byte
	for _, b := range bs {
		certPEM = append(certPEM, pem.EncodeToMemory(b)...)
	}
	if _, err := tls.X509KeyPair(certPEM, pem.EncodeToMemory(kb)); err != nil {
		return Leaf{}, errors.New("the private key in tls.key does not match the certificate in tls.crt")
	}
	l := Leaf{Algorithm: leaf.PublicKeyAlgorithm.String(), Domains: leaf.DNSNames, SANs: leaf.DNSNames}
	if len(l.Domains) == 0 && leaf.Subject.CommonName != "" {
		l.Domains = []string{leaf.Subject.CommonName}
	}
	return l, nil
}

// firstKeyBlock is the first supported private key block, else the first
// block (whose type the caller reports), nil when there is none.
func firstKeyBlock(data []byte) *pem.Block {
	bs := blocks(data)
	for _, b := range bs {
		switch b.Type {
		case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY":
			return b
		}
	}
	if len(bs) > 0 {
		return bs[0]
	}
	return nil
}

// CheckCABundle checks a CA bundle as filterValidCACertificates does: a
// bundle is independent trust anchors, so an invalid block is left out
// and the rest kept. valid says whether any certificate is left; err joins
// the problems (with valid false, the bundle is refused; with valid true,
// it is partly invalid).
func CheckCABundle(v Value, now time.Time) (valid bool, err error) {
	data := v.bytes()
	if len(data) == 0 {
		return false, errors.New("no certificate data provided")
	}
	var errs []error
	for i, b := range blocks(data) {
		if err := certBlock(b, i+1, now); err != nil {
			errs = append(errs, err)
			continue
		}
		valid = true
	}
	if !valid && len(errs) == 0 {
		return false, errors.New("unable to decode pem data for certificate")
	}
	return valid, errors.Join(errs...)
}

// CheckCRL checks a certificate revocation list as validateCrl does: its
// first PEM block parses, it is not past its next update and not before
// its this update.
func CheckCRL(v Value, now time.Time) error {
	b, _ := pem.Decode(v.bytes())
	if b == nil {
		return errors.New("unable to decode pem data for CRL")
	}
	crl, err := x509.ParseRevocationList(b.Bytes)
	if err != nil {
		return errors.New("failed to parse CRL")
	}
	if !crl.NextUpdate.IsZero() && now.After(crl.NextUpdate) {
		return fmt.Errorf("CRL is expired (next update was due at %v)", crl.NextUpdate)
	}
	if now.Before(crl.ThisUpdate) {
		return fmt.Errorf("CRL is not yet valid (this update starts at %v)", crl.ThisUpdate)
	}
	return nil
}

// CheckUnixURL checks an SDS server's address as Envoy Gateway's
// netutil.ParseURL does: a unix:// URL with a path (unix:///abs or
// unix://./rel) and no other host. It names a scheme only from the set
// it knows.
func CheckUnixURL(v Value) error {
	u, err := url.Parse(string(v.bytes()))
	if err != nil {
		return errors.New("invalid URL")
	}
	switch u.Scheme {
	case "unix":
	case "http", "https":
		return fmt.Errorf("unsupported URL scheme: %s", u.Scheme)
	default:
		return errors.New("unsupported URL scheme")
	}
	if u.Host != "" && u.Host != "." {
		return errors.New("unix URL must not contain a host, use unix:///absolute/path")
	}
	if u.Path == "" && u.Host != "." {
		return errors.New("unix URL must contain a path")
	}
	return nil
}
