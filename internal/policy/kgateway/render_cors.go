package kgateway

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	corsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// corsOff is what kgateway writes where a policy's cors disables CORS
// (pluginsdk/policy/cors.go: BuildCorsPolicy with disable): a CorsPolicy
// enabled for no request under the runtime key envoy.cors.filter_enabled,
// and nothing else of the policy, over a less specific policy's.
func corsOff() *corsv3.CorsPolicy {
	return &corsv3.CorsPolicy{FilterEnabled: &corev3.RuntimeFractionalPercent{
		DefaultValue: &typev3.FractionalPercent{Numerator: 0, Denominator: typev3.FractionalPercent_HUNDRED},
		RuntimeKey:   "envoy.cors.filter_enabled",
	}}
}

// cors: the CORS filter, configured per resource with the policy's
// CorsPolicy (Gateway API HTTPCORSFilter fields), or switched off by a
// disable (corsOff).
func (r *fieldRenderer) cors() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*CorsPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.filters.http.cors"
	fr := policy.Fragment{Capability: "cors", Filter: &policy.HTTPFilter{Name: name, Order: orderCors, Typed: &corsv3.Cors{}}}
	if v.Disable != nil {
		fr.TypedPerFilterConfig = map[string]proto.Message{name: corsOff()}
		return []policy.Fragment{fr}, nil
	}
	c := v.HTTPCORSFilter
	per := &corsv3.CorsPolicy{ForwardNotMatchingPreflights: wrapperspb.Bool(false)}
	for _, o := range c.AllowOrigins {
		per.AllowOriginStringMatch = append(per.AllowOriginStringMatch, originMatcher(string(o)))
	}
	// kgateway joins the lists with ", " and writes allow_credentials only
	// when it is true (pluginsdk/policy/cors.go: BuildCorsPolicy).
	per.AllowMethods = joinStrings(c.AllowMethods, ", ")
	per.AllowHeaders = joinStrings(c.AllowHeaders, ", ")
	per.ExposeHeaders = joinStrings(c.ExposeHeaders, ", ")
	maxAge := c.MaxAge
	if maxAge == 0 {
		maxAge = 5 // the Gateway API default
	}
	per.MaxAge = strconv.Itoa(int(maxAge))
	if c.AllowCredentials != nil && *c.AllowCredentials {
		per.AllowCredentials = wrapperspb.Bool(true)
	}
	fr.TypedPerFilterConfig = map[string]proto.Message{name: per}
	return []policy.Fragment{fr}, nil
}

// originMatcher matches one allowed origin as kgateway does
// (pluginsdk/policy/cors.go: ConvertOriginToEnvoyStringMatcher): without a
// wildcard exactly; "*" alone any origin; one "*" at the end by prefix;
// any other "*" as ".*" in an anchored regex of the quoted origin — so
// "https://*.example.com" matches any number of labels before
// example.com, and not example.com itself.
func originMatcher(o string) *matcherv3.StringMatcher {
	regex := func(r string) *matcherv3.StringMatcher {
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: r}}}
	}
	switch n := strings.Count(o, "*"); {
	case o == "*":
		return regex("^.*$")
	case n == 0:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: o}}
	case n == 1 && strings.HasSuffix(o, "*"):
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Prefix{Prefix: strings.TrimSuffix(o, "*")}}
	}
	return regex("^" + strings.ReplaceAll(regexp.QuoteMeta(o), `\*`, ".*") + "$")
}

func joinStrings[S ~string](ss []S, sep string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return strings.Join(out, sep)
}
