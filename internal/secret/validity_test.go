package secret

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"
)

// testNow is the time the checks run at in these tests.
var testNow = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

type testCert struct {
	cert, key []byte // PEM
	priv      *ecdsa.PrivateKey
	tmpl      *x509.Certificate
}

// newCert makes a self-signed certificate for name valid from notBefore
// to notAfter.
func newCert(t *testing.T, name string, notBefore, notAfter time.Time) testCert {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: notBefore, NotAfter: notAfter, IsCA: true, SubjectKeyId: []byte(name), BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return testCert{cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), key: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), priv: priv, tmpl: tmpl}
}

func TestCertificateChecks(t *testing.T) {
	valid := newCert(t, "valid.example.com", testNow.AddDate(-1, 0, 0), testNow.AddDate(1, 0, 0))
	other := newCert(t, "other.example.com", testNow.AddDate(-1, 0, 0), testNow.AddDate(1, 0, 0))
	expired := newCert(t, "expired.example.com", testNow.AddDate(-2, 0, 0), testNow.AddDate(-1, 0, 0))
	future := newCert(t, "future.example.com", testNow.AddDate(1, 0, 0), testNow.AddDate(2, 0, 0))
	v := func(parts ...[]byte) Value {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return NewValue(b)
	}

	chains := []struct {
		name string
		v    Value
		want string
	}{
		{"valid", v(valid.cert), ""},
		{"empty", v(), "no certificate data provided"},
		{"not PEM", v([]byte("not a certificate")), "unable to decode pem data for certificate"},
		{"expired", v(expired.cert), "the certificate in PEM block 1 has expired since"},
		{"expired intermediate", v(valid.cert, expired.cert), "the certificate in PEM block 2 has expired since"},
		{"not yet valid", v(future.cert), "the certificate in PEM block 1 will be valid after"},
		{"garbage block", v(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("x")})), "PEM block 1 is not a valid certificate"},
	}
	for _, tc := range chains {
		t.Run("chain/"+tc.name, func(t *testing.T) {
			err := CheckServingChain(tc.v, testNow)
			if got := errText(err); tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
				t.Errorf("CheckServingChain = %q, want %q", got, tc.want)
			}
		})
	}

	pkcs8, _ := x509.MarshalPKCS8PrivateKey(valid.priv)
	pairs := []struct {
		name       string
		chain, key Value
		want       string
	}{
		{"EC key", v(valid.cert), v(valid.key), ""},
		{"PKCS8 key after EC PARAMETERS", v(valid.cert), v(pem.EncodeToMemory(&pem.Block{Type: "EC PARAMETERS", Bytes: []byte{1}}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})), ""},
		{"another certificate's key", v(valid.cert), v(other.key), "the private key in tls.key does not match the certificate in tls.crt"},
		{"no key", v(valid.cert), v([]byte("x")), "unable to decode pem data in tls.key"},
		{"bad PKCS1", v(valid.cert), v(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: []byte("x")})), "unable to parse PKCS1 formatted private key in tls.key"},
		{"unsupported format", v(valid.cert), v(pem.EncodeToMemory(&pem.Block{Type: "DSA PRIVATE KEY", Bytes: []byte("x")})), "PEM DSA PRIVATE KEY key format found in tls.key, supported formats are PKCS1, PKCS8 or EC"},
	}
	for _, tc := range pairs {
		t.Run("keypair/"+tc.name, func(t *testing.T) {
			leaf, err := CheckServingKeyPair(tc.chain, tc.key)
			if got := errText(err); got != tc.want {
				t.Errorf("CheckServingKeyPair = %q, want %q", got, tc.want)
			}
			if err == nil && (leaf.Algorithm != "ECDSA" || len(leaf.Domains) != 1 || leaf.Domains[0] != "valid.example.com") {
				t.Errorf("leaf = %+v, want ECDSA for valid.example.com", leaf)
			}
		})
	}

	bundles := []struct {
		name  string
		v     Value
		valid bool
		want  string
	}{
		{"valid", v(valid.cert, other.cert), true, ""},
		{"one expired", v(expired.cert, valid.cert), true, "the certificate in PEM block 1 has expired since"},
		{"all expired", v(expired.cert, future.cert), false, "the certificate in PEM block 1 has expired since"},
		{"not PEM", v([]byte("x")), false, "unable to decode pem data for certificate"},
		{"empty", v(), false, "no certificate data provided"},
	}
	for _, tc := range bundles {
		t.Run("bundle/"+tc.name, func(t *testing.T) {
			ok, err := CheckCABundle(tc.v, testNow)
			if got := errText(err); ok != tc.valid || !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
				t.Errorf("CheckCABundle = %v %q, want %v %q", ok, got, tc.valid, tc.want)
			}
		})
	}

	crl := func(this, next time.Time) Value {
		der, err := x509.CreateRevocationList(rand.Reader, &x509.RevocationList{Number: big.NewInt(1), ThisUpdate: this, NextUpdate: next}, valid.tmpl, valid.priv)
		if err != nil {
			t.Fatal(err)
		}
		return NewValue(pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: der}))
	}
	crls := []struct {
		name string
		v    Value
		want string
	}{
		{"current", crl(testNow.AddDate(0, -1, 0), testNow.AddDate(0, 1, 0)), ""},
		{"expired", crl(testNow.AddDate(0, -2, 0), testNow.AddDate(0, -1, 0)), "CRL is expired (next update was due at"},
		{"not yet valid", crl(testNow.AddDate(0, 1, 0), testNow.AddDate(0, 2, 0)), "CRL is not yet valid (this update starts at"},
		{"not PEM", v([]byte("x")), "unable to decode pem data for CRL"},
		{"not a CRL", v(valid.cert), "failed to parse CRL"},
	}
	for _, tc := range crls {
		t.Run("crl/"+tc.name, func(t *testing.T) {
			if got := errText(CheckCRL(tc.v, testNow)); !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
				t.Errorf("CheckCRL = %q, want %q", got, tc.want)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
