package envoygateway

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"strconv"
	"sync"
	"testing"
	"time"
)

// testPKI is PEM data for the certificate checks, made once, relative to
// now (the time certificatesNow gives): a CA certificate valid now, one
// expired, a CRL valid now and one expired, and a serving certificate with
// its key and another key.
type testPKI struct {
	ca, expiredCA, crl, expiredCRL, cert, key, otherKey []byte
}

var (
	pkiOnce sync.Once
	pki     testPKI
	pkiErr  error
)

func testCerts(t *testing.T) testPKI {
	t.Helper()
	pkiOnce.Do(func() { pki, pkiErr = makePKI(time.Now()) })
	if pkiErr != nil {
		t.Fatal(pkiErr)
	}
	return pki
}

func makePKI(now time.Time) (testPKI, error) {
	var out testPKI
	cert := func(name string, from, to time.Time) ([]byte, *x509.Certificate, *ecdsa.PrivateKey, error) {
		priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, nil, nil, err
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
			NotBefore: from, NotAfter: to, IsCA: true, BasicConstraintsValid: true, SubjectKeyId: []byte(name),
			KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
		if err != nil {
			return nil, nil, nil, err
		}
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), tmpl, priv, nil
	}
	key := func(priv *ecdsa.PrivateKey) []byte {
		der, _ := x509.MarshalECPrivateKey(priv)
		return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	}
	var (
		tmpl *x509.Certificate
		priv *ecdsa.PrivateKey
		err  error
	)
	if out.ca, tmpl, priv, err = cert("ca.example.com", now.AddDate(-1, 0, 0), now.AddDate(10, 0, 0)); err != nil {
		return out, err
	}
	if out.expiredCA, _, _, err = cert("old.example.com", now.AddDate(-3, 0, 0), now.AddDate(-1, 0, 0)); err != nil {
		return out, err
	}
	crl := func(this, next time.Time) ([]byte, error) {
		der, err := x509.CreateRevocationList(rand.Reader, &x509.RevocationList{Number: big.NewInt(1), ThisUpdate: this, NextUpdate: next}, tmpl, priv)
		return pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: der}), err
	}
	if out.crl, err = crl(now.AddDate(0, -1, 0), now.AddDate(10, 0, 0)); err != nil {
		return out, err
	}
	if out.expiredCRL, err = crl(now.AddDate(0, -2, 0), now.AddDate(0, -1, 0)); err != nil {
		return out, err
	}
	var servingKey *ecdsa.PrivateKey
	if out.cert, _, servingKey, err = cert("www.example.com", now.AddDate(-1, 0, 0), now.AddDate(10, 0, 0)); err != nil {
		return out, err
	}
	out.key = key(servingKey)
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return out, err
	}
	out.otherKey = key(other)
	return out, nil
}

// b64 is data as a Secret's data entry.
func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// quoted is text as a YAML double-quoted scalar (a ConfigMap's data entry).
func quoted(b []byte) string { return strconv.Quote(string(b)) }

// expiry is a PEM certificate's NotAfter as the checks print it.
func expiry(t *testing.T, p []byte) string {
	t.Helper()
	b, _ := pem.Decode(p)
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c.NotAfter.String()
}

// crlNext is a PEM CRL's NextUpdate as the checks print it.
func crlNext(t *testing.T, p []byte) string {
	t.Helper()
	b, _ := pem.Decode(p)
	c, err := x509.ParseRevocationList(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c.NextUpdate.String()
}
