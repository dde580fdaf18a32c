package haptic

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/secret"
)

// jwtKey checks that the JWT verification key is what HAPTIC's policy
// reference (docs/site/docs/route-policy.md@04be9778, "JWT") asks of
// pubkey.pem: one PEM public key (PKIX or PKCS#1; a certificate is read
// for its key, as HAProxy's jwt_verify loads either), of the algorithm's
// type, an RSA key of at least 2048 bits. HAProxy loads the file as PEM,
// so a JWKS document is not a key there, and a second block is not the
// one key the reference names. The problem says what
// secret.PEMPublicKeys may say: block numbers, sizes and key types from a
// closed set.
func jwtKey(v secret.Value, alg string) string {
	keys, err := secret.PEMPublicKeys(v)
	if err != nil {
		return err.Error()
	}
	if len(keys) != 1 {
		return fmt.Sprintf("it holds %d PEM blocks; HAPTIC reads one public key", len(keys))
	}
	k := keys[0]
	if k.Type == "RSA" && k.Bits < minRSABits {
		return fmt.Sprintf("its RSA key is %d bits, shorter than %d", k.Bits, minRSABits)
	}
	if k.Type != familyOf(alg) {
		return fmt.Sprintf("it holds no %s key for algorithm %s", familyOf(alg), alg)
	}
	return ""
}

// minRSABits is the shortest RSA key HAPTIC's policy reference accepts
// ("RSA keys require at least 2048 bits").
const minRSABits = 2048

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
