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
