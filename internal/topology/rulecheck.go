package topology

import (
	"slices"

	"github.com/gwpol/gwpol/internal/diag"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// RuleProblem is a route rule one controller cannot translate as written
// (its family's RuleCheck finds it): that controller either replaces the
// rule with a direct response (Dropped false) or leaves it out (Dropped
// true). It holds on that controller's Gateways only (Graph.ProblemOn).
// Status reports it on the route (the controller's ProgrammedCondition)
// and lint at the rule (LintRuleNotProgrammed).
type RuleProblem struct {
	Dropped bool
	Message string
	// Field is the path of the field at fault (spec.rules[0].matches[1]…;
	// "" names the rule).
	Field string
	// Outcome words what the controller does with the rule, in place of
	// the default "replaced by a direct response … (Programmed False)"
	// or "left out…" ("" keeps the default).
	Outcome string
	// Controller is the controllerName of the check that found it
	// (RuleCheck.Controller), which topology sets.
	Controller string
	// Skips are header operations of the rule's (or its backendRefs')
	// header modifiers that the controller does not apply while it serves
	// the rest of the rule. A problem with Skips and Dropped false
	// neither replaces nor drops the rule: ProblemOn does not return it,
	// SkipsOn does, and its finding is a warning.
	Skips []HeaderSkip
}

// HeaderSkip is one header operation a controller does not apply: the
// header modifier that holds it, the list ("set", "add" or "remove") and
// its index there.
type HeaderSkip struct {
	Filter *gwv1.HTTPHeaderFilter
	Op     string
	Index  int
}

// serves reports whether the problem leaves the rule served, without its
// Skips.
func (p *RuleProblem) serves() bool {
	return p != nil && !p.Dropped && len(p.Skips) > 0
}

// Replaces reports whether the problem replaces or drops the rule (every
// problem but one that only skips header operations).
func (p *RuleProblem) Replaces() bool {
	return p != nil && !p.serves()
}

// RuleProblems are a rule's problems, at most one per controller, in the
// order of the checks (Options.RuleChecks).
type RuleProblems []*RuleProblem

// of is the problem ctrl's check found, nil when none.
func (ps RuleProblems) of(ctrl string) *RuleProblem {
	for _, p := range ps {
		if p.Controller == ctrl {
			return p
		}
	}
	return nil
}

// Replace reports whether one of the problems replaces or drops the rule
// (RuleProblem.Replaces), on some controller's Gateways.
func (ps RuleProblems) Replace() bool {
	return slices.ContainsFunc(ps, (*RuleProblem).Replaces)
}

// RuleCheck is one controller's check of one route rule before any policy
// applies (policy.Family.CheckRule, passed in as Options.RuleChecks): the
// problem of a rule that controller cannot translate as written, nil when
// it can. It may also record what the controller reads off the route for
// that rule (Rule.RedirectStatus), which holds on its Gateways only.
type RuleCheck struct {
	// Controller is the controllerName whose Gateways the check judges
	// rules for.
	Controller string
	Check      func(r *Route, rule *Rule) *RuleProblem
}

// checked reports whether controller ctrl has a rule check of its own: on
// its Gateways only its own problems hold.
func (g *Graph) checked(ctrl string) bool {
	return slices.ContainsFunc(g.ruleChecks, func(c RuleCheck) bool { return c.Controller == ctrl })
}

// judge is the controller whose rule check judges rules on gw (nil: the
// fallback controller's Gateways): gw's controller when it has a check of
// its own; else — a controller without one, or a Gateway whose
// GatewayClass is not in the input, which takes every kind — the first
// check's controller, as when only one controller had a check.
func (g *Graph) judge(gw *Gateway) string {
	name, _ := g.Controller(gw, g.fallback)
	if g.checked(name) || len(g.ruleChecks) == 0 {
		return name
	}
	return g.ruleChecks[0].Controller
}

// holds reports whether a problem (or a reading) of controller ctrl's
// check holds where gw is served (judge).
func (g *Graph) holds(ctrl string, gw *Gateway) bool {
	return g.judge(gw) == ctrl
}

// ProblemOn is the problem of ps that holds on gw (nil: the fallback
// controller's): the one the check of the controller judging rules there
// found (judge), when it replaces or drops the rule. Without a graph, the
// first. It is the one reading of a rule's problems for every view that
// judges a rule on a Gateway.
func (g *Graph) ProblemOn(ps RuleProblems, gw *Gateway) *RuleProblem {
	if p := g.heldProblem(ps, gw); p.Replaces() {
		return p
	}
	return nil
}

// SkipsOn are the header operations the controller judging rules on gw
// does not apply, of a rule (or its copy) whose problems are ps, while it
// serves the rest (RuleProblem.Skips).
func (g *Graph) SkipsOn(ps RuleProblems, gw *Gateway) []HeaderSkip {
	if p := g.heldProblem(ps, gw); p.serves() {
		return p.Skips
	}
	return nil
}

// RuleSkipsOn is the problem of the rule's copy served along via (nil:
// the rule as written) that only skips header operations where gw serves
// it (SkipsOn), nil when there is none: what explain says of them.
func (g *Graph) RuleSkipsOn(rule *Rule, via []*Rule, gw *Gateway) *RuleProblem {
	if p := g.heldProblem(rule.ProblemsAlong(via), gw); p.serves() {
		return p
	}
	return nil
}

// heldProblem is the problem of ps of the controller judging rules on gw
// (judge), of any kind; without a graph, the first.
func (g *Graph) heldProblem(ps RuleProblems, gw *Gateway) *RuleProblem {
	if len(ps) == 0 {
		return nil
	}
	if g == nil {
		return ps[0]
	}
	return ps.of(g.judge(gw))
}

// RuleProblemOn is the problem of the rule's copy served along via (nil:
// the rule as written; Rule.ProblemsAlong) that holds on gw (ProblemOn).
func (g *Graph) RuleProblemOn(rule *Rule, via []*Rule, gw *Gateway) *RuleProblem {
	return g.ProblemOn(rule.ProblemsAlong(via), gw)
}

// RedirectStatusOn is the status code that overrides the rule's
// RequestRedirect where gw serves it (Rule.RedirectStatus, read by one
// controller's check off the route), 0 for the filter's own.
func (g *Graph) RedirectStatusOn(rule *Rule, gw *Gateway) int {
	if rule.RedirectStatus == 0 || !g.holds(rule.redirectBy, gw) {
		return 0
	}
	return rule.RedirectStatus
}

// heldOn are the problems of ps that hold on some Gateway the route is
// attached through (the fallback controller's when it names none), each
// once, in check order.
func (g *Graph) heldOn(r *Route, ps RuleProblems) RuleProblems {
	if len(ps) == 0 {
		return nil
	}
	var out RuleProblems
	add := func(gw *Gateway) {
		if p := g.heldProblem(ps, gw); p != nil && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	seen := false
	for _, p := range r.Parents {
		if p.Gateway != nil {
			seen = true
			add(p.Gateway)
		}
	}
	if !seen {
		add(nil)
	}
	slices.SortStableFunc(out, func(a, b *RuleProblem) int { return slices.Index(ps, a) - slices.Index(ps, b) })
	return out
}

// runChecks runs every controller's check on a rule and keeps each one's
// problem, in check order; a check that reads a redirect status off the
// route records it as that controller's (Rule.RedirectStatus).
func (g *Graph) runChecks(r *Route, rule *Rule) RuleProblems {
	var out RuleProblems
	for _, c := range g.ruleChecks {
		before := rule.RedirectStatus
		if p := c.Check(r, rule); p != nil {
			p.Controller = c.Controller
			out = append(out, p)
		}
		if rule.RedirectStatus != before {
			rule.redirectBy = c.Controller
		}
	}
	return out
}

// checkRule runs the controllers' checks on a rule and keeps their
// problems (Rule.Problems), with a finding at the rule for each that holds
// on a Gateway the route is attached through. A delegating rule is judged
// where it is served, on its children's entries (served.go): it emits no
// route of its own.
func (g *Graph) checkRule(r *Route, rule *Rule) (found []diag.Diagnostic) {
	if rule.IsDelegating() {
		return nil
	}
	rule.Problems = g.runChecks(r, rule)
	for _, p := range g.heldOn(r, rule.Problems) {
		found = append(found, notProgrammed(r, rule.Rule, p))
	}
	return found
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

// problemOnRoute is the first of ps that holds on a Gateway the route is
// attached through (heldOn), nil when none does.
func (g *Graph) problemOnRoute(r *Route, ps RuleProblems) *RuleProblem {
	if held := g.heldOn(r, ps); len(held) > 0 {
		return held[0]
	}
	return nil
}
