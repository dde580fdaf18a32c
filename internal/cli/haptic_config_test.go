package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/policy/haptic"
)

// TestHAPTICConfig: the haptic: section reaches the kind with the case of
// its keys (trusted WAF policy names), and a bad switch is refused with
// the key named.
func TestHAPTICConfig(t *testing.T) {
	for _, tc := range []struct {
		name, file, err string
		check           func(t *testing.T, s haptic.Settings)
	}{
		{name: "switches and trusted policies", file: "haptic:\n  rateLimit: {shared: {enabled: true}}\n  cache: {varnish: {enabled: true}}\n  waf:\n    policies:\n      inline: {Inline-Safe: {requestBody: {mode: none}}}\n      configMapRefs: {central: {namespace: security, name: catalog}}\n      selfService: {enabled: true, limits: {maxTotalPolicies: \"2\"}}\n",
			check: func(t *testing.T, s haptic.Settings) {
				// waf.enabled unset: the catalogs turn the Coraza plugin on (the chart's rule).
				if !s.SharedRateLimit || !s.Varnish || !s.WAF || !s.SelfService || s.MaxTotal != 2 || s.MaxPerNamespace != 4 {
					t.Errorf("switches not read: %+v", s)
				}
				if _, ok := s.Inline["Inline-Safe"]; !ok {
					t.Errorf("inline policy name lost its case: %v", s.Inline)
				}
				if got := s.Trusted["central"].String(); got != "security/catalog/policies.yaml" {
					t.Errorf("trusted catalog %q", got)
				}
			}},
		// The chart's values.yaml: every switch a route policy needs is off.
		{name: "defaults", file: "namespace: default\n", check: func(t *testing.T, s haptic.Settings) {
			if s.SharedRateLimit || s.Varnish || s.WAF || s.SelfService || s.MaxPerNamespace != 4 || s.MaxTotal != 64 {
				t.Errorf("defaults: %+v", s)
			}
		}},
		{name: "bad switch", file: "haptic:\n  waf: {enabled: maybe}\n", err: "haptic.waf.enabled must be true or false"},
		{name: "unknown switch", file: "haptic:\n  varnish: {enabled: true}\n", err: "haptic.varnish is not a setting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "gwpol.yaml")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			c, _, err := loadConfig(path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s, err := haptic.ParseSettings(c.PolicyConfig())
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, s)
		})
	}
}
