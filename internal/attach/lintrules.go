package attach

import "github.com/gwpol/gwpol/internal/diag"

// The lint rules of the findings attach alone makes. A finding takes its Code from its rule;
// lint's registry lists every rule (lint.Rules).
var (
	LintSectionNotFound = diag.Rule{Code: "GWP202", Name: "section-not-found", Severity: diag.Error,
		Title: "sectionName not found on the target",
		Doc:   "A targetRef's sectionName names no listener (Gateway, ListenerSet) or rule name (routes) of the target."}
)

// LintRules are the rules above, for lint's registry.
func LintRules() []diag.Rule {
	return []diag.Rule{LintSectionNotFound}
}
