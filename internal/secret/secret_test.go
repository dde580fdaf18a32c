package secret

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

const marker = "GWPOL-MARKER-SECRET"

// TestValueNeverPrints: a Value prints as [redacted] under every verb, as
// a field of a struct (exported or not, by value or pointer), in a map, in
// an error, and in JSON, YAML and text encodings.
func TestValueNeverPrints(t *testing.T) {
	v := NewValue([]byte(marker))
	type inner struct {
		Exported Value
		hidden   Value
	}
	holders := []any{v, &v, inner{v, v}, &inner{v, v}, map[string]Value{"k": v}, []Value{v}, Encoded{v}, struct{ e Encoded }{Encoded{v}}}
	var out []string
	for _, h := range holders {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "% x", "%d", "%T"} {
			out = append(out, fmt.Sprintf(verb, h))
		}
		out = append(out, fmt.Sprint(h), fmt.Sprintln(h))
		if b, err := json.Marshal(h); err == nil {
			out = append(out, string(b))
		}
		if b, err := yaml.Marshal(h); err == nil {
			out = append(out, string(b))
		}
	}
	out = append(out, fmt.Errorf("wrapped: %w", errors.New(v.String())).Error())
	if b, _ := v.MarshalText(); string(b) != Redacted {
		t.Errorf("MarshalText = %q", b)
	}
	for _, s := range out {
		if strings.Contains(s, marker) || strings.Contains(s, fmt.Sprintf("%x", marker)) || strings.Contains(s, "71 87 80") {
			t.Errorf("a Value printed its content: %s", s)
		}
	}
	if v.Len() != len(marker) {
		t.Errorf("Len = %d", v.Len())
	}
	if got := fmt.Sprintf("%v|%s|%d", v, v, v); got != "[redacted]|[redacted]|[redacted]" {
		t.Errorf("verbs: %s", got)
	}
}

func TestEncodedDecodesBase64(t *testing.T) {
	var e Encoded
	if err := e.UnmarshalText([]byte(base64.StdEncoding.EncodeToString([]byte(marker)))); err != nil || string(e.bytes()) != marker {
		t.Fatalf("decode: %v", err)
	}
	if err := e.UnmarshalText([]byte("!!" + marker)); err == nil || strings.Contains(err.Error(), marker) {
		t.Errorf("bad base64: %v", err)
	}
}

func pemOf(typ string, b []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}))
}

// TestPublicKeysSayOnlyClosedSetWords: whatever a PEM document carries in
// a block type, a problem names it from a closed set, and never quotes the
// document; a JWKS document, whatever its keys, is refused as one.
func TestPublicKeysSayOnlyClosedSetWords(t *testing.T) {
	const jwks = "it is a JWKS document, not a PEM public key"
	for _, tc := range []struct{ doc, want string }{
		{`{"keys":[{"kty":"` + marker + `"}]}`, jwks},
		{`{"keys":[{"kty":"EC","crv":"` + marker + `","x":"AQ","y":"AQ"}]}`, jwks},
		{`{"keys": "` + marker + `"}`, jwks},
		{pemOf(marker, []byte(marker)), "block 1 is a PEM block of an unrecognised type"},
		{pemOf("RSA PRIVATE KEY", []byte(marker)), "block 1 is a PEM RSA PRIVATE KEY, not a public key"},
		{pemOf("PUBLIC KEY", []byte(marker)), "block 1 (PEM PUBLIC KEY) does not parse"},
		{marker, "neither a PEM public key nor a JWKS document"},
		{"  \n", "it is empty"},
	} {
		_, err := PEMPublicKeys(NewValue([]byte(tc.doc)))
		if err == nil {
			t.Errorf("%q accepted", tc.doc)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q in it", tc.doc, err, tc.want)
		}
		if strings.Contains(err.Error(), "MARKER") || strings.Contains(err.Error(), "\n") {
			t.Errorf("problem quotes the document: %v", err)
		}
	}
}

func TestPublicKeysTypes(t *testing.T) {
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsaDER, _ := x509.MarshalPKIXPublicKey(&rk.PublicKey)
	ecDER, _ := x509.MarshalPKIXPublicKey(&ek.PublicKey)
	keys, err := PEMPublicKeys(NewValue([]byte(pemOf("PUBLIC KEY", rsaDER) + pemOf("PUBLIC KEY", ecDER) + pemOf("RSA PUBLIC KEY", x509.MarshalPKCS1PublicKey(&rk.PublicKey)))))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range keys {
		got = append(got, fmt.Sprintf("%s/%d", k.Type, k.Bits))
	}
	if strings.Join(got, " ") != "RSA/2048 EC P-384/384 RSA/2048" {
		t.Errorf("types = %v", got)
	}
	jwks := fmt.Sprintf(`{"keys":[{"kty":"EC","crv":"P-384","x":"%x","y":"%x"}]}`, ek.X.Bytes(), ek.Y.Bytes())
	if keys, err := PEMPublicKeys(NewValue([]byte(jwks))); err == nil {
		t.Errorf("JWKS read as PEM: %v", keys)
	}
}

func TestCheckKeyLines(t *testing.T) {
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{"k1:alice\nk2:bob\n", true},
		{"k1\nk2\n", true},
		{"  k1:alice \n\n", true},
		// A key or consumer is printable ASCII without spaces (HAPTIC's
		// key map is whitespace-delimited): until hap34 the parts were
		// trimmed and anything else let through.
		{"  k1 : alice \n\n", false},
		{"k1:ali ce\n", false},
		{"k1:alice\tx\n", false},
		{"kéy:alice\n", false},
		{"k1:älice\n", false},
		{"k1:a:b\n", true},
		{"k1:" + "\x01" + "\n", false},
		{"k1:alice\nk1:bob\n", false},
		{"k1:alice\nk1:alice\n", true},
		{"k1\nk1:k1\n", true},
		{"k1\nk1:alice\n", false},
		{"k1:alice\nk2:bob\nk1:alice\n", true},
		{"k1:alice\nk2:bob\nk1: alice\n", false},
		{"k1:\n", false},
		{":alice\n", false},
		{"k 1:alice\n", false},
		{"\n\n", false},
		{marker + ":x\n" + marker + ":y", false},
	} {
		err := CheckKeyLines(NewValue([]byte(tc.text)))
		if (err == nil) != tc.ok {
			t.Errorf("%q: %v, want ok %v", tc.text, err, tc.ok)
		}
		if err != nil && strings.Contains(err.Error(), "MARKER") {
			t.Errorf("problem quotes a key: %v", err)
		}
	}
}

func TestTerm(t *testing.T) {
	if Term("RSA", JWKTypes) != "RSA" || Term("rsa", JWKTypes) != Unrecognised || JWKCurve("P-256\x1b") != Unrecognised {
		t.Error("Term lets an unknown word through")
	}
	if PEMType("CERTIFICATE") != "PEM CERTIFICATE" || !strings.Contains(PEMType("CERTIFICATE\n"+marker), Unrecognised) {
		t.Error("PEMType")
	}
}

// FuzzPublicKeys: no document panics the parser, and a problem never
// carries a byte of the document outside the closed vocabulary: it is
// printable ASCII on one line.
func FuzzPublicKeys(f *testing.F) {
	f.Add(`{"keys":[{"kty":"EC","crv":"P-256","x":"AQ","y":"AQ"}]}`)
	f.Add(pemOf("CERTIFICATE", []byte("x")))
	f.Add(pemOf("X\x1b[2K", []byte("x")))
	f.Fuzz(func(t *testing.T, doc string) {
		_, err := PEMPublicKeys(NewValue([]byte(doc)))
		if err == nil {
			return
		}
		for _, r := range err.Error() {
			if r < 0x20 || r > 0x7e {
				t.Fatalf("problem has %q: %v", r, err)
			}
		}
	})
}

func TestCheckHtpasswdSHA(t *testing.T) {
	const sha = "{SHA}qvTGHdzF6KLavt4PO0gs2a6pQ00=" // SHA1 of "hello"
	for _, tc := range []struct {
		text, err string
	}{
		{"alice:" + sha + "\nbob:" + sha + "\n", ""},
		{"alice:" + sha + "\r\n\r\n", ""},
		{"alice", "invalid htpasswd format: each line must be in the format 'username:password'"},
		{"alice:$apr1$x$y", "unsupported htpasswd format: please use {SHA}"},
		{"alice:{SHA}***", "invalid htpasswd format: {SHA} must be base64-encoded SHA1"},
		{"alice:{SHA}aGVsbG8=", "invalid htpasswd format: {SHA} must be SHA1 (20 bytes)"},
		{marker + ":" + marker, "unsupported htpasswd format: please use {SHA}"},
	} {
		err := CheckHtpasswdSHA(NewValue([]byte(tc.text)))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.err {
			t.Errorf("%q: %q, want %q", tc.text, got, tc.err)
		}
		if strings.Contains(got, "MARKER") || strings.Contains(got, "alice") {
			t.Errorf("problem quotes the content: %v", err)
		}
	}
}

func TestEqual(t *testing.T) {
	a, b, c := NewValue([]byte("k1")), NewValue([]byte("k1")), NewValue([]byte("k2"))
	if !Equal(a, b) || Equal(a, c) || Equal(a, Value{}) || !Equal(Value{}, NewValue(nil)) {
		t.Error("Equal compares the bytes")
	}
}
