package directresponse

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/policy"
)

// invalidBody is kgateway's answer to a rule it cannot translate.
const invalidBody = "invalid route configuration detected and replaced with a direct response."

// RenderField implements policy.Renderer: the Route answers directly
// instead of forwarding (Envoy's direct_response, a formatted body as a
// substitution format string); two answers on one rule are kgateway's
// invalid route (500).
func (Kind) RenderField(in policy.FieldInput, _ *policy.Env) ([]policy.Fragment, error) {
	if len(in.Values) == 0 {
		return nil, nil
	}
	dr := map[string]any{"status": 500, "body": map[string]any{"inlineString": invalidBody}}
	if len(in.Values) == 1 {
		s, ok := in.Values[0].(*Spec)
		if !ok {
			return nil, fmt.Errorf("directResponse is a %T", in.Values[0])
		}
		dr = map[string]any{"status": s.Status}
		switch {
		case s.Body != nil:
			dr["body"] = map[string]any{"inlineString": *s.Body}
		case s.BodyFormat != nil:
			f := map[string]any{"textFormatSource": map[string]any{"inlineString": s.BodyFormat.Text}}
			if s.BodyFormat.ContentType != nil {
				f["contentType"] = *s.BodyFormat.ContentType
			}
			dr["bodyFormat"] = f
		}
	}
	return []policy.Fragment{{Route: map[string]any{"directResponse": dr}}}, nil
}
