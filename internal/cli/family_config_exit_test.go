package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadFamilySettingIsUsageError: a bad value of a family's setting
// exits 2 naming the key, as a bad value of any other config key does
// (docs/configuration.md, README's exit table).
func TestBadFamilySettingIsUsageError(t *testing.T) {
	for _, tc := range []struct{ name, config, key string }{
		{"core", "referenceGrantMode: Sometimes\n", "referenceGrantMode"},
		{"kgateway", "dnsLookupFamily: V5_ONLY\n", "dnsLookupFamily"},
		{"envoygateway", "envoyGateway:\n  runningOnHost: maybe\n", "envoyGateway.runningOnHost"},
		{"haptic", "haptic:\n  rateLimit:\n    shared:\n      enabled: maybe\n", "haptic.rateLimit.shared.enabled"},
		{"wso2", "wso2:\n  systemPolicies: not-a-list\n", "systemPolicies"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "gwpol.yaml")
			if err := os.WriteFile(cfg, []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := run(t, "lint", "-f", "testdata/examples", "--config", cfg)
			if code != ExitUsage || !strings.Contains(stderr, tc.key) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %s", code, stderr, ExitUsage, tc.key)
			}
		})
	}
}
