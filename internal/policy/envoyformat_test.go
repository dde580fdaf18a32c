package policy

import "testing"

// TestEnvoyFormatOK: Envoy's substitution format parser's verdict on a
// header value, and the position of the first % that starts no command.
func TestEnvoyFormatOK(t *testing.T) {
	for _, tc := range []struct {
		value string
		pos   int
		ok    bool
	}{
		{"plain", 0, true},
		{"%REQ(Correlation-Id)%", 0, true},
		{"id-%REQ(x-id):8%-%START_TIME%", 0, true},
		{"100%% sure", 0, true},
		{"%REQ(Correlation-Id", 0, false},
		{"%RESPONSE(Invalid-Variable)", 0, false},
		{"ok %req(x)%", 3, false}, // command names are upper case
		{"trailing %", 9, false},
	} {
		pos, ok := EnvoyFormatOK(tc.value)
		if ok != tc.ok || (!ok && pos != tc.pos) {
			t.Errorf("EnvoyFormatOK(%q) = %d, %v; want %d, %v", tc.value, pos, ok, tc.pos, tc.ok)
		}
	}
}
