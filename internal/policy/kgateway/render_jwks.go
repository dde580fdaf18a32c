package kgateway

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"strings"
)

// jwk is one JSON Web Key, its members in the order kgateway (go-jose)
// writes them.
type jwk struct {
	Use string `json:"use,omitempty"`
	Kty string `json:"kty"`
	Crv string `json:"crv,omitempty"`
	Alg string `json:"alg,omitempty"`
	X   string `json:"x,omitempty"`
	Y   string `json:"y,omitempty"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
}

// inlineJWKS is an inline key set as kgateway hands it to Envoy: PEM
// public keys become a JWKS document (one signing key each, RS256 for RSA,
// ES256/384/512 by curve), anything else — a JWKS already, or what gwpol
// cannot read as PEM — stays as written (Envoy accepts both).
func inlineJWKS(s string) string {
	if !strings.Contains(s, "-----BEGIN") {
		return s
	}
	var keys []jwk
	rest := []byte(s)
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		k, ok := publicJWK(block.Bytes)
		if !ok {
			return s
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return s
	}
	b, err := json.Marshal(struct {
		Keys []jwk `json:"keys"`
	}{keys})
	if err != nil {
		return s
	}
	return string(b)
}

// publicJWK reads a DER public key (PKIX, or PKCS#1 RSA) as a signing JWK.
func publicJWK(der []byte) (jwk, bool) {
	pub, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		if rk, err := x509.ParsePKCS1PublicKey(der); err == nil {
			pub = rk
		} else {
			return jwk{}, false
		}
	}
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return jwk{Use: "sig", Kty: "RSA", Alg: "RS256", N: b64(k.N.Bytes()), E: b64(big.NewInt(int64(k.E)).Bytes())}, true
	case *ecdsa.PublicKey:
		alg, size := map[string]string{"P-256": "ES256", "P-384": "ES384", "P-521": "ES512"}[k.Curve.Params().Name], (k.Curve.Params().BitSize+7)/8
		if alg == "" {
			return jwk{}, false
		}
		ecdh, err := k.ECDH()
		if err != nil {
			return jwk{}, false
		}
		raw := ecdh.Bytes() // 0x04 || X || Y, each padded to the curve size
		return jwk{Use: "sig", Kty: "EC", Crv: k.Curve.Params().Name, Alg: alg, X: b64(raw[1 : 1+size]), Y: b64(raw[1+size:])}, true
	}
	return jwk{}, false
}

// b64 is JOSE's base64url without padding.
func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
