// Package secrettest makes TLS material for tests: a self-signed
// certificate and its key as PEM, generated when asked (no key is
// committed to the repository). It is for tests only, no stage of the
// pipeline, and imports nothing of gwpol's.
package secrettest

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
	"strings"
	"time"
)

// KeyPair is a new self-signed CA certificate for example.com and its
// private key, both PEM. It panics only if the standard library cannot
// make a key, which a test could not go on from anyway.
func KeyPair() (certPEM, keyPEM string) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "example.com"}, DNSNames: []string{"example.com"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(0, 0).Add(100 * 365 * 24 * time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		panic(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		panic(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}))
}

// SecretYAML is a Secret document holding the given entries as
// stringData (key, value, key, value…), each value a double-quoted YAML
// string.
func SecretYAML(namespace, name string, kv ...string) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Secret\nmetadata: {name: " + name + ", namespace: " + namespace + "}\nstringData:\n")
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString("  " + kv[i] + ": " + strconv.Quote(kv[i+1]) + "\n")
	}
	return b.String()
}

// PublicKeyPEM is a new ECDSA P-256 public key as a PEM PUBLIC KEY block.
func PublicKeyPEM() string {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		panic(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// TLSSecretYAML is a kubernetes.io/tls Secret document namespace/name,
// headed by "---", whose certificate has the one DNS SAN given and is
// valid now (from a year ago, for ten years), with its key: a listener
// that terminates TLS with it is programmed, and SANs are what decide
// between listeners that share a port.
func TLSSecretYAML(namespace, name, san string) string {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: san}, DNSNames: []string{san},
		NotBefore: now.AddDate(-1, 0, 0), NotAfter: now.AddDate(10, 0, 0), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		panic(err)
	}
	kder, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		panic(err)
	}
	b64 := func(typ string, b []byte) string {
		return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}))
	}
	return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: " + name + ", namespace: " + namespace + "}\ntype: kubernetes.io/tls\n" +
		"data: {tls.crt: " + b64("CERTIFICATE", der) + ", tls.key: " + b64("EC PRIVATE KEY", kder) + "}\n"
}
