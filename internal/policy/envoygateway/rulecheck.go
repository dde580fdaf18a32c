package envoygateway

import (
	"fmt"
	"strings"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Outcomes of a rule whose configuration Envoy refuses though Envoy
// Gateway accepts the rule (no route condition says so).
const (
	// outcomeUnpublished: the xDS translator's last step validates every
	// resource it built (xds/translator/translator.go: Translate,
	// tCtx.ValidateAll) and the xDS runner publishes no snapshot when
	// that fails (xds/runner/runner.go: "skipped publishing xds
	// resources").
	outcomeUnpublished = "Envoy Gateway accepts the rule (no condition says so) but the xDS it writes for it fails its own validation, so it publishes no new config for the Gateway and Envoy keeps the last one it accepted; gwpol leaves the rule out of the config it renders"
	// outcomeRefused: the xDS passes validation, and Envoy refuses the
	// route configuration when it loads it.
	outcomeRefused = "Envoy Gateway accepts the rule (no condition says so) and writes the value as it is, and Envoy refuses the route configuration that holds it, keeping the last one it accepted; gwpol leaves the rule out of the config it renders"
)

// checkRule is Envoy Gateway's check of a route rule before any policy
// applies (policy.Family.CheckRule): values its translator accepts — its
// route validation (validateRoute) refuses none of them — but writes into
// xDS Envoy refuses. An empty RegularExpression becomes a RegexMatcher
// without a regex (gatewayapi/route.go: regex.Validate compiles "", and
// the match is written as a SafeRegex), a NUL, CR or LF in a header name
// to remove (filters.go: processRequestHeaderModifierFilter looks only at
// an empty name, a '/' or ':' and Host) or in a rewrite or redirect path
// (processURLRewriteFilter, processRedirectFilter: no character check)
// reaches a field Envoy's validation bounds, and a header value that is
// no Envoy substitution format is written as it is
// (xds/translator/route.go: buildXdsAddedHeaders) for Envoy to refuse.
// Such a rule is left out (Dropped) with an error finding naming the
// field, so that render writes only config Envoy accepts. What Envoy
// Gateway refuses itself (an empty name to add, set or remove, a CR or LF
// in a header value, a regular expression RE2 does not compile) is its
// route validation's, which drops the rule with a condition.
// So a rule that validation refuses has no problem here: nothing of it is
// written. A redirect status annotation of another controller is not read.
func checkRule(_ *topology.Route, rule *topology.Rule, _ policy.Config) *topology.RuleProblem {
	var found *topology.RuleProblem
	filters := writtenFilters(rule)
	if found = emptyRegexProblem(rule); found == nil {
		for _, f := range filters {
			if found = filterValueProblem(f); found != nil {
				break
			}
		}
	}
	if found == nil || validationRefuses(rule, filters) {
		return nil
	}
	return found
}

// validationRefuses reports whether Envoy Gateway's route validation
// refuses the rule's matches or one of its filters' values (matchProblem;
// headerFilterProblem, redirectProblem, rewriteProblem by the filter's
// type), so that none of it reaches xDS.
func validationRefuses(rule *topology.Rule, filters []routeFilter) bool {
	if matchProblem(rule.Rule) != nil {
		return true
	}
	for _, f := range filters {
		var p *routeProblem
		switch f.Type {
		case string(gwv1.HTTPRouteFilterRequestHeaderModifier):
			p = headerFilterProblem("RequestHeaderModifier", f.RequestHeaders, f.path)
		case string(gwv1.HTTPRouteFilterResponseHeaderModifier):
			p = headerFilterProblem("ResponseHeaderModifier", f.ResponseHeaders, f.path)
		case string(gwv1.HTTPRouteFilterRequestRedirect):
			p = redirectProblem(f.Redirect, f.path)
		case string(gwv1.HTTPRouteFilterURLRewrite):
			p = rewriteProblem(f.Rewrite, f.path)
		}
		if p != nil {
			return true
		}
	}
	return false
}

// emptyRegexProblem: Envoy's RegexMatcher needs a regex (min_len 1).
func emptyRegexProblem(rule *topology.Rule) *topology.RuleProblem {
	empty := func(field string) *topology.RuleProblem {
		return &topology.RuleProblem{Dropped: true, Field: field, Outcome: outcomeUnpublished,
			Message: "the RegularExpression value at " + field + " is empty, and Envoy's regex matcher needs one (RegexMatcher.regex)"}
	}
	switch {
	case rule.HTTP != nil:
		for i, m := range rule.HTTP.Matches {
			at := fmt.Sprintf("%s.matches[%d]", rule.Path, i)
			if m.Path != nil && m.Path.Type != nil && *m.Path.Type == gwv1.PathMatchRegularExpression && m.Path.Value != nil && *m.Path.Value == "" {
				return empty(at + ".path.value")
			}
			for j, h := range m.Headers {
				if h.Type != nil && *h.Type == gwv1.HeaderMatchRegularExpression && h.Value == "" {
					return empty(fmt.Sprintf("%s.headers[%d].value", at, j))
				}
			}
			for j, q := range m.QueryParams {
				if q.Type != nil && *q.Type == gwv1.QueryParamMatchRegularExpression && q.Value == "" {
					return empty(fmt.Sprintf("%s.queryParams[%d].value", at, j))
				}
			}
		}
	case rule.GRPC != nil:
		for i, m := range rule.GRPC.Matches {
			for j, h := range m.Headers {
				if h.Type != nil && *h.Type == gwv1.GRPCHeaderMatchRegularExpression && h.Value == "" {
					return empty(fmt.Sprintf("%s.matches[%d].headers[%d].value", rule.Path, i, j))
				}
			}
		}
	}
	return nil
}

// writtenFilters are the filters of a rule whose values Envoy Gateway
// writes into the route: the rule's own, then each backendRef's.
func writtenFilters(rule *topology.Rule) []routeFilter {
	out := ruleFilters(rule.Rule)
	switch {
	case rule.HTTP != nil:
		for j, b := range rule.HTTP.BackendRefs {
			out = append(out, httpFilters(b.Filters, fmt.Sprintf("%s.backendRefs[%d]", rule.Path, j))...)
		}
	case rule.GRPC != nil:
		for j, b := range rule.GRPC.BackendRefs {
			out = append(out, grpcFilters(b.Filters, fmt.Sprintf("%s.backendRefs[%d]", rule.Path, j))...)
		}
	}
	return out
}

// controlChars are what Envoy refuses in a header name to remove
// (HTTP_HEADER_NAME, not strict), a path_redirect, a prefix_rewrite and a
// regex rewrite's substitution (HTTP_HEADER_VALUE, not strict).
const controlChars = "\x00\r\n"

// filterValueProblem is the first value of one filter that Envoy Gateway
// writes and Envoy refuses.
func filterValueProblem(f routeFilter) *topology.RuleProblem {
	for _, hm := range []struct {
		field string
		f     *gwv1.HTTPHeaderFilter
	}{{"requestHeaderModifier", f.RequestHeaders}, {"responseHeaderModifier", f.ResponseHeaders}} {
		if hm.f == nil {
			continue
		}
		at := f.path + "." + hm.field
		for i, name := range hm.f.Remove {
			if name != "" && strings.ContainsAny(name, controlChars) {
				return &topology.RuleProblem{Dropped: true, Field: fmt.Sprintf("%s.remove[%d]", at, i), Outcome: outcomeUnpublished,
					Message: fmt.Sprintf("the header name %q to remove contains a NUL, CR or LF, which Envoy refuses (headers_to_remove)", name)}
			}
		}
		for _, list := range []struct {
			field string
			hs    []gwv1.HTTPHeader
		}{{"set", hm.f.Set}, {"add", hm.f.Add}} {
			for i, h := range list.hs {
				if pos, ok := policy.EnvoyFormatOK(h.Value); !ok {
					return &topology.RuleProblem{Dropped: true, Field: fmt.Sprintf("%s.%s[%d].value", at, list.field, i), Outcome: outcomeRefused,
						Message: fmt.Sprintf("the value %q of header %s is not an Envoy substitution format: the %% at position %d starts no command (write %%%% for a literal %%)", h.Value, h.Name, pos)}
				}
			}
		}
	}
	var pm *gwv1.HTTPPathModifier
	at := f.path
	switch {
	case f.Redirect != nil && f.Redirect.Path != nil:
		pm, at = f.Redirect.Path, at+".requestRedirect.path"
	case f.Rewrite != nil && f.Rewrite.Path != nil:
		pm, at = f.Rewrite.Path, at+".urlRewrite.path"
	}
	if pm == nil {
		return nil
	}
	for _, v := range []struct {
		field string
		value *string
	}{{"replaceFullPath", pm.ReplaceFullPath}, {"replacePrefixMatch", pm.ReplacePrefixMatch}} {
		if v.value != nil && strings.ContainsAny(*v.value, controlChars) {
			return &topology.RuleProblem{Dropped: true, Field: at + "." + v.field, Outcome: outcomeUnpublished,
				Message: fmt.Sprintf("the path %q contains a NUL, CR or LF, which Envoy refuses in a redirect or rewrite path", *v.value)}
		}
	}
	return nil
}
