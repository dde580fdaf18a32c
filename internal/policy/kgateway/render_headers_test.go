package kgateway

import (
	"testing"

	headermutationv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/header_mutation/v3"
)

// TestHeaderModifiersEmptyForms: a headerModifiers whose directions hold
// no entry (`{}`, `request: {}`, a response with empty lists) writes the
// per-resource HeaderMutationPerRoute without mutations, as kgateway's
// constructHeaderModifiers does; one entry in either direction writes
// both directions' lists.
func TestHeaderModifiersEmptyForms(t *testing.T) {
	name, val := "x-a", "b"
	tests := []struct {
		name      string
		in        HeaderModifiers
		mutations bool
		req, resp int
	}{
		{"empty", HeaderModifiers{}, false, 0, 0},
		{"request without entries", HeaderModifiers{Request: &HTTPHeaderFilter{}}, false, 0, 0},
		{"both directions with empty lists", HeaderModifiers{Request: &HTTPHeaderFilter{Set: []HTTPHeader{}}, Response: &HTTPHeaderFilter{Remove: []string{}}}, false, 0, 0},
		{"a response remove only", HeaderModifiers{Request: &HTTPHeaderFilter{}, Response: &HTTPHeaderFilter{Remove: []string{"x-b"}}}, true, 0, 1},
		{"request add and set", HeaderModifiers{Request: &HTTPHeaderFilter{Add: []HTTPHeader{{Name: &name, Value: &val}}, Set: []HTTPHeader{{Name: &name, Value: &val}}}}, true, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			frs := renderField(t, "headerModifiers", &in)
			if len(frs) != 1 {
				t.Fatalf("fragments %v", frs)
			}
			per, ok := frs[0].TypedPerFilterConfig["envoy.extensions.filters.http.header_mutation"].(*headermutationv3.HeaderMutationPerRoute)
			if !ok {
				t.Fatalf("per-route config %v", frs[0].TypedPerFilterConfig)
			}
			if (per.GetMutations() != nil) != tt.mutations {
				t.Errorf("mutations %v, want present: %v", per.GetMutations(), tt.mutations)
			}
			if n, m := len(per.GetMutations().GetRequestMutations()), len(per.GetMutations().GetResponseMutations()); n != tt.req || m != tt.resp {
				t.Errorf("request %d, response %d mutations, want %d, %d", n, m, tt.req, tt.resp)
			}
			if err := per.ValidateAll(); err != nil {
				t.Error(err)
			}
		})
	}
}
