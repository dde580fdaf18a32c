package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadConfigValueIsPositioned: a bad config value is reported at the
// line and column of the value in the file (or by the GWPOL_* variable
// that gave it), so a user goes straight to it; exit 2 as for every bad
// config value.
func TestBadConfigValueIsPositioned(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		env          [2]string
		where        string
	}{
		{name: "core key", config: "namespace: x\nreferenceGrantMode: Sometimes\n", where: ":2:21: referenceGrantMode"},
		{name: "family key", config: "dnsLookupFamily: V5_ONLY\n", where: ":1:18: dnsLookupFamily"},
		{name: "nested key", config: "envoyGateway:\n  runningOnHost: maybe\n", where: ":2:18: envoyGateway.runningOnHost"},
		{name: "section key", config: "haptic:\n  rateLimit:\n    shared:\n      enabled: maybe\n", where: ":4:16: haptic.rateLimit.shared.enabled"},
		{name: "list entry", config: "wso2:\n  systemPolicies:\n    - name: a\n    - name: 3\n", where: ":4:13: wso2.systemPolicies[1].name"},
		{name: "map key in other case", config: "policyMerge:\n  TrafficPolicy:\n    cors: Deep\n", where: ":3:11: policyMerge."},
		{name: "severity", config: "lint:\n  severity:\n    GWP301: loud\n", where: ":3:13: lint.severity."},
		{name: "render target", config: "render:\n  target: foo\n", where: ":2:11: render.target"},
		{name: "environment wins", config: "validationMode: Standard\n", env: [2]string{"GWPOL_VALIDATIONMODE", "Lax"}, where: "environment variable GWPOL_VALIDATIONMODE: validationMode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "gwpol.yaml")
			if err := os.WriteFile(cfg, []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
			if tc.env[0] != "" {
				t.Setenv(tc.env[0], tc.env[1])
			}
			_, stderr, code := run(t, "lint", "-f", "testdata/examples", "--config", cfg)
			if code != ExitUsage || !strings.Contains(stderr, tc.where) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, ExitUsage, tc.where)
			}
		})
	}
}
