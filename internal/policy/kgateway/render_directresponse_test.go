package kgateway

import (
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestDirectResponseBodyFormat: a DirectResponse's bodyFormat is a text
// format source or a JSON format object, each with the content type
// given, as kgateway's ApplyForRoute writes them; one with neither is an
// error, not an empty body.
func TestDirectResponseBodyFormat(t *testing.T) {
	text, ct := "path %REQ(:path)%", "application/problem+json"
	tests := []struct {
		name    string
		format  BodyFormat
		want    func(*routev3.DirectResponseAction) bool
		wantErr bool
	}{
		{"text", BodyFormat{Text: &text}, func(d *routev3.DirectResponseAction) bool {
			return d.GetBodyFormat().GetTextFormatSource().GetInlineString() == text && d.GetBodyFormat().GetContentType() == ""
		}, false},
		{"json with a content type", BodyFormat{JSON: map[string]any{"path": "%REQ(:path)%", "code": float64(404)}, ContentType: &ct}, func(d *routev3.DirectResponseAction) bool {
			f := d.GetBodyFormat().GetJsonFormat().GetFields()
			return f["path"].GetStringValue() == "%REQ(:path)%" && f["code"].GetNumberValue() == 404 && d.GetBodyFormat().GetContentType() == ct
		}, false},
		{"neither", BodyFormat{ContentType: &ct}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.format
			frs, err := DirectResponseKind{}.RenderField(policy.FieldInput{Values: []any{&DirectResponseSpec{Status: 404, BodyFormat: &f}}}, nil)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("rendered %v, want an error", frs)
				}
				return
			}
			if err != nil || len(frs) != 1 {
				t.Fatalf("render: %v %v", frs, err)
			}
			r, _ := frs[0].TypedRoute.(*routev3.Route)
			d := r.GetDirectResponse()
			if d.GetStatus() != 404 || !tt.want(d) {
				t.Errorf("direct response %v", d)
			}
		})
	}
}
