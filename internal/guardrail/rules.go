package guardrail

import (
	"time"

	"github.com/gwpol/gwpol/internal/diag"
)

// The lint rules of guardrail findings, one per type of guardrail. A
// finding carries its guardrail's severity (default error).
var (
	LintGuardrailSetOnlyBy = diag.Rule{Code: "GWP601", Name: "guardrail-set-only-by", Severity: diag.Error,
		Title: "guardrail: a field only some namespaces or policies may set is set (or cleared) by another",
		Doc:   "A guardrails entry with setOnlyBy names fields only policies from those namespaces (or those policies) may set. A policy elsewhere whose value of the field is in effect on a route or listener — including a value that switches the feature off, or a more specific policy that replaces the allowed one whole — violates it. Reported at the offending field, naming the guardrail and the platform's message."}
	LintGuardrailBound = diag.Rule{Code: "GWP602", Name: "guardrail-bound", Severity: diag.Error,
		Title: "guardrail: a field's value is above the guardrail's max or below its min",
		Doc:   "A guardrails entry with max and/or min bounds a field's value (a duration such as 60s, or a number) wherever a value of it is in effect; every duration or number under the named field is checked. Reported at the value, naming the bound."}
	LintGuardrailOneOf = diag.Rule{Code: "GWP603", Name: "guardrail-one-of", Severity: diag.Error,
		Title: "guardrail: a field's value is not one the guardrail allows",
		Doc:   "A guardrails entry with oneOf lists the values a field may take wherever a value of it is in effect; every scalar under the named field is checked. Reported at the value, naming the allowed ones."}
	LintGuardrailRequired = diag.Rule{Code: "GWP604", Name: "guardrail-required", Severity: diag.Error,
		Title: "guardrail: a route rule's effective config lacks a field the guardrail requires",
		Doc:   "A guardrails entry with require names fields every route rule in its scope must have in effect, from any level (its own policies, its route's, its listener's or Gateway's). A value that switches the feature off (a route policy clearing the Gateway's) counts as missing. Reported at the route rule."}
)

// LintRules are the guardrail rules, for lint's registry.
func LintRules() []diag.Rule {
	return []diag.Rule{LintGuardrailSetOnlyBy, LintGuardrailBound, LintGuardrailOneOf, LintGuardrailRequired}
}

// Type is what a guardrail checks.
type Type int

// The types of guardrail.
const (
	SetOnlyBy Type = iota + 1
	Bounds
	OneOf
	Require
)

// code is the lint code of a type's findings.
func (t Type) code() string {
	switch t {
	case SetOnlyBy:
		return LintGuardrailSetOnlyBy.Code
	case Bounds:
		return LintGuardrailBound.Code
	case OneOf:
		return LintGuardrailOneOf.Code
	default:
		return LintGuardrailRequired.Code
	}
}

// Rule is one guardrails entry.
type Rule struct {
	Name string
	Type Type
	// Fields are the field names the rule is about (for Require, the
	// fields required), as explain names them, or a sub-field of one.
	Fields []string
	// Namespaces and Policies are setOnlyBy's: policies from these
	// namespaces, or these policies (KIND/NAMESPACE/NAME, KIND
	// case-insensitive, or a policy ID GROUP/KIND/NAMESPACE/NAME), may set
	// the fields.
	Namespaces []string
	Policies   []string
	// Max and Min bound the value (Bounds); nil when not given.
	Max, Min *Bound
	// OneOf lists the values allowed.
	OneOf []string
	// Gateways (NAMESPACE/NAME) and RouteNamespaces narrow where the rule
	// applies; empty: everywhere.
	Gateways        []string
	RouteNamespaces []string
	Severity        diag.Severity
	// Message is the platform team's own words, shown with each finding.
	Message string
}

// Bound is a max or min: a duration or a number.
type Bound struct {
	Text       string
	IsDuration bool
	Duration   time.Duration
	Number     float64
}
