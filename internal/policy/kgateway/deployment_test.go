package kgateway

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestDeploymentTraits: what kgateway's deployment settings change in
// the generic stages, read from the settings' values as the config reader
// gives them (any case), with kgateway's defaults when unset.
func TestDeploymentTraits(t *testing.T) {
	unset := policy.Config{}
	if deployment.Ungranted(unset) || strictGrants(unset) || strictValidation(unset) || deployment.AllNamespacesPolicies(unset) != "" {
		t.Error("unset: want kgateway's defaults (Permissive grants, Standard validation, no global policy namespace)")
	}
	for mode, want := range map[string][2]bool{"off": {true, false}, "Permissive": {false, false}, "STRICT": {false, true}} {
		cfg := unset.WithSetting(ReferenceGrantMode.Key, mode)
		if got := [2]bool{deployment.Ungranted(cfg), strictGrants(cfg)}; got != want {
			t.Errorf("referenceGrantMode %s: ungranted references, strict grants = %v, want %v", mode, got, want)
		}
	}
	if !strictValidation(unset.WithSetting(ValidationMode.Key, "strict")) {
		t.Error("validationMode strict: not strict")
	}
	if got := deployment.AllNamespacesPolicies(unset.WithSetting(GlobalPolicyNamespace.Key, "kgateway-system")); got != "kgateway-system" {
		t.Errorf("globalPolicyNamespace: %q", got)
	}
}

// TestFieldStrategy: policyMerge gives a field its strategy by the kind's
// config key and the field's name, both compared without case; a field
// it does not name keeps its default.
func TestFieldStrategy(t *testing.T) {
	cfg := policy.Config{}.WithSetting(PolicyMerge.Key, map[string]any{
		"TrafficPolicy": map[string]any{"extauth": "DeepMerge", "acl": "ShallowMerge"}})
	k := New()
	for field, want := range map[string]policy.Strategy{"extAuth": policy.AugmentedDeep, "acl": policy.AugmentedShallow, "extProc": ""} {
		got, ok := fieldStrategy(cfg, k, field)
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", field, got, ok, want)
		}
	}
}

// TestCheckPolicyMerge: a policyMerge section is kinds mapping fields to
// DeepMerge or ShallowMerge; anything else is refused naming the key of
// the bad value first (the config reader positions it).
func TestCheckPolicyMerge(t *testing.T) {
	for _, tt := range []struct {
		section map[string]any
		want    string // the error's start; "" none
	}{
		{map[string]any{"trafficPolicy": map[string]any{"extAuth": "DeepMerge", "acl": "ShallowMerge"}}, ""},
		{map[string]any{"trafficPolicy": nil}, ""},
		{map[string]any{"trafficPolicy": map[string]any{"extAuth": "Deep"}}, `policyMerge.trafficPolicy.extAuth must be DeepMerge or ShallowMerge, not "Deep"`},
		{map[string]any{"trafficPolicy": map[string]any{"extAuth": 3}}, `policyMerge.trafficPolicy.extAuth must be DeepMerge or ShallowMerge, not 3`},
		{map[string]any{"trafficPolicy": "DeepMerge"}, "policyMerge.trafficPolicy must map fields"},
	} {
		err := checkPolicyMerge(tt.section)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%v: %v", tt.section, err)
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("%v: error %v, want %q", tt.section, err, tt.want)
		}
	}
}
