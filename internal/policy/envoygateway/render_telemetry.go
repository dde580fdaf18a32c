//lint:file-ignore SA1019 Envoy Gateway still reads its deprecated fields (users set them), so gwpol reads them too.

package envoygateway

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	tracingv3 "github.com/envoyproxy/go-control-plane/envoy/type/tracing/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// renderTelemetry is the route's share of spec.telemetry, as Envoy
// Gateway writes it: tracing is the route's tracing overrides (sampling,
// tags, span names), whatever tracer the Gateway's EnvoyProxy sets up;
// metrics.routeStatName is the route's stat prefix, with %ROUTE_KIND%,
// %ROUTE_NAMESPACE%, %ROUTE_NAME% and %ROUTE_RULE_NAME% ("-" for an
// unnamed rule) filled per route.
func renderTelemetry(t *egv1a1.BackendTelemetry, _ policyName) ([]policy.Fragment, error) {
	if t == nil {
		t = &egv1a1.BackendTelemetry{}
	}
	var frags []policy.Fragment
	if tr := t.Tracing; tr != nil {
		rt := &routev3.Tracing{
			ClientSampling:  fractionOrZero(tr.ClientSamplingFraction),
			RandomSampling:  fractionalPercent(tr.SamplingFraction),
			OverallSampling: fractionalPercent(tr.OverallSamplingFraction),
		}
		tags := map[string]*tracingv3.CustomTag{}
		for name, ct := range tr.CustomTags {
			tag, err := tracingTag(name, ct)
			if err != nil {
				return nil, fmt.Errorf("telemetry.tracing.customTags.%s: %w", name, err)
			}
			tags[name] = tag
		}
		for name, val := range tr.Tags {
			tags[name] = &tracingv3.CustomTag{Tag: name, Type: &tracingv3.CustomTag_Value{Value: val}}
		}
		for _, name := range slices.Sorted(maps.Keys(tags)) {
			rt.CustomTags = append(rt.CustomTags, tags[name])
		}
		if sn := tr.SpanName; sn != nil {
			rt.Operation, rt.UpstreamOperation = sn.Client, sn.Server
		}
		frags = append(frags, policy.Fragment{Capability: "tracing", TypedRoute: &routev3.Route{Tracing: rt}})
	}
	if m := t.Metrics; m != nil && m.RouteStatName != nil && *m.RouteStatName != "" {
		format := *m.RouteStatName
		frags = append(frags, policy.Fragment{Capability: "route", PerRoute: func(s policy.RouteSite) ([]policy.Fragment, error) {
			return []policy.Fragment{{TypedRoute: &routev3.Route{StatPrefix: routeStatName(format, s)}}}, nil
		}})
	}
	return frags, nil
}

// routeStatName fills a route stat name's operators for one route.
func routeStatName(format string, s policy.RouteSite) string {
	rule := s.RuleName
	if rule == "" {
		rule = "-"
	}
	return strings.NewReplacer("%ROUTE_NAME%", s.Name, "%ROUTE_NAMESPACE%", s.Namespace, "%ROUTE_KIND%", s.Kind,
		"%ROUTE_RULE_NAME%", rule).Replace(format)
}

// tracingTag is a custom tag: a literal, an environment variable or a
// request header (with its default value).
func tracingTag(name string, ct egv1a1.CustomTag) (*tracingv3.CustomTag, error) {
	tag := &tracingv3.CustomTag{Tag: name}
	switch {
	case ct.Type == "Literal" && ct.Literal != nil:
		tag.Type = &tracingv3.CustomTag_Literal_{Literal: &tracingv3.CustomTag_Literal{Value: ct.Literal.Value}}
	case ct.Type == "Environment" && ct.Environment != nil:
		tag.Type = &tracingv3.CustomTag_Environment_{Environment: &tracingv3.CustomTag_Environment{
			Name: ct.Environment.Name, DefaultValue: deref(ct.Environment.DefaultValue)}}
	case ct.Type == "RequestHeader" && ct.RequestHeader != nil:
		tag.Type = &tracingv3.CustomTag_RequestHeader{RequestHeader: &tracingv3.CustomTag_Header{
			Name: ct.RequestHeader.Name, DefaultValue: deref(ct.RequestHeader.DefaultValue)}}
	default:
		return nil, fmt.Errorf("unknown custom tag type %q, or its settings missing", ct.Type)
	}
	return tag, nil
}

// fractionalPercent is a fraction as Envoy takes it: over 100, 10,000
// or 1,000,000 where the denominator allows, else in millionths
// (rounded down); nil when unset.
func fractionalPercent(f *gwapiv1.Fraction) *typev3.FractionalPercent {
	if f == nil {
		return nil
	}
	n := max(int64(f.Numerator), 0)
	d := int64(100)
	if f.Denominator != nil {
		d = int64(*f.Denominator)
	}
	switch d {
	case 100:
		return &typev3.FractionalPercent{Numerator: uint32(n), Denominator: typev3.FractionalPercent_HUNDRED}
	case 1000:
		return &typev3.FractionalPercent{Numerator: uint32(n * 10), Denominator: typev3.FractionalPercent_TEN_THOUSAND}
	case 10000:
		return &typev3.FractionalPercent{Numerator: uint32(n), Denominator: typev3.FractionalPercent_TEN_THOUSAND}
	case 100000:
		return &typev3.FractionalPercent{Numerator: uint32(n * 10), Denominator: typev3.FractionalPercent_MILLION}
	case 1000000:
		return &typev3.FractionalPercent{Numerator: uint32(n), Denominator: typev3.FractionalPercent_MILLION}
	}
	if d <= 0 {
		return &typev3.FractionalPercent{Denominator: typev3.FractionalPercent_MILLION}
	}
	return &typev3.FractionalPercent{Numerator: uint32(n * 1000000 / d), Denominator: typev3.FractionalPercent_MILLION}
}

// fractionOrZero is fractionalPercent, 0 % when unset (client-forced
// tracing is off unless asked for).
func fractionOrZero(f *gwapiv1.Fraction) *typev3.FractionalPercent {
	if p := fractionalPercent(f); p != nil {
		return p
	}
	return &typev3.FractionalPercent{}
}
