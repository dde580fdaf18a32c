package kgateway

import (
	"fmt"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/types/known/structpb"

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
			f, err := responseBodyFormat(s.BodyFormat)
			if err != nil {
				return nil, err
			}
			dr.BodyFormat = f
		}
	}
	return []policy.Fragment{{TypedRoute: &routev3.Route{Action: &routev3.Route_DirectResponse{DirectResponse: dr}}}}, nil
}

// responseBodyFormat is a formatted body as kgateway writes it
// (directresponse/direct_response_plugin.go: ApplyForRoute): a text format
// source, or a JSON format object, with the content type given (none:
// Envoy's default for the format).
func responseBodyFormat(b *BodyFormat) (*corev3.SubstitutionFormatString, error) {
	f := &corev3.SubstitutionFormatString{}
	switch {
	case b.Text != nil:
		f.Format = &corev3.SubstitutionFormatString_TextFormatSource{TextFormatSource: inline(*b.Text)}
	case b.JSON != nil:
		st, err := structpb.NewStruct(b.JSON)
		if err != nil {
			return nil, fmt.Errorf("bodyFormat.json: %w", err)
		}
		f.Format = &corev3.SubstitutionFormatString_JsonFormat{JsonFormat: st}
	default:
		return nil, fmt.Errorf("DirectResponse body format must specify either text or json")
	}
	if b.ContentType != nil {
		f.ContentType = *b.ContentType
	}
	return f, nil
}

func inline(s string) *corev3.DataSource {
	return &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: s}}
}
