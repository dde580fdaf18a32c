package topology

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// RuleProblem is a route rule kgateway cannot translate as written: it
// either replaces the rule with a direct response (Dropped false) or, for a
// matcher its strict validation rejects, leaves the rule out (Dropped
// true). Status reports it on the route (kgateway.dev/Programmed).
type RuleProblem struct {
	Dropped bool
	Message string
}

// checkRule finds a rule's problem: a path rewrite Envoy would refuse
// (replaced in every validation mode) or, under Strict validation, a
// regular expression RE2 does not compile (dropped; Standard validation
// passes it through). Header values Envoy's substitution format refuses
// are headerFormatProblem's.
func checkRule(rule *Rule, strict bool) *RuleProblem {
	if rule.GRPC != nil {
		for _, f := range rule.GRPC.Filters {
			if why := headerValuesProblem(f.RequestHeaderModifier, f.ResponseHeaderModifier); why != "" {
				return &RuleProblem{Message: why}
			}
		}
		return emptyRegex(grpcMatchRegexes(rule.GRPC.Matches))
	}
	h := rule.HTTP
	if h == nil {
		return nil
	}
	var all []string
	for _, m := range h.Matches {
		all = append(all, MatchRegexes(m)...)
	}
	if p := emptyRegex(all); p != nil {
		return p
	}
	for _, f := range h.Filters {
		if why := headerValuesProblem(f.RequestHeaderModifier, f.ResponseHeaderModifier); why != "" {
			return &RuleProblem{Message: why}
		}
		if rd := f.RequestRedirect; rd != nil && rd.Path != nil {
			for _, p := range []*string{rd.Path.ReplacePrefixMatch, rd.Path.ReplaceFullPath} {
				if p == nil {
					continue
				}
				if why := rewriteProblem(*p); why != "" {
					return &RuleProblem{Message: fmt.Sprintf("the redirect path %s is invalid: %s", *p, why)}
				}
			}
		}
		if f.URLRewrite == nil || f.URLRewrite.Path == nil {
			continue
		}
		for _, p := range []*string{f.URLRewrite.Path.ReplacePrefixMatch, f.URLRewrite.Path.ReplaceFullPath} {
			if p == nil {
				continue
			}
			if why := rewriteProblem(*p); why != "" {
				return &RuleProblem{Message: fmt.Sprintf("the rewrite %s is invalid: %s", *p, why)}
			}
		}
	}
	if !strict {
		return nil
	}
	for _, m := range h.Matches {
		for _, re := range MatchRegexes(m) {
			if _, err := regexp.Compile(re); err != nil {
				return &RuleProblem{Dropped: true, Message: "invalid matcher configuration: " + err.Error()}
			}
		}
	}
	return nil
}

// emptyRegex: an empty RegularExpression value leaves the rule out in
// every validation mode. The Gateway API schema allows it, but Envoy's
// refuses a matcher without a regex, so no config can carry the rule.
func emptyRegex(regexes []string) *RuleProblem {
	for _, re := range regexes {
		if re == "" {
			return &RuleProblem{Dropped: true, Message: "invalid matcher configuration: an empty RegularExpression value matches nothing Envoy accepts"}
		}
	}
	return nil
}

// grpcMatchRegexes are a GRPCRoute's RegularExpression header values.
func grpcMatchRegexes(matches []gwv1.GRPCRouteMatch) []string {
	var out []string
	for _, m := range matches {
		for _, h := range m.Headers {
			if h.Type != nil && *h.Type == gwv1.GRPCHeaderMatchRegularExpression {
				out = append(out, h.Value)
			}
		}
	}
	return out
}

// MatchRegexes are a match's RegularExpression values: path, headers and
// query parameters.
func MatchRegexes(m gwv1.HTTPRouteMatch) []string {
	var out []string
	if m.Path != nil && m.Path.Type != nil && *m.Path.Type == gwv1.PathMatchRegularExpression && m.Path.Value != nil {
		out = append(out, *m.Path.Value)
	}
	for _, h := range m.Headers {
		if h.Type != nil && *h.Type == gwv1.HeaderMatchRegularExpression {
			out = append(out, h.Value)
		}
	}
	for _, q := range m.QueryParams {
		if q.Type != nil && *q.Type == gwv1.QueryParamMatchRegularExpression {
			out = append(out, q.Value)
		}
	}
	return out
}

// headerValuesProblem says why a header filter's values cannot be sent,
// "" when they can: the Gateway API schema allows any value, but Envoy
// refuses one with a NUL, CR or LF (a header injection), so the rule
// cannot be translated as written.
func headerValuesProblem(filters ...*gwv1.HTTPHeaderFilter) string {
	for _, f := range filters {
		if f == nil {
			continue
		}
		for _, h := range append(slices.Clip(f.Set), f.Add...) {
			if strings.ContainsAny(h.Value, "\x00\r\n") {
				return fmt.Sprintf("the value of header %s contains a NUL, CR or LF, which Envoy refuses", h.Name)
			}
		}
	}
	return ""
}

// pathChars are the characters of a URI path (RFC 3986 pchar and "/").
var pathChars = regexp.MustCompile(`^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$`)

// rewriteProblem says why a replacement path is unusable, "" when it is
// fine: only path characters, and no empty, "." or ".." segment.
func rewriteProblem(p string) string {
	if !pathChars.MatchString(p) {
		return "it must only contain valid URI path characters"
	}
	for _, bad := range []string{"//", "/./", "/../"} {
		if strings.Contains(p, bad) {
			return fmt.Sprintf("path [%s] cannot contain [%s]", p, bad)
		}
	}
	if strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..") {
		return fmt.Sprintf("path [%s] cannot end with a dot segment", p)
	}
	return ""
}
