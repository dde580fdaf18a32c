// Package lint turns gwpol's IR and the stages' findings into diagnostics
// with stable codes. Its registry (Rules) is explicit: lint's own rules
// (rules.go: a diag.Rule value and the function that finds it in the IR,
// one file per family) and the rules every stage and policy kind declares
// for the findings it makes (their LintRules; a kind's through the policy
// registry). Codes are never reused.
//
// lint is a view: it imports guardrail, status, merge, attach, policy,
// topology, model, schema, manifest, policyversion, parallel and diag,
// never render, explain or pipeline; the CLI formats its report.
package lint
