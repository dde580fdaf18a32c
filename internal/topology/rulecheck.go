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
// header value Envoy's substitution format refuses (replaced) or a regular
// expression RE2 does not compile (dropped; Standard validation passes
// both through).
func checkRule(rule *Rule, strict bool) *RuleProblem {
	if rule.GRPC != nil {
		for _, f := range rule.GRPC.Filters {
			if why := headerValuesProblem(f.RequestHeaderModifier, f.ResponseHeaderModifier); why != "" {
				return &RuleProblem{Message: why}
			}
		}
		if strict {
			for _, f := range rule.GRPC.Filters {
				if why := headerFormatProblem(f.RequestHeaderModifier, f.ResponseHeaderModifier); why != "" {
					return &RuleProblem{Message: why}
				}
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
		all = append(all, matchRegexes(m)...)
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
	for _, f := range h.Filters {
		if why := headerFormatProblem(f.RequestHeaderModifier, f.ResponseHeaderModifier); why != "" {
			return &RuleProblem{Message: why}
		}
	}
	for _, m := range h.Matches {
		for _, re := range matchRegexes(m) {
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

// matchRegexes are a match's RegularExpression values: path, headers and
// query parameters.
func matchRegexes(m gwv1.HTTPRouteMatch) []string {
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

// formatCommand is a command of Envoy's substitution format at the start
// of the text: %NAME%, %NAME(args)% or %NAME(args):length%.
var formatCommand = regexp.MustCompile(`^%[A-Z0-9_]+(\([^)]*\))?(:[0-9]+)?%`)

// headerFormatProblem says why a header filter's value is not a valid
// Envoy substitution format, "" when every value is: each % starts a
// command (%REQ(x)%, %START_TIME%…) or is doubled (%% is a literal %).
// kgateway's Strict validation has Envoy load the route, which refuses
// the rule.
func headerFormatProblem(filters ...*gwv1.HTTPHeaderFilter) string {
	for _, f := range filters {
		if f == nil {
			continue
		}
		for _, h := range append(slices.Clip(f.Set), f.Add...) {
			if at := badFormatAt(h.Value); at >= 0 {
				return fmt.Sprintf("the value %q of header %s is not a valid Envoy substitution format: no valid command at position %d (write a literal %% as %%%%)", h.Value, h.Name, at)
			}
		}
	}
	return ""
}

// badFormatAt is the position of the first % that starts no valid
// command, -1 when there is none.
func badFormatAt(v string) int {
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] != '%':
		case strings.HasPrefix(v[i:], "%%"):
			i++
		default:
			m := formatCommand.FindString(v[i:])
			if m == "" {
				return i
			}
			i += len(m) - 1
		}
	}
	return -1
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
