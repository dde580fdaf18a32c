package kgateway

import (
	"fmt"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"github.com/gwpol/gwpol/internal/policy"
)

// invalidBody is kgateway's answer to a rule it cannot translate.
const invalidBody = "invalid route configuration detected and replaced with a direct response."

// RenderField implements policy.Renderer: the Route answers directly
// instead of forwarding (Envoy's direct_response, a formatted body as a
// substitution format string); two answers on one rule are kgateway's
// invalid route (500).
func (DirectResponseKind) RenderField(in policy.FieldInput, _ *policy.Env) ([]policy.Fragment, error) {
	if len(in.Values) == 0 {
		return nil, nil
	}
	dr := &routev3.DirectResponseAction{Status: 500, Body: inline(invalidBody)}
	if len(in.Values) == 1 {
		s, ok := in.Values[0].(*DirectResponseSpec)
		if !ok {
			return nil, fmt.Errorf("directResponse is a %T", in.Values[0])
		}
		dr = &routev3.DirectResponseAction{Status: s.Status}
		switch {
		case s.Body != nil:
			dr.Body = inline(*s.Body)
		case s.BodyFormat != nil:
			dr.BodyFormat = &corev3.SubstitutionFormatString{
				Format: &corev3.SubstitutionFormatString_TextFormatSource{TextFormatSource: inline(s.BodyFormat.Text)}}
			if s.BodyFormat.ContentType != nil {
				dr.BodyFormat.ContentType = *s.BodyFormat.ContentType
			}
		}
	}
	return []policy.Fragment{{TypedRoute: &routev3.Route{Action: &routev3.Route_DirectResponse{DirectResponse: dr}}}}, nil
}

func inline(s string) *corev3.DataSource {
	return &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: s}}
}
