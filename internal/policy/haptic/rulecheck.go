package haptic

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// headerToken is the header name HAPTIC's route filter maps apply
// (43-maps-route-filters.yaml: PublishGatewayRouteFilterMaps, nameOk): a
// narrower set than the Gateway API's, without '#', '%', '\”, '`' or
// '|', and not empty.
var headerToken = regexp.MustCompile(`^[A-Za-z0-9!$&*+.^_~-]+$`)

// lineBreak are what HAPTIC's ConfigInjectionKind(value, "line") refuses
// in a header value or a rewrite or redirect path: its definition is not
// stored at any revision gwpol could read; its callers' messages name a
// header break and control characters, and gwpol takes NUL, CR and LF,
// which are also what Envoy refuses.
const lineBreak = "\x00\r\n"

// checkRule is HAPTIC's check of a route rule before any policy applies
// (policy.Family.CheckRule), from its gateway library's templates. A
// header operation whose name is no HTTP token (an empty name to remove
// among them) or whose value holds a line break is not applied — HAPTIC
// warns and serves the rest of the rule (43-maps-route-filters.yaml:
// publishModifiers) — so the problem only skips it (RuleProblem.Skips).
// HAPTIC writes a header value as a literal (a map entry it URL-decodes),
// so a % is no Envoy substitution command; and it reads no redirect status
// annotation but the filter's own code. What it does with an empty
// RegularExpression path (written into its regex path map as an empty
// pattern) is not readable from the templates, and a RegularExpression
// path with whitespace or a control character, or a rewrite or redirect
// path with a line break, is not applied (the match, the filter) while
// the rest of the route is: gwpol cannot render a rule without one of its
// matches or its redirect, so it leaves such a rule out, with the
// finding saying what HAPTIC does.
func checkRule(_ *topology.Route, rule *topology.Rule, _ policy.Config) *topology.RuleProblem {
	if p := matchProblem(rule); p != nil {
		return p
	}
	if rule.HTTP != nil {
		for i, f := range rule.HTTP.Filters {
			if p := pathModifierProblem(f, fmt.Sprintf("%s.filters[%d]", rule.Path, i)); p != nil {
				return p
			}
		}
		for j, b := range rule.HTTP.BackendRefs {
			for i, f := range b.Filters {
				if p := pathModifierProblem(f, fmt.Sprintf("%s.backendRefs[%d].filters[%d]", rule.Path, j, i)); p != nil {
					return p
				}
			}
		}
	}
	return headerSkips(rule)
}

// outcomeLeftOut is what gwpol does with a rule HAPTIC serves without a
// match or a filter.
const outcomeLeftOut = "gwpol cannot render the rule without it, so it leaves the rule out"

// matchProblem: an empty RegularExpression value, and a RegularExpression
// path with whitespace or a control character (41-maps-path.yaml:
// GeneratePathRegexMap, "the route is not applied" for that match).
func matchProblem(rule *topology.Rule) *topology.RuleProblem {
	var ms []gwv1.HTTPRouteMatch
	if rule.HTTP != nil {
		ms = rule.HTTP.Matches
	}
	for i, m := range ms {
		at := fmt.Sprintf("%s.matches[%d]", rule.Path, i)
		if m.Path != nil && m.Path.Type != nil && *m.Path.Type == gwv1.PathMatchRegularExpression && m.Path.Value != nil {
			switch v := *m.Path.Value; {
			case v == "":
				return &topology.RuleProblem{Dropped: true, Field: at + ".path.value",
					Message: "an empty RegularExpression path, which HAPTIC writes into its regex path map as an empty pattern (what HAProxy then matches is not readable from its templates) and Envoy's matcher refuses",
					Outcome: "gwpol leaves the rule out"}
			case strings.ContainsFunc(v, func(r rune) bool { return r == ' ' || r < 0x20 || r == 0x7f }):
				return &topology.RuleProblem{Dropped: true, Field: at + ".path.value",
					Message: fmt.Sprintf("the RegularExpression path %q holds whitespace or a control character, which HAPTIC cannot write to its routing map: it does not apply the match (a warning), serving the route's other matches", v),
					Outcome: outcomeLeftOut}
			}
		}
		for j, h := range m.Headers {
			if h.Type != nil && *h.Type == gwv1.HeaderMatchRegularExpression && h.Value == "" {
				return emptyValue(fmt.Sprintf("%s.headers[%d].value", at, j))
			}
		}
		for j, q := range m.QueryParams {
			if q.Type != nil && *q.Type == gwv1.QueryParamMatchRegularExpression && q.Value == "" {
				return emptyValue(fmt.Sprintf("%s.queryParams[%d].value", at, j))
			}
		}
	}
	if rule.GRPC != nil {
		for i, m := range rule.GRPC.Matches {
			for j, h := range m.Headers {
				if h.Type != nil && *h.Type == gwv1.GRPCHeaderMatchRegularExpression && h.Value == "" {
					return emptyValue(fmt.Sprintf("%s.matches[%d].headers[%d].value", rule.Path, i, j))
				}
			}
		}
	}
	return nil
}

// emptyValue: a header or query parameter match value the Gateway API
// schema bounds to one character, so no such route reaches HAPTIC.
func emptyValue(field string) *topology.RuleProblem {
	return &topology.RuleProblem{Dropped: true, Field: field, Outcome: "gwpol leaves the rule out",
		Message: "an empty RegularExpression value, which the Gateway API schema refuses (at least one character) and Envoy's matcher too"}
}

// pathModifierProblem: a rewrite or redirect path with a line break is
// not applied (43-maps-route-filters.yaml: pathFields, "cntrl";
// publishRedirect, publishRewrite).
func pathModifierProblem(f gwv1.HTTPRouteFilter, at string) *topology.RuleProblem {
	var pm *gwv1.HTTPPathModifier
	what := ""
	switch {
	case f.Type == gwv1.HTTPRouteFilterRequestRedirect && f.RequestRedirect != nil:
		pm, at, what = f.RequestRedirect.Path, at+".requestRedirect.path", "redirect"
	case f.Type == gwv1.HTTPRouteFilterURLRewrite && f.URLRewrite != nil:
		pm, at, what = f.URLRewrite.Path, at+".urlRewrite.path", "rewrite"
	}
	if pm == nil {
		return nil
	}
	for _, v := range []struct {
		field string
		value *string
	}{{"replaceFullPath", pm.ReplaceFullPath}, {"replacePrefixMatch", pm.ReplacePrefixMatch}} {
		if v.value != nil && strings.ContainsAny(*v.value, lineBreak) {
			return &topology.RuleProblem{Dropped: true, Field: at + "." + v.field, Outcome: outcomeLeftOut,
				Message: fmt.Sprintf("the %s path %q holds a line break: HAPTIC does not apply the %s (a warning) and serves the rule without it", what, *v.value, what)}
		}
	}
	return nil
}

// headerSkips are the header operations of the rule's and its
// backendRefs' header modifiers HAPTIC does not apply (publishModifiers):
// a name that is no HTTP token, a value with a line break. Nil when it
// applies them all.
func headerSkips(rule *topology.Rule) *topology.RuleProblem {
	var skips []topology.HeaderSkip
	var why []string
	field := ""
	judge := func(h *gwv1.HTTPHeaderFilter, at string) {
		if h == nil {
			return
		}
		skip := func(op string, i int, reason string) {
			skips = append(skips, topology.HeaderSkip{Filter: h, Op: op, Index: i})
			why = append(why, reason)
			if field == "" {
				field = fmt.Sprintf("%s.%s[%d]", at, op, i)
			}
		}
		for _, list := range []struct {
			op string
			hs []gwv1.HTTPHeader
		}{{"set", h.Set}, {"add", h.Add}} {
			for i, hd := range list.hs {
				switch {
				case !headerToken.MatchString(string(hd.Name)):
					skip(list.op, i, fmt.Sprintf("%s %q, not an HTTP token", list.op, hd.Name))
				case strings.ContainsAny(hd.Value, lineBreak):
					skip(list.op, i, fmt.Sprintf("%s %s, a value with a line break", list.op, hd.Name))
				}
			}
		}
		for i, name := range h.Remove {
			if !headerToken.MatchString(name) {
				skip("remove", i, fmt.Sprintf("remove %q, not an HTTP token", name))
			}
		}
	}
	each := func(typ string, req, resp *gwv1.HTTPHeaderFilter, at string) {
		switch typ {
		case string(gwv1.HTTPRouteFilterRequestHeaderModifier):
			judge(req, at+".requestHeaderModifier")
		case string(gwv1.HTTPRouteFilterResponseHeaderModifier):
			judge(resp, at+".responseHeaderModifier")
		}
	}
	switch {
	case rule.HTTP != nil:
		for i, f := range rule.HTTP.Filters {
			each(string(f.Type), f.RequestHeaderModifier, f.ResponseHeaderModifier, fmt.Sprintf("%s.filters[%d]", rule.Path, i))
		}
		for j, b := range rule.HTTP.BackendRefs {
			for i, f := range b.Filters {
				each(string(f.Type), f.RequestHeaderModifier, f.ResponseHeaderModifier, fmt.Sprintf("%s.backendRefs[%d].filters[%d]", rule.Path, j, i))
			}
		}
	case rule.GRPC != nil:
		for i, f := range rule.GRPC.Filters {
			each(string(f.Type), f.RequestHeaderModifier, f.ResponseHeaderModifier, fmt.Sprintf("%s.filters[%d]", rule.Path, i))
		}
		for j, b := range rule.GRPC.BackendRefs {
			for i, f := range b.Filters {
				each(string(f.Type), f.RequestHeaderModifier, f.ResponseHeaderModifier, fmt.Sprintf("%s.backendRefs[%d].filters[%d]", rule.Path, j, i))
			}
		}
	}
	if len(skips) == 0 {
		return nil
	}
	return &topology.RuleProblem{Skips: skips, Field: field,
		Message: "HAPTIC does not apply " + strings.Join(why, "; "),
		Outcome: "it serves the rest of the rule (a warning event, no condition)"}
}
