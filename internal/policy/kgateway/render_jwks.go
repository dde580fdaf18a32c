package kgateway

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"
)

// translateKey reads a local key set as kgateway's TranslateKey does
// (jwt.go), with the library kgateway reads it with (go-jose), so that
// the document it hands Envoy is the same byte for byte: the first PEM
// block as a PKCS#1 or PKIX public key — one signing key, RS256 for RSA,
// ES256 for ECDSA whatever the curve, EdDSA for Ed25519 —; else a JWKS
// document holding at least one key; else one JWK, as a set of one. An
// error says the key set does not read; it never quotes the key.
func translateKey(s string) (*jose.JSONWebKeySet, error) {
	if ks, err := pemKeySet(s); err == nil {
		return ks, nil
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal([]byte(s), &set); err == nil && len(set.Keys) > 0 {
		return &set, nil
	}
	var k jose.JSONWebKey
	if err := json.Unmarshal([]byte(s), &k); err == nil {
		return &jose.JSONWebKeySet{Keys: []jose.JSONWebKey{k}}, nil
	}
	return nil, errJWKS
}

// pemKeySet is translateKey's PEM reading: the first block only.
func pemKeySet(s string) (*jose.JSONWebKeySet, error) {
	block, _ := pem.Decode([]byte(s))
	if block == nil {
		return nil, errors.New("no PEM block found")
	}
	var pub any
	pub, err := x509.ParsePKCS1PublicKey(block.Bytes)
	if err != nil {
		if pub, err = x509.ParsePKIXPublicKey(block.Bytes); err != nil {
			return nil, err
		}
	}
	var alg string
	switch pub.(type) {
	case *rsa.PublicKey:
		alg = "RS256"
	case *ecdsa.PublicKey:
		alg = "ES256"
	case ed25519.PublicKey:
		alg = "EdDSA"
	default:
		return nil, fmt.Errorf("unsupported public key type %T", pub)
	}
	return &jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: pub, Algorithm: alg, Use: "sig"}}}, nil
}

// inlineJWKS is an inline key set as kgateway hands it to Envoy: the set
// translateKey reads, serialized by go-jose (a JWKS or JWK given is
// written again in go-jose's member order and encoding, a PEM key becomes
// a JWKS document). A key set that does not read stays as written (the
// policy is invalid then, and nothing is rendered from it).
func inlineJWKS(s string) string {
	ks, err := translateKey(s)
	if err != nil {
		return s
	}
	b, err := json.Marshal(ks)
	if err != nil {
		return s
	}
	return string(b)
}
