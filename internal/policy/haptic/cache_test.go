package haptic

import (
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestEmptyCacheTakesEffect: HAPTIC caches a rule whenever its policy has a
// cache section (44-route-policies.yaml: GatewayPolicyRecord runs
// PolicyCache when spec.cache is present; 48-policy-cache.yaml publishes
// the rule's cache record), an empty one too — its lifetime is then the
// origin's Cache-Control (route-policy.md@04be9778). So a policy whose
// only section is cache: {} is valid, renders the cache filter, and is
// not one that "sets no field that takes effect" (Enabler; GWP405 said so
// until hap33); other empty sections stay what they were.
func TestEmptyCacheTakesEffect(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		valid      bool
		noEffect   bool
		warnings   int
		renders    bool // the cache field renders its filter
	}{
		{"cache: {} alone", "spec:\n  cache: {}", true, false, 0, true},
		{"cache: {} beside an empty authentication", "spec:\n  authentication: {}\n  cache: {}", true, false, 1, true},
		{"cache with a lifetime", "spec:\n  cache: {ttlSeconds: 30}", true, false, 0, true},
		{"an empty rateLimit is no rate limit", "spec:\n  rateLimit: {}", false, false, 0, false},
		{"an empty authentication alone enforces nothing", "spec:\n  authentication: {}", false, false, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decode(t, tc.spec)
			if p.IsValid() != tc.valid {
				t.Fatalf("valid %v, want %v: %v", p.IsValid(), tc.valid, codes(p.Invalid))
			}
			if got := p.NoEffect(); got != tc.noEffect {
				t.Errorf("NoEffect %v, want %v", got, tc.noEffect)
			}
			warnings := 0
			for _, d := range p.Findings {
				if d.Severity == diag.Warning {
					warnings++
				}
			}
			if warnings != tc.warnings {
				t.Errorf("%d warnings, want %d: %v", warnings, tc.warnings, codes(p.Findings))
			}
			v, ok := p.Values[FieldCache]
			if ok != tc.renders {
				t.Fatalf("cache value set %v, want %v", ok, tc.renders)
			}
			if !ok {
				return
			}
			frags, err := New().RenderField(policy.FieldInput{Key: FieldCache, Values: []any{v}, Contributors: []string{p.ID()}, Scope: policy.ScopeRoute}, nil)
			if err != nil || len(frags) == 0 || frags[0].Capability != CapCache {
				t.Errorf("cache renders %v, %v; want its cache filter", frags, err)
			}
		})
	}
	if (Kind{}).Enables(FieldRateLimit, &RateLimit{}) || (Kind{}).Enables(FieldWAF, &WAF{}) {
		t.Error("only an empty cache switches its feature on")
	}
}
