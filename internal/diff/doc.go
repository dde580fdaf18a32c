// Package diff compares the effective policy of two compiled manifest sets
// — for every listener and route rule, which policy owns each field, at
// which level, with which value — and the policies' status, for code
// review of a change. It is a view: it reads the merge IR (through
// explain's effective view) and recomputes nothing.
//
// With guardrails (config guardrails:) it also lists the guardrail
// findings the change introduces and those it resolves (guardrail.Evaluate
// on each side).
//
// diff imports explain, guardrail, status, merge and the stages before them.
package diff
