package kgateway

import (
	"testing"

	dynmodulefilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/dynamic_modules/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestTransformationForms: kgateway serializes a transformation as the API
// server stored it — a body without parseAs has the CRD's AsString — and
// writes nothing for an empty one.
func TestTransformationForms(t *testing.T) {
	tmpl := "{{ body() }}"
	tests := []struct {
		name string
		v    *TransformationPolicy
		want string // the per-route JSON; "" for no fragment
	}{
		{"empty", &TransformationPolicy{}, ""},
		{"body without parseAs", &TransformationPolicy{Request: &Transform{Body: &BodyTransformation{Value: &tmpl}}},
			`{"request":{"body":{"parseAs":"AsString","value":"{{ body() }}"}}}`},
		{"body parsed as JSON", &TransformationPolicy{Response: &Transform{Body: &BodyTransformation{ParseAs: "AsJson"}}},
			`{"response":{"body":{"parseAs":"AsJson"}}}`},
		{"headers only", &TransformationPolicy{Request: &Transform{Remove: []string{"x-a"}}}, `{"request":{"remove":["x-a"]}}`},
		{"an empty request", &TransformationPolicy{Request: &Transform{}}, `{"request":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frs, err := Kind{}.RenderField(policy.FieldInput{Key: "transformation", Values: []any{tt.v}}, &policy.Env{})
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if len(frs) != 0 {
					t.Fatalf("fragments %v, want none", frs)
				}
				return
			}
			if len(frs) != 1 {
				t.Fatalf("fragments %v, want one", frs)
			}
			per, ok := frs[0].TypedPerFilterConfig["dynamic_modules/simple_mutations"].(*dynmodulefilterv3.DynamicModuleFilterPerRoute)
			if !ok {
				t.Fatalf("per-route config is a %T", frs[0].TypedPerFilterConfig["dynamic_modules/simple_mutations"])
			}
			s := &wrapperspb.StringValue{}
			if err := per.GetFilterConfig().UnmarshalTo(s); err != nil {
				t.Fatal(err)
			}
			if s.GetValue() != tt.want {
				t.Errorf("config %s, want %s", s.GetValue(), tt.want)
			}
			if b := tt.v.Request; b != nil && b.Body != nil && b.Body.ParseAs == "AsString" {
				t.Error("rendering changed the merged value")
			}
		})
	}
}
