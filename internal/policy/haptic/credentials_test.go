package haptic

import (
	"strings"
	"testing"
)

// TestJWTKeyRejectsMalformed: malformed keys are problems, never panics,
// and the problem never quotes the key.
func TestJWTKeyRejectsMalformed(t *testing.T) {
	for _, key := range []string{
		"{",
		`{"keys":null}`,
		`{"keys":[{}]}`,
		`{"keys":[{"kty":"RSA","n":"AQAB","e":"AA"}]}`,
		`{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`,
		`{"keys":[{"kty":"EC","crv":"P-256","x":"AQ","y":"AQ"}]}`,
		`{"keys":[{"kty":"EC","crv":"P-999","x":"AQ","y":"AQ"}]}`,
		"-----BEGIN PUBLIC KEY-----\nU0VDUkVU\n-----END PUBLIC KEY-----\n",
		"-----BEGIN CERTIFICATE-----\nU0VDUkVU\n-----END CERTIFICATE-----\n",
		"-----BEGIN RSA PUBLIC KEY-----\nU0VDUkVU\n-----END RSA PUBLIC KEY-----\n",
		"U0VDUkVU",
		"   ",
	} {
		problem := jwtKey([]byte(key), "RS256")
		if problem == "" {
			t.Errorf("%q accepted", key)
		}
		if strings.Contains(problem, "U0VDUkVU") {
			t.Errorf("problem quotes the key: %s", problem)
		}
	}
}

func TestAPIKeyLines(t *testing.T) {
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{"k1:alice\nk2:bob\n", true},
		{"k1\nk2\n", true},
		{"  k1 : alice \n\n", true},
		{"k1:alice\nk1:bob\n", false},
		{"k1:\n", false},
		{":alice\n", false},
		{"k 1:alice\n", false},
		{"\n\n", false},
	} {
		if got := apiKeyLines(tc.text) == ""; got != tc.ok {
			t.Errorf("%q: ok = %v, want %v", tc.text, got, tc.ok)
		}
	}
}
