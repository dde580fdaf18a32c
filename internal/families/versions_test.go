package families

import (
	"errors"
	"github.com/gwpol/gwpol/internal/pipeline"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
)

// A setting its family refuses as malformed (policy.Family.CheckConfig)
// is a usage error naming the config file, before anything is loaded.
func TestLoadVersionsRefusesMalformedFamilySetting(t *testing.T) {
	cfg := &pipeline.Config{File: "gwpol.yaml", Settings: map[string]any{"wso2.systemPolicies": "not a list"}}
	_, err := LoadVersions(cfg)
	var ke *diag.KindError
	if !errors.As(err, &ke) || ke.Kind != diag.Usage {
		t.Fatalf("LoadVersions = %v, want a usage error", err)
	}
	if !strings.Contains(err.Error(), "config gwpol.yaml") || !strings.Contains(err.Error(), "systemPolicies") {
		t.Errorf("error %q does not name the config file and the setting", err)
	}
	cfg.Settings = map[string]any{"wso2.systemPolicies": []any{}}
	if _, err := LoadVersions(cfg); err != nil {
		t.Errorf("LoadVersions with a well-formed setting = %v", err)
	}
}
