package envoygateway

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	corsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// corsFilter is the name of Envoy's CORS filter, which Envoy Gateway
// adds once per listener and configures per route.
const corsFilter = "envoy.filters.http.cors"

// cors is SecurityPolicy's spec.cors.
type cors struct {
	AllowOrigins     []string `json:"allowOrigins"`
	AllowMethods     []string `json:"allowMethods"`
	AllowHeaders     []string `json:"allowHeaders"`
	ExposeHeaders    []string `json:"exposeHeaders"`
	MaxAge           *string  `json:"maxAge"`
	AllowCredentials *bool    `json:"allowCredentials"`
}

// renderCORS is a CorsPolicy on the route, as Envoy Gateway writes it:
// lists joined with ", ", max age in seconds, allowCredentials and
// forwardNotMatchingPreflights always written.
func renderCORS(v json.RawMessage, _ policyName) ([]policy.Fragment, error) {
	var c cors
	if err := json.Unmarshal(v, &c); err != nil {
		return nil, fmt.Errorf("cors: %w", err)
	}
	per := &corsv3.CorsPolicy{
		AllowMethods:                 strings.Join(c.AllowMethods, ", "),
		AllowHeaders:                 strings.Join(c.AllowHeaders, ", "),
		ExposeHeaders:                strings.Join(c.ExposeHeaders, ", "),
		AllowCredentials:             wrapperspb.Bool(c.AllowCredentials != nil && *c.AllowCredentials),
		ForwardNotMatchingPreflights: wrapperspb.Bool(false),
	}
	for _, o := range c.AllowOrigins {
		per.AllowOriginStringMatch = append(per.AllowOriginStringMatch, originMatcher(o))
	}
	if c.MaxAge != nil {
		d, err := time.ParseDuration(*c.MaxAge)
		if err != nil {
			return nil, fmt.Errorf("cors.maxAge: %w", err)
		}
		per.MaxAge = strconv.Itoa(int(d.Seconds()))
	}
	return []policy.Fragment{{
		Capability:           "cors",
		Filter:               &policy.HTTPFilter{Name: corsFilter, Order: orderCORS, Typed: &corsv3.Cors{}},
		TypedPerFilterConfig: map[string]proto.Message{corsFilter: per},
	}}, nil
}

// originMatcher matches one allowed origin: a wildcard origin ("*",
// "https://*", "http://*.example.com") becomes a regular expression with
// the dots quoted and each "*" any run of characters; any other origin
// is matched exactly.
func originMatcher(o string) *matcherv3.StringMatcher {
	if !strings.Contains(o, "*") {
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: o}}
	}
	parts := strings.Split(o, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_SafeRegex{
		SafeRegex: &matcherv3.RegexMatcher{Regex: strings.Join(parts, ".*")}}}
}
