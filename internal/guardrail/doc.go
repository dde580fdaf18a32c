// Package guardrail checks the platform team's intent, written as config
// (guardrails:), against gwpol's IR: which namespaces may set a field
// (setOnlyBy), bounds on a field's value (max, min, oneOf), and fields
// every route rule's effective config must have (require), optionally
// scoped to Gateways or route namespaces.
//
// It is a view stage over the merge IR (after merge, beside lint): it reads each target's effective
// fields (merge.Result.EffectiveOn: owners, contributors, values, what a
// more specific level shadows) and never recomputes precedence or a
// verdict. Field names are the keys explain shows (prefixes allowed), and
// a sub-field of a key by the JSON names of its value (timeouts.request).
// Its kind-specific knowledge comes through the policy hooks Disabler (a
// value that switches a feature off) and ValueTyper (the names of a
// value's sub-fields).
//
// lint reports its findings under its rules (LintRules: GWP601–GWP604),
// explain shows them per field, and diff those a change introduces.
// guardrail imports merge, policy, topology, model and diag, never a
// view, a policy kind package, pipeline or cli.
package guardrail
