package topology

import (
	"github.com/gwpol/gwpol/internal/diag"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// RuleProblem is a route rule its controller cannot translate as written
// (a family's RuleCheck finds it): the controller either replaces the
// rule with a direct response (Dropped false) or leaves it out (Dropped
// true). Status reports it on the route (the controller's
// ProgrammedCondition) and lint at the rule (LintRuleNotProgrammed).
type RuleProblem struct {
	Dropped bool
	Message string
}

// RuleCheck is a controller family's check of one route rule before any
// policy applies (policy.Family.CheckRule, passed in as
// Options.RuleChecks): the problem of a rule the controller cannot
// translate as written, nil when it can. It may also record what the
// family reads off the route for that rule (Rule.RedirectStatus).
type RuleCheck func(r *Route, rule *Rule) *RuleProblem

// checkRule runs the families' checks on a rule in order and keeps the
// first problem (Rule.Problem), with its finding at the rule (ok false
// when the rule has none). A delegating rule is judged where it is
// served, on its children's entries (served.go): it emits no route of
// its own.
func (g *Graph) checkRule(r *Route, rule *Rule) (found diag.Diagnostic, ok bool) {
	if rule.IsDelegating() {
		return diag.Diagnostic{}, false
	}
	for _, check := range g.ruleChecks {
		if p := check(r, rule); p != nil {
			rule.Problem = p
			return notProgrammed(r, rule.Rule, p), true
		}
	}
	return diag.Diagnostic{}, false
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
