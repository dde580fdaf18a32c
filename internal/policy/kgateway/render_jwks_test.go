package kgateway

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"testing"
)

// TestInlineJWKS: a PEM public key becomes a JWKS document holding the
// same key (read back from its members); text that is not PEM, or PEM
// that is not a public key, stays as written.
func TestInlineJWKS(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pub  crypto.PublicKey
		alg  string
	}{
		{"rsa", &rsaKey.PublicKey, "RS256"},
		{"ec", &ecKey.PublicKey, "ES384"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			der, err := x509.MarshalPKIXPublicKey(tc.pub)
			if err != nil {
				t.Fatal(err)
			}
			pemText := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
			var set struct{ Keys []jwk }
			if err := json.Unmarshal([]byte(inlineJWKS(pemText)), &set); err != nil {
				t.Fatalf("not a JWKS document: %v", err)
			}
			if len(set.Keys) != 1 {
				t.Fatalf("%d keys, want 1", len(set.Keys))
			}
			k := set.Keys[0]
			if k.Use != "sig" || k.Alg != tc.alg {
				t.Errorf("use %q alg %q, want sig %s", k.Use, k.Alg, tc.alg)
			}
			back := fromJWK(t, k)
			if eq, ok := tc.pub.(interface{ Equal(crypto.PublicKey) bool }); !ok || !eq.Equal(back) {
				t.Errorf("the JWKS holds another key than the PEM")
			}
		})
	}
	for _, s := range []string{`{"keys":[]}`, "-----BEGIN PUBLIC KEY-----\nbm90IGEga2V5\n-----END PUBLIC KEY-----\n", "plain text"} {
		if got := inlineJWKS(s); got != s {
			t.Errorf("inlineJWKS(%q) = %q, want it unchanged", s, got)
		}
	}
}

// fromJWK reads a JWK back into a public key.
func fromJWK(t *testing.T, k jwk) crypto.PublicKey {
	t.Helper()
	num := func(s string) *big.Int {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return new(big.Int).SetBytes(b)
	}
	switch k.Kty {
	case "RSA":
		return &rsa.PublicKey{N: num(k.N), E: int(num(k.E).Int64())}
	case "EC":
		curve := map[string]elliptic.Curve{"P-256": elliptic.P256(), "P-384": elliptic.P384(), "P-521": elliptic.P521()}[k.Crv]
		size := (curve.Params().BitSize + 7) / 8
		raw := append([]byte{4}, num(k.X).FillBytes(make([]byte, size))...)
		raw = append(raw, num(k.Y).FillBytes(make([]byte, size))...)
		pub, err := ecdsa.ParseUncompressedPublicKey(curve, raw)
		if err != nil {
			t.Fatal(err)
		}
		return pub
	}
	t.Fatalf("kty %q", k.Kty)
	return nil
}
