package secret

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// PublicKey is a public key read from a Secret with what may be said of
// it: its type (one of KeyTypes) and its size in bits.
type PublicKey struct {
	Key  crypto.PublicKey
	Type string
	Bits int
}

// PublicKeys reads v as PEM (PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE
// blocks) or as a JWKS document (RSA and EC keys). The error says what is
// wrong in block and key numbers and closed-set words only.
func PublicKeys(v Value) ([]PublicKey, error) {
	text := strings.TrimSpace(string(v.bytes()))
	switch {
	case text == "":
		return nil, errors.New("it is empty")
	case strings.HasPrefix(text, "{"):
		return jwksKeys([]byte(text))
	}
	return pemKeys([]byte(text))
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

// jwk is the part of a JSON Web Key gwpol reads.
type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	N   string `json:"n"`
	E   string `json:"e"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

func jwksKeys(data []byte) ([]PublicKey, error) {
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		// encoding/json's error may quote the document: never passed on.
		return nil, errors.New("it is not a valid JWKS document (JSON)")
	}
	if len(set.Keys) == 0 {
		return nil, errors.New("the JWKS document has no keys")
	}
	var keys []PublicKey
	for i, k := range set.Keys {
		pub, err := k.public()
		if err != nil {
			return nil, fmt.Errorf("JWKS key %d: %w", i, err)
		}
		keys = append(keys, describe(pub))
	}
	return keys, nil
}

func b64url(s, field string) (*big.Int, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("%s is not base64url", field)
	}
	return new(big.Int).SetBytes(b), nil
}

func (k jwk) public() (any, error) {
	switch k.Kty {
	case "RSA":
		n, err := b64url(k.N, "n")
		if err != nil {
			return nil, err
		}
		e, err := b64url(k.E, "e")
		if err != nil {
			return nil, err
		}
		if !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31-1 {
			return nil, errors.New("e is not a usable RSA exponent")
		}
		return &rsa.PublicKey{N: n, E: int(e.Int64())}, nil
	case "EC":
		var c elliptic.Curve
		switch k.Crv {
		case "P-256":
			c = elliptic.P256()
		case "P-384":
			c = elliptic.P384()
		case "P-521":
			c = elliptic.P521()
		default:
			return nil, fmt.Errorf("curve %s is not P-256, P-384 or P-521", JWKCurve(k.Crv))
		}
		x, err := b64url(k.X, "x")
		if err != nil {
			return nil, err
		}
		y, err := b64url(k.Y, "y")
		if err != nil {
			return nil, err
		}
		size := (c.Params().BitSize + 7) / 8
		if len(x.Bytes()) > size || len(y.Bytes()) > size {
			// FillBytes would panic on a coordinate wider than the curve.
			return nil, fmt.Errorf("the point is not on curve %s", c.Params().Name)
		}
		raw := append([]byte{4}, append(x.FillBytes(make([]byte, size)), y.FillBytes(make([]byte, size))...)...)
		pub, err := ecdsa.ParseUncompressedPublicKey(c, raw)
		if err != nil {
			return nil, fmt.Errorf("the point is not on curve %s", c.Params().Name)
		}
		return pub, nil
	}
	return nil, fmt.Errorf("kty %s is not RSA or EC", JWKType(k.Kty))
}
