package secret

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"
)

// keyPair makes a self-signed certificate and its key as PEM.
func keyPair(t testing.TB) (certPEM, keyPEM string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "example.com"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(0, 0).Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pemOf("CERTIFICATE", der), pemOf("PRIVATE KEY", kder)
}

func val(s string) Value { return NewValue([]byte(s)) }

// TestCheckKeyPair: kgateway's listener certificate rule (a PEM pair
// whose key matches, every chain certificate X.509), with Go's constant
// sentences passed on and anything else said in closed-set words.
func TestCheckKeyPair(t *testing.T) {
	cert, key := keyPair(t)
	cert2, key2 := keyPair(t)
	for _, tc := range []struct {
		name, cert, key, want string
	}{
		{"a matching pair", cert, key, ""},
		{"a chain of two", cert + cert2, key, ""},
		{"no key", cert, "", "tls: failed to find any PEM data in key input"},
		{"key not PEM", cert, marker, "tls: failed to find any PEM data in key input"},
		{"no certificate", "", key, "tls: failed to find any PEM data in certificate input"},
		{"inputs switched", key, cert, "PEM inputs may have been switched"},
		{"a certificate for the key", cert, cert, "tls: found a certificate rather than a key"},
		{"key of another certificate", cert, key2, "tls: private key does not match public key"},
		{"unknown block type before the certificate", pemOf(marker, []byte(marker)), key,
			`after skipping PEM blocks of the following types: [unrecognised]`},
		{"unknown block type before the key", cert, pemOf(marker, []byte(marker)),
			`type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [unrecognised]`},
		{"a certificate that is not X.509", pemOf("CERTIFICATE", []byte(marker)), key, "x509: the first certificate of the chain does not parse"},
		{"a later chain certificate that is not X.509", cert + pemOf("CERTIFICATE", []byte(marker)), key, "x509: PEM block 2 (CERTIFICATE) does not parse"},
		{"a key that does not parse", cert, pemOf("PRIVATE KEY", []byte(marker)), "tls: failed to parse private key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckKeyPair(val(tc.cert), val(tc.key))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted, want %q", tc.want)
			case err != nil && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("%v, want %q in it", err, tc.want)
			case err != nil && strings.Contains(err.Error(), "MARKER"):
				t.Fatalf("the message quotes the Secret: %v", err)
			}
		})
	}
}

// TestCheckTLSSecret: a Secret holding only a CA bundle is not checked as
// a key pair (kgateway's cleanedSslKeyPair); any other is.
func TestCheckTLSSecret(t *testing.T) {
	cert, key := keyPair(t)
	if err := CheckTLSSecret(Value{}, Value{}, val(cert)); err != nil {
		t.Errorf("CA-only Secret refused: %v", err)
	}
	if err := CheckTLSSecret(val(cert), val(key), Value{}); err != nil {
		t.Errorf("pair refused: %v", err)
	}
	if err := CheckTLSSecret(Value{}, Value{}, Value{}); err == nil {
		t.Error("empty Secret accepted")
	}
	if err := CheckTLSSecret(val(cert), Value{}, val(cert)); err == nil {
		t.Error("certificate without key accepted")
	}
}

// TestCheckCACertificates: client-go's ParseCertsPEM rule — at least one
// CERTIFICATE block, each X.509; other blocks skipped.
func TestCheckCACertificates(t *testing.T) {
	cert, key := keyPair(t)
	for _, tc := range []struct{ name, doc, want string }{
		{"one certificate", cert, ""},
		{"a key beside it is skipped", key + cert, ""},
		{"empty", "", "does not contain any valid RSA or ECDSA certificates"},
		{"not PEM", marker, "does not contain any valid"},
		{"only a key", key, "does not contain any valid"},
		{"an empty CERTIFICATE block", "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n", "PEM block 1 (CERTIFICATE) does not parse"},
		{"a bad second certificate", cert + pemOf("CERTIFICATE", []byte(marker)), "PEM block 2 (CERTIFICATE) does not parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckCACertificates(val(tc.doc))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want %q", err, tc.want)
			}
			if CertificatesPEM([]byte(tc.doc)) == nil {
				t.Fatal("CertificatesPEM disagrees")
			}
		})
	}
}

// FuzzCheckKeyPair: no input panics the checks, and a problem is
// printable ASCII on one line (nothing of the input outside the closed
// vocabulary).
func FuzzCheckKeyPair(f *testing.F) {
	cert, key := keyPair(f)
	f.Add(cert, key)
	f.Add(pemOf("X\x1b[2K", []byte("x")), key)
	f.Add(cert, pemOf("CERTIFICATE", []byte("x")))
	f.Fuzz(func(t *testing.T, c, k string) {
		for _, err := range []error{CheckKeyPair(val(c), val(k)), CheckCACertificates(val(c))} {
			if err == nil {
				continue
			}
			for _, r := range err.Error() {
				if r < 0x20 || r > 0x7e {
					t.Fatalf("problem has %q: %v", r, err)
				}
			}
		}
	})
}

// TestHtpasswdUsers: kgateway's validateAndFilterSHAUsers, with dropped
// entries answered as line numbers.
func TestHtpasswdUsers(t *testing.T) {
	const a = "alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g="
	for _, tc := range []struct {
		doc     string
		valid   int
		dropped []int
	}{
		{a, 1, nil},
		{"\n\n" + a + "\n" + a + "\n", 1, nil}, // trimmed first; the same entry twice is one
		{"# c\n" + a + "\nbob:$apr1$x$y\ncarol\n", 1, []int{3, 4}},
		{a + "\nalice:{SHA}NkvfLtd6hUTTtxGgO2nurcxjydc=", 1, []int{2}},
		{"# only a comment", 0, nil},
	} {
		valid, dropped := HtpasswdUsers(val(tc.doc))
		if valid != tc.valid || fmt.Sprint(dropped) != fmt.Sprint(tc.dropped) {
			t.Errorf("%q: %d valid, dropped %v; want %d, %v", tc.doc, valid, dropped, tc.valid, tc.dropped)
		}
	}
}
