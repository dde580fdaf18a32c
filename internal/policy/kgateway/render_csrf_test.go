package kgateway

import (
	"testing"

	csrfv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/csrf/v3"
)

// TestCsrfForms: a resource's CSRF policy enforces on the share of
// requests percentageEnabled gives, none when it gives none (kgateway's
// constructCSRF: the CRD has no default), shadows on percentageShadowed,
// both under kgateway's runtime keys, and matches a regex origin with the
// RE2 engine named; the chain's filter enforces nowhere.
func TestCsrfForms(t *testing.T) {
	fifty, ten := int32(50), int32(10)
	re, exact := "^https://.*\\.example\\.com$", "https://a.example.com"
	tests := []struct {
		name            string
		in              CSRFPolicy
		enabled, shadow uint32
		shadowSet       bool
	}{
		{"percentageEnabled given", CSRFPolicy{PercentageEnabled: &fifty}, 50, 0, false},
		{"only additional origins: enforced nowhere", CSRFPolicy{AdditionalOrigins: []StringMatcher{{Exact: &exact}, {SafeRegex: &re}}}, 0, 0, false},
		{"only shadowed", CSRFPolicy{PercentageShadowed: &ten}, 0, 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			frs := renderField(t, "csrf", &in)
			if len(frs) != 1 {
				t.Fatalf("fragments %v", frs)
			}
			chain := frs[0].Filter.Typed.(*csrfv3.CsrfPolicy)
			if chain.GetFilterEnabled().GetDefaultValue().GetNumerator() != 0 {
				t.Errorf("chain filter enforces on %v", chain.GetFilterEnabled())
			}
			per := frs[0].TypedPerFilterConfig["envoy.filters.http.csrf"].(*csrfv3.CsrfPolicy)
			if fe := per.GetFilterEnabled(); fe.GetDefaultValue().GetNumerator() != tt.enabled || fe.GetRuntimeKey() != "envoy.csrf.filter_enabled" {
				t.Errorf("filterEnabled %v, want %d%% under envoy.csrf.filter_enabled", fe, tt.enabled)
			}
			if se := per.GetShadowEnabled(); (se != nil) != tt.shadowSet || se.GetDefaultValue().GetNumerator() != tt.shadow || (se != nil && se.GetRuntimeKey() != "envoy.csrf.shadow_enabled") {
				t.Errorf("shadowEnabled %v, want %d%% (set: %v) under envoy.csrf.shadow_enabled", se, tt.shadow, tt.shadowSet)
			}
			for _, o := range per.GetAdditionalOrigins() {
				if r := o.GetSafeRegex(); r != nil && r.GetEngineType() == nil {
					t.Errorf("regex origin %v: want the RE2 engine named", r)
				}
			}
			if err := per.ValidateAll(); err != nil {
				t.Error(err)
			}
		})
	}
}
