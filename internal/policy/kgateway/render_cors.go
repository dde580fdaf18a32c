package kgateway

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	corsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// switchedOff disables a filter on one resource.
var switchedOff = &routev3.FilterConfig{Disabled: true}

// cors: the CORS filter, configured per resource with the policy's
// CorsPolicy (Gateway API HTTPCORSFilter fields), or switched off by a
// disable.
func (r *fieldRenderer) cors() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*CorsPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.filters.http.cors"
	fr := policy.Fragment{Capability: "cors", Filter: &policy.HTTPFilter{Name: name, Order: orderCors, Typed: &corsv3.Cors{}}}
	if v.Disable != nil {
		fr.TypedPerFilterConfig = map[string]proto.Message{name: switchedOff}
		return []policy.Fragment{fr}, nil
	}
	c := v.HTTPCORSFilter
	per := &corsv3.CorsPolicy{ForwardNotMatchingPreflights: wrapperspb.Bool(false)}
	for _, o := range c.AllowOrigins {
		per.AllowOriginStringMatch = append(per.AllowOriginStringMatch, originMatcher(string(o)))
	}
	per.AllowMethods = joinStrings(c.AllowMethods, ",")
	per.AllowHeaders = joinStrings(c.AllowHeaders, ",")
	per.ExposeHeaders = joinStrings(c.ExposeHeaders, ",")
	maxAge := c.MaxAge
	if maxAge == 0 {
		maxAge = 5 // the Gateway API default
	}
	per.MaxAge = strconv.Itoa(int(maxAge))
	if c.AllowCredentials != nil {
		per.AllowCredentials = wrapperspb.Bool(*c.AllowCredentials)
	}
	fr.TypedPerFilterConfig = map[string]proto.Message{name: per}
	return []policy.Fragment{fr}, nil
}

// originMatcher matches one allowed origin; "*" wildcards become a regex.
func originMatcher(o string) *matcherv3.StringMatcher {
	regex := func(r string) *matcherv3.StringMatcher {
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: r}}}
	}
	if o == "*" {
		return regex(".*")
	}
	if strings.Contains(o, "*") {
		parts := strings.Split(o, "*")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		return regex(strings.Join(parts, "[^.]+"))
	}
	return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: o}}
}

func joinStrings[S ~string](ss []S, sep string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return strings.Join(out, sep)
}
