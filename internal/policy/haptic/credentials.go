package haptic

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"

	"github.com/gwpol/gwpol/internal/model"
	yaml "go.yaml.in/yaml/v3"
)

// secretValue returns a Secret entry the way the API server stores it:
// stringData (plain text, which wins) or data (base64, as kubectl create
// secret writes it). found is false when neither holds key; err says why
// the value cannot be read, never what it is.
func secretValue(sec *model.Opaque, key string) (value []byte, found bool, err error) {
	if sec == nil || sec.Src == nil {
		return nil, false, nil
	}
	if n := mapValue(sec.Src.Lookup("stringData"), key); n != nil {
		if n.Kind != yaml.ScalarNode {
			return nil, true, fmt.Errorf("stringData.%s is not a string", key)
		}
		return []byte(n.Value), true, nil
	}
	n := mapValue(sec.Src.Lookup("data"), key)
	if n == nil {
		return nil, false, nil
	}
	if n.Kind != yaml.ScalarNode {
		return nil, true, fmt.Errorf("data.%s is not a base64 string", key)
	}
	// The API server accepts standard base64 with padding; YAML folding
	// may leave whitespace inside long values.
	b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
	if err != nil {
		return nil, true, fmt.Errorf("data.%s is not valid base64", key)
	}
	return b, true, nil
}

// apiKeyLines checks HAPTIC's format of an API key Secret's keys entry:
// one key per line, either a bare key or key:consumer; blank lines are
// skipped and no key may appear twice. It returns a problem naming line
// numbers only — never a key or a consumer.
func apiKeyLines(text string) string {
	seen := map[string]int{}
	lines := 0
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		lines++
		k, c, hasConsumer := strings.Cut(line, ":")
		k = strings.TrimSpace(k)
		switch {
		case k == "":
			return fmt.Sprintf("line %d has an empty key", i+1)
		case hasConsumer && strings.TrimSpace(c) == "":
			return fmt.Sprintf("line %d ends in ':' with no consumer (write the bare key, or key:consumer)", i+1)
		case strings.ContainsAny(k, " \t"):
			return fmt.Sprintf("line %d: a key may not contain spaces", i+1)
		}
		if prev, dup := seen[k]; dup {
			return fmt.Sprintf("line %d repeats the key of line %d; each key names one consumer", i+1, prev)
		}
		seen[k] = i + 1
	}
	if lines == 0 {
		return "it holds no key (one per line: a bare key or key:consumer)"
	}
	return ""
}

// minRSABits is the shortest RSA modulus Go's and OpenSSL's verifiers
// accept by default.
const minRSABits = 1024

// jwtKey checks that the JWT verification key is a public key of the kind
// the algorithm needs: a PEM public key (PKIX or PKCS#1) or certificate, or
// a JWKS document. It returns a problem that never quotes the key.
func jwtKey(data []byte, alg string) string {
	text := strings.TrimSpace(string(data))
	if text == "" {
		return "it is empty"
	}
	var keys []any
	var problem string
	if strings.HasPrefix(text, "{") {
		keys, problem = jwksKeys([]byte(text))
	} else {
		keys, problem = pemKeys([]byte(text))
	}
	if problem != "" {
		return problem
	}
	for _, k := range keys {
		if pub, ok := k.(*rsa.PublicKey); ok && pub.N.BitLen() < minRSABits {
			return fmt.Sprintf("its RSA key is %d bits, shorter than %d", pub.N.BitLen(), minRSABits)
		}
		if fits(k, alg) {
			return ""
		}
	}
	return fmt.Sprintf("it holds no %s key for algorithm %s", familyOf(alg), alg)
}

func pemKeys(data []byte) ([]any, string) {
	var keys []any
	for n := 0; ; n++ {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			if n == 0 {
				return nil, "it is neither a PEM public key nor a JWKS document"
			}
			return keys, ""
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
			return nil, fmt.Sprintf("PEM block %d is a %q, not a public key or certificate", n+1, b.Type)
		}
		if err != nil {
			return nil, fmt.Sprintf("PEM block %d (%s) does not parse", n+1, b.Type)
		}
		keys = append(keys, k)
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

func jwksKeys(data []byte) ([]any, string) {
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, "it is not a valid JWKS document (JSON)"
	}
	if len(set.Keys) == 0 {
		return nil, "the JWKS document has no keys"
	}
	var keys []any
	for i, k := range set.Keys {
		pub, err := k.public()
		if err != nil {
			return nil, fmt.Sprintf("JWKS key %d: %v", i, err)
		}
		keys = append(keys, pub)
	}
	return keys, ""
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
			return nil, fmt.Errorf("e is not a usable RSA exponent")
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
			return nil, fmt.Errorf("curve %q is not P-256, P-384 or P-521", k.Crv)
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
			return nil, fmt.Errorf("the point is not on curve %s", k.Crv)
		}
		raw := append([]byte{4}, append(x.FillBytes(make([]byte, size)), y.FillBytes(make([]byte, size))...)...)
		pub, err := ecdsa.ParseUncompressedPublicKey(c, raw)
		if err != nil {
			return nil, fmt.Errorf("the point is not on curve %s", k.Crv)
		}
		return pub, nil
	}
	return nil, fmt.Errorf("kty %q is not RSA or EC", k.Kty)
}

// familyOf names the key type an algorithm verifies with.
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

// fits reports whether a public key verifies tokens of alg.
func fits(k any, alg string) bool {
	switch pub := k.(type) {
	case *rsa.PublicKey:
		return familyOf(alg) == "RSA"
	case *ecdsa.PublicKey:
		return familyOf(alg) == "EC "+pub.Curve.Params().Name
	}
	return false
}
