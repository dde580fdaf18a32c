package kgateway

import (
	"fmt"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	csrfv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/csrf/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/policy"
)

// The runtime keys kgateway gives a resource's CSRF percentages.
const (
	csrfFilterEnabledKey = "envoy.csrf.filter_enabled"
	csrfShadowEnabledKey = "envoy.csrf.shadow_enabled"
)

// csrf: the CSRF filter, enforcing nowhere by default, and per resource
// enforcing (and shadowing) on the policy's share of requests with its
// extra allowed origins, as kgateway's constructCSRF builds it: the share
// is the policy's percentageEnabled, none when it gives none (the CRD has
// no default: a policy with only additionalOrigins or only
// percentageShadowed enforces nothing), under kgateway's runtime keys.
func (r *fieldRenderer) csrf() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*CSRFPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.filters.http.csrf"
	filter := &csrfv3.CsrfPolicy{FilterEnabled: &corev3.RuntimeFractionalPercent{DefaultValue: fraction(nil, 0)}}
	per := &csrfv3.CsrfPolicy{FilterEnabled: &corev3.RuntimeFractionalPercent{DefaultValue: fraction(v.PercentageEnabled, 0), RuntimeKey: csrfFilterEnabledKey}}
	if v.PercentageShadowed != nil {
		per.ShadowEnabled = &corev3.RuntimeFractionalPercent{DefaultValue: fraction(v.PercentageShadowed, 0), RuntimeKey: csrfShadowEnabledKey}
	}
	for _, m := range v.AdditionalOrigins {
		o := typedStringMatcher(m)
		if re := o.GetSafeRegex(); re != nil {
			//lint:ignore SA1019 kgateway names the RE2 engine (deprecated, still accepted by Envoy), and gwpol reproduces it
			re.EngineType = &matcherv3.RegexMatcher_GoogleRe2{GoogleRe2: &matcherv3.RegexMatcher_GoogleRE2{}}
		}
		per.AdditionalOrigins = append(per.AdditionalOrigins, o)
	}
	return []policy.Fragment{{Capability: "csrf", Filter: &policy.HTTPFilter{Name: name, Order: orderCsrf, Typed: filter},
		TypedPerFilterConfig: map[string]proto.Message{name: per}}}, nil
}

// fraction is a percentage of requests (def when unset; a negative one
// is none).
func fraction(p *int32, def int32) *typev3.FractionalPercent {
	v := def
	if p != nil {
		v = *p
	}
	return &typev3.FractionalPercent{Numerator: uint32(max(v, 0)), Denominator: typev3.FractionalPercent_HUNDRED}
}

// typedStringMatcher is a policy's string match.
func typedStringMatcher(m StringMatcher) *matcherv3.StringMatcher {
	out := &matcherv3.StringMatcher{}
	switch {
	case m.Exact != nil:
		out.MatchPattern = &matcherv3.StringMatcher_Exact{Exact: *m.Exact}
	case m.Prefix != nil:
		out.MatchPattern = &matcherv3.StringMatcher_Prefix{Prefix: *m.Prefix}
	case m.Suffix != nil:
		out.MatchPattern = &matcherv3.StringMatcher_Suffix{Suffix: *m.Suffix}
	case m.Contains != nil:
		out.MatchPattern = &matcherv3.StringMatcher_Contains{Contains: *m.Contains}
	case m.SafeRegex != nil:
		out.MatchPattern = &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: *m.SafeRegex}}
	}
	out.IgnoreCase = m.IgnoreCase != nil && *m.IgnoreCase
	return out
}
