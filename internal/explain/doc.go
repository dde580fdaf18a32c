// Package explain answers "which policy owns this field here, and why":
// for a listener or a route rule it lists every policy field in effect with
// its owner, level, merge strategy, contributors, losers and what it
// shadows — read from the merge IR, never recomputed. For a Service port
// or a backend object (backend.go) it lists every setting of the cluster
// built for it: the owning policy, the later kind that replaces it, or the
// object's own spec (policy.BackendDescriber), or the default. Policy answers the
// same from one policy's side: every target it reached and how it fared
// there.
//
// It also resolves what a user names: ParseTarget reads a TARGET
// (KIND/NAMESPACE/NAME[/SECTION]), Explain finds it in the graph (a
// not-found error names the nearest candidate), LookupPolicy finds a
// POLICYKIND/NAMESPACE/NAME, and CheckField refuses an unknown --field.
// Notes adds to a rule's view what kinds say through their hooks: runtime
// identities (policy.Identifier) and notes of their own
// (policy.RuleNoter, e.g. a policy chain its controller runs).
//
// With Options.Guardrails it shows, per field and target, the platform's
// guardrails that apply and whether they hold (guardrail.Check, which
// reads the same IR).
//
// explain is a view: it imports guardrail, merge, attach, policy, topology,
// model and diag (the stages before it), never a policy kind package,
// status, render, lint, pipeline or cli. Its tests compile inputs through
// internal/families.
package explain
