package envoygateway

import (
	"encoding/json"
	"fmt"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	credentialinjectorv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/credential_injector/v3"
	genericv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/injected_credentials/generic/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

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

// credentialInjectorFilter prefixes the name of Envoy's credential
// injector filter, one per HTTPRouteFilter:
// envoy.filters.http.credential_injector/httproutefilter/<ns>/<name>.
const credentialInjectorFilter = "envoy.filters.http.credential_injector"

// orderCredentialInjector puts the credential injector after the gRPC-Web
// and gRPC statistics filters internal/render/envoy adds (orders 1<<20
// and 1<<20+1), just before the router, as Envoy Gateway orders them.
const orderCredentialInjector = 1<<20 + 2

// credentialInjection is HTTPRouteFilter's spec.credentialInjection.
type credentialInjection struct {
	Header     *string `json:"header"`
	Overwrite  *bool   `json:"overwrite"`
	Credential struct {
		ValueRef *secretRef `json:"valueRef"`
	} `json:"credential"`
}

// renderCredentialInjection is Envoy Gateway's credential injection: a
// credential_injector filter per HTTPRouteFilter, off in the chain and
// turned on by the routes whose rules name the filter, injecting a
// generic credential into the header (Authorization unless set). The
// credential is the "credential" key of the Secret the filter names,
// which Envoy Gateway serves over SDS as
// credential_injector/credential/httproutefilter/<ns>/<name>: gwpol
// references it by that name and never reads the Secret's data.
func renderCredentialInjection(v json.RawMessage, who policyName) ([]policy.Fragment, error) {
	if k := unrenderedKeys(v, "header", "overwrite", "credential"); k != "" {
		return []policy.Fragment{{Capability: "envoygateway.HTTPRouteFilter.credentialInjection." + k}}, nil
	}
	var c credentialInjection
	if err := json.Unmarshal(v, &c); err != nil {
		return nil, fmt.Errorf("credentialInjection: %w", err)
	}
	if c.Credential.ValueRef == nil || c.Credential.ValueRef.Name == "" {
		return nil, fmt.Errorf("credentialInjection.credential.valueRef: no Secret named")
	}
	generic := &genericv3.Generic{Credential: &tlsv3.SdsSecretConfig{
		Name: "credential_injector/credential/" + who.String(),
		SdsConfig: &corev3.ConfigSource{
			ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}},
			InitialFetchTimeout:   durationpb.New(0),
			ResourceApiVersion:    corev3.ApiVersion_V3,
		},
	}}
	if c.Header != nil {
		generic.Header = *c.Header
	}
	injector := &credentialinjectorv3.CredentialInjector{Credential: typedCoreExtension("envoy.http.injected_credentials.generic", generic)}
	if c.Overwrite != nil {
		injector.Overwrite = *c.Overwrite
	}
	name := credentialInjectorFilter + "/" + who.String()
	return []policy.Fragment{{
		Capability:           "credential_injector",
		Filter:               &policy.HTTPFilter{Name: name, Order: orderCredentialInjector, Typed: injector},
		TypedPerFilterConfig: map[string]proto.Message{name: &routev3.FilterConfig{Config: &anypb.Any{}}},
	}}, nil
}

// typedCoreExtension packs a message built here as Envoy's core typed
// extension (packing a known message cannot fail).
func typedCoreExtension(name string, m proto.Message) *corev3.TypedExtensionConfig {
	a, err := anypb.New(m)
	if err != nil {
		panic(fmt.Sprintf("envoygateway: packing %T: %v", m, err))
	}
	return &corev3.TypedExtensionConfig{Name: name, TypedConfig: a}
}
