package envoygateway

import (
	"maps"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
)

// extensionsOn is cfg in a deployment that enables Envoy Gateway's Backend
// kind and Lua (extensionApis.enableBackend, enableLua), as Envoy
// Gateway's own translator tests run; a value cfg sets stays.
func extensionsOn(cfg policy.Config) policy.Config {
	values := map[string]any{EnableBackend.Key: true, EnableLua.Key: true}
	maps.Copy(values, cfg.Values)
	cfg.Values = values
	return cfg
}

// TestSettingDefaults: gwpol's defaults are Envoy Gateway v1.9.0's own
// (EnvoyGateway's extensionApis leave Backend and Lua off), and a finding
// about a feature they switch off names the .gwpol.yaml that switches it on.
func TestSettingDefaults(t *testing.T) {
	for _, s := range []policy.Setting{EnableBackend, EnableLua, RateLimitEnabled, RunningOnHost} {
		if s.Default != false {
			t.Errorf("%s: default %v, want Envoy Gateway's false", s.Key, s.Default)
		}
		if s.Bool(policy.Config{}) {
			t.Errorf("%s: on in an empty config", s.Key)
		}
	}
	if got, want := enables(EnableLua), "{envoyGateway: {extensionApis: {enableLua: true}}}"; !strings.HasSuffix(got, want) {
		t.Errorf("enables(EnableLua) = %q, want it to end with %q", got, want)
	}
}
