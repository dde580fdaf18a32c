// Package secret is the one place that reads Secret values and decides
// what may be said about them.
//
// A value read from a Secret is a Value: it prints as [redacted] under
// every fmt verb, in JSON, YAML and text encodings, and through reflection
// (its bytes sit behind a pointer, which fmt shows as an address), so it
// cannot reach a message, a status condition, an explain note or a
// rendered body by accident. Only this package looks inside one: it parses
// the values gwpol validates (public keys as PEM or JWKS, credential
// lists of one key per line, htpasswd files, TLS certificates with their
// keys and CA bundles) and answers with what may be said — the
// Secret's name and the key names the model validated are said by their
// callers; from here come sizes, counts, line and block numbers, the
// validity dates of certificates and CRLs, a certificate's public key
// algorithm (its domains only for comparison, never to print), and types
// from a closed set (Term, PEMType, JWKType, JWKCurve), anything outside
// it being "unrecognised".
//
// It is a helper below every stage and imports nothing of gwpol's.
package secret
