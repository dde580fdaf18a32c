package secret

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
)

// PublicKey is a public key read from a Secret with what may be said of
// it: its type (one of KeyTypes) and its size in bits.
type PublicKey struct {
	Key  crypto.PublicKey
	Type string
	Bits int
}

// PEMPublicKeys reads v as PEM only (PUBLIC KEY, RSA PUBLIC KEY or
// CERTIFICATE blocks), for a reader that loads a PEM file and nothing
// else: a JWKS document is refused as such.
func PEMPublicKeys(v Value) ([]PublicKey, error) {
	text := strings.TrimSpace(string(v.bytes()))
	switch {
	case text == "":
		return nil, errors.New("it is empty")
	case strings.HasPrefix(text, "{"):
		return nil, errors.New("it is a JWKS document, not a PEM public key")
	}
	return pemKeys([]byte(text))
}

// describe says what a parsed key is; a type outside KeyTypes is
// Unrecognised (and fits no algorithm a caller checks).
func describe(k crypto.PublicKey) PublicKey {
	switch pub := k.(type) {
	case *rsa.PublicKey:
		return PublicKey{Key: pub, Type: "RSA", Bits: pub.N.BitLen()}
	case *ecdsa.PublicKey:
		return PublicKey{Key: pub, Type: Term("EC "+pub.Curve.Params().Name, KeyTypes), Bits: pub.Curve.Params().BitSize}
	case ed25519.PublicKey:
		return PublicKey{Key: pub, Type: "Ed25519", Bits: 256}
	}
	return PublicKey{Key: k, Type: Unrecognised}
}

func pemKeys(data []byte) ([]PublicKey, error) {
	var keys []PublicKey
	for n := 1; ; n++ {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			if n == 1 {
				return nil, errors.New("it is neither a PEM public key nor a JWKS document")
			}
			return keys, nil
		}
		var k any
		var err error
		switch b.Type {
		case "PUBLIC KEY":
			k, err = x509.ParsePKIXPublicKey(b.Bytes)
		case "RSA PUBLIC KEY":
			k, err = x509.ParsePKCS1PublicKey(b.Bytes)
		case "CERTIFICATE":
			var c *x509.Certificate
			if c, err = x509.ParseCertificate(b.Bytes); err == nil {
				k = c.PublicKey
			}
		default:
			// A private key here would be a leak as well as a mistake.
			return nil, fmt.Errorf("block %d is a %s, not a public key or certificate", n, PEMType(b.Type))
		}
		if err != nil {
			return nil, fmt.Errorf("block %d (%s) does not parse", n, PEMType(b.Type))
		}
		keys = append(keys, describe(k))
	}
}
