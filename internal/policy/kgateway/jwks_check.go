package kgateway

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// errJWKS is what a local key set that kgateway's TranslateKey cannot
// read is told; the key material itself is never quoted.
var errJWKS = errors.New("cannot parse local jwks: it is neither a PEM public key (RSA, ECDSA or Ed25519), a JWKS document with at least one valid key, nor a single JWK")

// jwksProblem reads a local key set in kgateway's order
// (jwt.go: TranslateKey): the first PEM block as a PKCS#1 or PKIX public
// key of a supported type; else a JWKS document with at least one key,
// every key valid; else one JWK. It returns nil when one of them reads.
func jwksProblem(s string) error {
	if b, _ := pem.Decode([]byte(s)); b != nil {
		if _, err := x509.ParsePKCS1PublicKey(b.Bytes); err == nil {
			return nil
		}
		if pub, err := x509.ParsePKIXPublicKey(b.Bytes); err == nil {
			switch pub.(type) {
			case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
				return nil
			}
		}
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if json.Unmarshal([]byte(s), &set) == nil && len(set.Keys) > 0 {
		if !slices.ContainsFunc(set.Keys, func(k json.RawMessage) bool { return jwkProblem(k) != nil }) {
			return nil
		}
		return errJWKS
	}
	if jwkProblem(json.RawMessage(s)) == nil {
		return nil
	}
	return errJWKS
}

// jwkProblem checks one JSON Web Key the way go-jose's JSONWebKey reads
// it (RFC 7517/7518): a known kty with the members that type needs, each
// base64url.
func jwkProblem(raw json.RawMessage) error {
	var k struct {
		Kty, Crv, N, E, X, Y, K string
	}
	if err := json.Unmarshal(raw, &k); err != nil {
		return errJWKS
	}
	b64 := func(v string) bool {
		if v == "" {
			return false
		}
		_, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(v, "="))
		return err == nil
	}
	ok := false
	switch k.Kty {
	case "RSA":
		ok = b64(k.N) && b64(k.E)
	case "EC":
		ok = slices.Contains([]string{"P-256", "P-384", "P-521"}, k.Crv) && b64(k.X) && b64(k.Y)
	case "OKP":
		ok = k.Crv == "Ed25519" && b64(k.X)
	case "oct":
		ok = b64(k.K)
	}
	if !ok {
		return fmt.Errorf("invalid JWK of kty %q", jwkType(k.Kty))
	}
	return nil
}

// jwkType names a kty for a message from the types JWKs have.
func jwkType(kty string) string {
	if slices.Contains([]string{"RSA", "EC", "OKP", "oct"}, kty) {
		return kty
	}
	return "unknown"
}

// jwtProviders checks the key sets of the jwt GatewayExtension a policy
// uses, as kgateway's translateJwks does when it builds the extension (an
// extension that fails to build makes every policy using it invalid): an
// inline key set must read (jwksProblem); a configMapRef must name a
// ConfigMap in the extension's namespace holding a non-empty "jwks" entry
// that reads.
func (v *validator) jwtProviders(path string, ref *NamespacedObjectReference) {
	ext, ns, err := lookupExtension(v.env.Model, ref, v.p.Obj.Namespace)
	if err != nil || ext.Spec.JWT == nil {
		return // reported by the reference check
	}
	for _, p := range ext.Spec.JWT.Providers {
		l := p.JWKS.Local
		if l == nil {
			continue
		}
		where := fmt.Sprintf("jwt: GatewayExtension %s/%s provider %s", ns, ext.Name, p.Name)
		switch {
		case l.Inline != nil:
			if err := jwksProblem(*l.Inline); err != nil {
				v.invalid(path, "%s: %v", where, err)
			}
		case l.ConfigMapRef != nil:
			cm := v.env.Model.ConfigMap(ns, l.ConfigMapRef.Name)
			if cm == nil {
				v.invalid(path, "%s: failed to find configmap %s: ConfigMap %s/%s not found", where, l.ConfigMapRef.Name, ns, l.ConfigMapRef.Name)
				continue
			}
			if cm.Assumed || cm.Src == nil {
				continue
			}
			var data map[string]string
			if cm.Src.DecodeField("data", &data) != nil || data["jwks"] == "" {
				v.invalid(path, "%s: configmap key 'jwks' not found in ConfigMap %s/%s", where, ns, l.ConfigMapRef.Name)
				continue
			}
			if err := jwksProblem(data["jwks"]); err != nil {
				v.invalid(path, "%s: ConfigMap %s/%s: %v", where, ns, l.ConfigMapRef.Name, err)
			}
		}
	}
}
