package status_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"time"
)

// testTLS is the data of a TLS Secret whose certificate is valid now and
// matches its key, and testCA a CA bundle valid now, base64-encoded as
// in a Secret's data: Envoy Gateway reads both (tls.go), so the tests'
// Secrets hold real ones. testExpiredTLS's certificate has expired;
// testMismatchedTLS's key is another certificate's.
var testTLS, testCA, testExpiredTLS, testMismatchedTLS = func() (string, string, string, string) {
	now := time.Now()
	good, goodKey := testPair(now.AddDate(-1, 0, 0), now.AddDate(10, 0, 0))
	old, oldKey := testPair(now.AddDate(-3, 0, 0), now.AddDate(-1, 0, 0))
	pair := func(crt, key string) string { return "{tls.crt: " + crt + ", tls.key: " + key + "}" }
	return pair(good, goodKey), "{ca.crt: " + good + "}", pair(old, oldKey), pair(good, oldKey)
}()

// testPair is a self-signed certificate valid from..to and its key, PEM
// and base64-encoded.
func testPair(from, to time.Time) (crt, key string) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "www.example.com"}, DNSNames: []string{"www.example.com"},
		NotBefore: from, NotAfter: to, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		panic(err)
	}
	kder, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		panic(err)
	}
	b64 := func(t string, b []byte) string {
		return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: t, Bytes: b}))
	}
	return b64("CERTIFICATE", der), b64("EC PRIVATE KEY", kder)
}
