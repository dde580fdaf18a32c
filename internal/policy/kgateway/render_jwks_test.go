package kgateway

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

// TestInlineJWKS: an inline key set is written as kgateway's TranslateKey
// reads it and go-jose serializes it — a PEM public key (only the first
// block) as a JWKS of one signing key, RS256 for RSA, ES256 for ECDSA of
// any curve, EdDSA for Ed25519; a JWKS or a single JWK written again in
// go-jose's member order (use, kty, kid, crv, alg, …; unknown members
// dropped), a single JWK as a set of one; what does not read stays as
// written (and makes the policy invalid, jwksProblem).
func TestInlineJWKS(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ec384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	edPub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pemOf := func(pub crypto.PublicKey) string {
		der, err := x509.MarshalPKIXPublicKey(pub)
		if err != nil {
			t.Fatal(err)
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	}
	pkcs1 := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&rsaKey.PublicKey)}))
	const ecJWK = `{"kty":"EC","crv":"P-256","x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4","y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM","kid":"k1","extra":"dropped"}`
	tests := []struct {
		name string
		in   string
		keys []struct{ kty, alg, crv string }
		want crypto.PublicKey // the key the first JWK must hold, if any
	}{
		{"RSA PEM", pemOf(&rsaKey.PublicKey), []struct{ kty, alg, crv string }{{"RSA", "RS256", ""}}, &rsaKey.PublicKey},
		{"PKCS#1 RSA PEM", pkcs1, []struct{ kty, alg, crv string }{{"RSA", "RS256", ""}}, &rsaKey.PublicKey},
		{"P-384 PEM: ES256 whatever the curve", pemOf(&ec384.PublicKey), []struct{ kty, alg, crv string }{{"EC", "ES256", "P-384"}}, &ec384.PublicKey},
		{"Ed25519 PEM", pemOf(edPub), []struct{ kty, alg, crv string }{{"OKP", "EdDSA", "Ed25519"}}, edPub},
		{"two PEM blocks: the first only", pemOf(&ec384.PublicKey) + pemOf(&rsaKey.PublicKey), []struct{ kty, alg, crv string }{{"EC", "ES256", "P-384"}}, &ec384.PublicKey},
		{"a single JWK: a set of one", ecJWK, []struct{ kty, alg, crv string }{{"EC", "", "P-256"}}, nil},
		{"a JWKS", `{"keys":[` + ecJWK + `]}`, []struct{ kty, alg, crv string }{{"EC", "", "P-256"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := jwksProblem(tt.in); err != nil {
				t.Fatalf("key set refused: %v", err)
			}
			got := inlineJWKS(tt.in)
			var set jose.JSONWebKeySet
			if err := json.Unmarshal([]byte(got), &set); err != nil {
				t.Fatalf("not a JWKS document: %v\n%s", err, got)
			}
			if len(set.Keys) != len(tt.keys) {
				t.Fatalf("%d keys, want %d: %s", len(set.Keys), len(tt.keys), got)
			}
			var members []struct{ Kty, Alg, Crv, Use string }
			var raw struct{ Keys []json.RawMessage }
			_ = json.Unmarshal([]byte(got), &raw)
			for _, k := range raw.Keys {
				var m struct{ Kty, Alg, Crv, Use string }
				_ = json.Unmarshal(k, &m)
				members = append(members, m)
				if strings.Contains(string(k), "extra") {
					t.Errorf("unknown member kept: %s", k)
				}
			}
			for i, w := range tt.keys {
				if m := members[i]; m.Kty != w.kty || m.Alg != w.alg || m.Crv != w.crv {
					t.Errorf("key %d: kty %q alg %q crv %q, want %q %q %q", i, m.Kty, m.Alg, m.Crv, w.kty, w.alg, w.crv)
				}
			}
			if tt.want != nil {
				if eq, ok := tt.want.(interface{ Equal(crypto.PublicKey) bool }); !ok || !eq.Equal(set.Keys[0].Key) {
					t.Errorf("the JWKS holds another key than the PEM")
				}
				if !strings.HasPrefix(got, `{"keys":[{"use":"sig","kty":`) {
					t.Errorf("members not in go-jose's order: %s", got)
				}
			}
		})
	}
	for _, s := range []string{`{"keys":[]}`, "-----BEGIN PUBLIC KEY-----\nbm90IGEga2V5\n-----END PUBLIC KEY-----\n", "plain text"} {
		if got := inlineJWKS(s); got != s {
			t.Errorf("inlineJWKS(%q) = %q, want it unchanged", s, got)
		}
		if jwksProblem(s) == nil {
			t.Errorf("jwksProblem(%q) = nil, want the key set refused", s)
		}
	}
}
