package haptic

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/secret"
)

// jwtKey checks that the JWT verification key is a public key of the kind
// the algorithm needs: a PEM public key (PKIX or PKCS#1) or certificate, or
// a JWKS document. The problem says what secret.PublicKeys may say: block
// and key numbers, sizes and key types from a closed set.
func jwtKey(v secret.Value, alg string) string {
	keys, err := secret.PublicKeys(v)
	if err != nil {
		return err.Error()
	}
	for _, k := range keys {
		if k.Type == "RSA" && k.Bits < minRSABits {
			return fmt.Sprintf("its RSA key is %d bits, shorter than %d", k.Bits, minRSABits)
		}
		if k.Type == familyOf(alg) {
			return ""
		}
	}
	return fmt.Sprintf("it holds no %s key for algorithm %s", familyOf(alg), alg)
}

// minRSABits is the shortest RSA modulus Go's and OpenSSL's verifiers
// accept by default.
const minRSABits = 1024

// familyOf names the key type an algorithm verifies with, as
// secret.PublicKey names it.
func familyOf(alg string) string {
	switch alg {
	case "ES256":
		return "EC P-256"
	case "ES384":
		return "EC P-384"
	case "ES512":
		return "EC P-521"
	}
	return "RSA"
}
