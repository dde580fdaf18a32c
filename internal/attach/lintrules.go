package attach

import "github.com/gwpol/gwpol/internal/diag"

// The lint rules of the findings attach alone makes. A finding takes its Code from its rule;
// lint's registry lists every rule (lint.Rules).
var (
	LintSectionNotFound = diag.Rule{Code: "GWP202", Name: "section-not-found", Severity: diag.Error,
		Title: "sectionName not found on the target",
		Doc:   "A targetRef's sectionName names no listener (Gateway, ListenerSet) or rule name (routes) of the target."}
	LintTargetOtherController = diag.Rule{Code: "GWP224", Name: "target-other-controller", Severity: diag.Error,
		Title: "policy targets a Gateway of another controller",
		Doc: "A targetRef names a Gateway, a ListenerSet or a listener of a Gateway whose GatewayClass names another controller gwpol emulates than the policy kind's, " +
			"or a route whose Gateways are all such: each controller translates only its own GatewayClasses' Gateways (and their routes) and reads only its own policy kinds, " +
			"so neither applies the policy there. gwpol does not attach it: render leaves it out, and status is what the kind's controller writes for a target it does not have " +
			"(no ancestor there: the target exists, so it is not TargetNotFound either). A selector skips such objects without a finding, as the controller's own query never sees them. " +
			"A Gateway whose class is not in the input, or names a controller no family of gwpol holds, takes every kind."}
)

// LintRules are the rules above, for lint's registry.
func LintRules() []diag.Rule {
	return []diag.Rule{LintSectionNotFound, LintTargetOtherController}
}
