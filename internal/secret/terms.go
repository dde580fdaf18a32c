package secret

import "slices"

// Unrecognised stands for any word read from a Secret that is not in the
// closed set a message may use.
const Unrecognised = "unrecognised"

// Term returns s when it is one of allowed, else Unrecognised: a word read
// from a Secret reaches a message only when gwpol already knew it.
func Term(s string, allowed []string) string {
	if slices.Contains(allowed, s) {
		return s
	}
	return Unrecognised
}

// PEMTypes are the PEM block types a message may name.
var PEMTypes = []string{
	"CERTIFICATE", "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST", "TRUSTED CERTIFICATE", "X509 CRL",
	"PUBLIC KEY", "RSA PUBLIC KEY",
	"PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "DSA PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "OPENSSH PRIVATE KEY",
	"EC PARAMETERS", "DH PARAMETERS",
}

// PEMType names a PEM block's type for a message: "PEM CERTIFICATE",
// or "PEM block of an unrecognised type".
func PEMType(t string) string {
	if Term(t, PEMTypes) == Unrecognised {
		return "PEM block of an " + Unrecognised + " type"
	}
	return "PEM " + t
}

// JWKTypes are the JSON Web Key types (kty, RFC 7518 §6.1) a message may
// name.
var JWKTypes = []string{"RSA", "EC", "OKP", "oct"}

// JWKType names a JWK's kty for a message.
func JWKType(kty string) string { return Term(kty, JWKTypes) }

// JWKCurves are the curves (crv, RFC 7518 §6.2.1.1 and RFC 8037) a
// message may name.
var JWKCurves = []string{"P-256", "P-384", "P-521", "Ed25519", "Ed448", "X25519", "X448", "secp256k1"}

// JWKCurve names a JWK's crv for a message.
func JWKCurve(crv string) string { return Term(crv, JWKCurves) }

// KeyTypes are the public key types a PublicKey reports.
var KeyTypes = []string{"RSA", "EC P-256", "EC P-384", "EC P-521", "Ed25519"}
