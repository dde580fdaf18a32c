package envoygateway

import (
	"encoding/json"
	"fmt"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"github.com/gwpol/gwpol/internal/policy"
)

// directResponseSpec is an HTTPRouteFilter's spec.directResponse.
type directResponseSpec struct {
	ContentType *string `json:"contentType"`
	StatusCode  *int    `json:"statusCode"`
	Body        *struct {
		Type     string          `json:"type"`
		Inline   *string         `json:"inline"`
		ValueRef json.RawMessage `json:"valueRef"`
	} `json:"body"`
}

// status is the response's status: 200 when none is set, as Envoy
// Gateway defaults it.
func (d directResponseSpec) status() int {
	if d.StatusCode != nil {
		return *d.StatusCode
	}
	return 200
}

var _ policy.Answerer = (*Kind)(nil)

// Answer implements policy.Answerer: an HTTPRouteFilter's directResponse
// answers the rule naming it with its status.
func (k *Kind) Answer(key string, v any) (int, bool) {
	raw, ok := v.(json.RawMessage)
	if k != httpRouteFilter || key != "directResponse" || !ok {
		return 0, false
	}
	var d directResponseSpec
	if json.Unmarshal(raw, &d) != nil {
		return 0, false
	}
	return d.status(), true
}

// renderDirectResponse: the rule's routes answer the status and the
// inline body themselves, with the content type as a response header, as
// Envoy Gateway writes them (the body as a text format source). A body
// held in a ConfigMap (valueRef) cannot be rendered: gwpol reads no
// ConfigMap data.
func renderDirectResponse(v json.RawMessage, _ policyName) ([]policy.Fragment, error) {
	var d directResponseSpec
	if err := json.Unmarshal(v, &d); err != nil {
		return nil, fmt.Errorf("directResponse: %w", err)
	}
	act := &routev3.DirectResponseAction{Status: uint32(d.status())}
	if b := d.Body; b != nil {
		switch {
		case b.Type == "ValueRef" || len(b.ValueRef) > 0:
			return nil, fmt.Errorf("directResponse.body.valueRef: a body held in a ConfigMap is not rendered (gwpol reads no ConfigMap data)")
		case b.Inline != nil:
			act.BodyFormat = &corev3.SubstitutionFormatString{Format: &corev3.SubstitutionFormatString_TextFormatSource{
				TextFormatSource: &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: []byte(*b.Inline)}}}}
		}
	}
	r := &routev3.Route{Action: &routev3.Route_DirectResponse{DirectResponse: act}}
	if d.ContentType != nil {
		r.ResponseHeadersToAdd = []*corev3.HeaderValueOption{{Header: &corev3.HeaderValue{Key: "Content-Type", Value: *d.ContentType},
			AppendAction: corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD}}
	}
	return []policy.Fragment{{Capability: "route", TypedRoute: r}}, nil
}
