package kgateway

import "testing"

// TestKnownCipher: BoringSSL's suite names, equal-preference groups and
// selectors pass; names it does not know, alone or inside a group, fail.
func TestKnownCipher(t *testing.T) {
	for _, tc := range []struct {
		suite string
		ok    bool
	}{
		{"ECDHE-RSA-AES128-GCM-SHA256", true},
		{"[ECDHE-ECDSA-AES128-GCM-SHA256|ECDHE-ECDSA-CHACHA20-POLY1305]", true},
		{"!aNULL", false},
		{"-3DES", true},
		{"ECDHE+AESGCM", true},
		{"BOGUS_CIPHER_SUITE_1", false},
		{"[ECDHE-RSA-AES128-GCM-SHA256|FAKE]", false},
		{"[ECDHE-RSA-AES128-GCM-SHA256", false},
		{"", false},
	} {
		if got := knownCipher(tc.suite); got != tc.ok {
			t.Errorf("knownCipher(%q) = %v, want %v", tc.suite, got, tc.ok)
		}
	}
}
