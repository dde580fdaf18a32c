package envoygateway

import (
	"encoding/json"
	"testing"

	csrfv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/csrf/v3"
)

// TestRenderCSRF: the route's policy enforces all but the shadow
// fraction, which runs in shadow mode; origins lose their scheme.
func TestRenderCSRF(t *testing.T) {
	for _, tc := range []struct {
		name, in   string
		enforced   uint32
		shadow     bool
		origins    []string // exact, or "~regex"
		capability string
		err        bool
	}{
		{name: "default", in: `{}`, enforced: 100},
		{name: "shadow fraction", in: `{"shadowFraction":{"numerator":20}}`, enforced: 80, shadow: true},
		{name: "fraction with denominator", in: `{"shadowFraction":{"numerator":1,"denominator":4}}`, enforced: 75, shadow: true},
		{name: "origins", in: `{"additionalOrigins":["https://a.example","http://b.example:8080","https://*.c.example","*"]}`, enforced: 100,
			origins: []string{"a.example", "b.example:8080", `~.*\.c\.example`, "~.*"}},
		{name: "not a fraction", in: `{"shadowFraction":{"numerator":5,"denominator":4}}`, err: true},
		{name: "unknown key", in: `{"newThing":true}`, capability: "envoygateway.SecurityPolicy.csrf.newThing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := renderCSRF(json.RawMessage(tc.in), policyName{})
			if tc.err {
				if err == nil {
					t.Fatalf("got %v, want an error", frags)
				}
				return
			}
			if err != nil || len(frags) != 1 {
				t.Fatalf("got %v, %v", frags, err)
			}
			f := frags[0]
			if tc.capability != "" {
				if f.Capability != tc.capability {
					t.Errorf("capability %q, want %q", f.Capability, tc.capability)
				}
				return
			}
			if f.Filter == nil || f.Filter.Name != csrfFilter || !f.Filter.Enabled {
				t.Fatalf("filter %+v, want %s on", f.Filter, csrfFilter)
			}
			if c, ok := f.Filter.Typed.(*csrfv3.CsrfPolicy); !ok || c.GetFilterEnabled().GetDefaultValue().GetNumerator() != 0 {
				t.Errorf("chain config %v, want 0 %% enforced", f.Filter.Typed)
			}
			per, ok := f.TypedPerFilterConfig[csrfFilter].(*csrfv3.CsrfPolicy)
			if !ok {
				t.Fatalf("per-route config %v", f.TypedPerFilterConfig)
			}
			if got := per.GetFilterEnabled().GetDefaultValue().GetNumerator(); got != tc.enforced {
				t.Errorf("enforced %d %%, want %d", got, tc.enforced)
			}
			if got := per.GetShadowEnabled() != nil; got != tc.shadow || (got && per.GetShadowEnabled().GetDefaultValue().GetNumerator() != 100) {
				t.Errorf("shadow %v, want %v at 100 %%", per.GetShadowEnabled(), tc.shadow)
			}
			var origins []string
			for _, o := range per.GetAdditionalOrigins() {
				if r := o.GetSafeRegex(); r != nil {
					origins = append(origins, "~"+r.GetRegex())
				} else {
					origins = append(origins, o.GetExact())
				}
			}
			if len(origins) != len(tc.origins) {
				t.Fatalf("origins %q, want %q", origins, tc.origins)
			}
			for i := range origins {
				if origins[i] != tc.origins[i] {
					t.Errorf("origin %d: %q, want %q", i, origins[i], tc.origins[i])
				}
			}
		})
	}
}
