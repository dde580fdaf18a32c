// Package lint turns gwpol's IR and the stages' findings into diagnostics
// with stable codes. Rules are values in an explicit registry (Rules): code,
// name, title, documentation, default severity and a run function; one file
// per rule family. Codes are never reused.
//
// lint is a view: it imports status, merge, attach, policy, model and
// diag, never render, explain or pipeline; the CLI formats its report.
package lint
