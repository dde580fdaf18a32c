package policyversion

import (
	"github.com/gwpol/gwpol/internal/diag"
)

// The lint codes this package produces. They are stable once released.
const (
	CodeNotMajorOnly   = "GWP501" // reference uses full semver (or a malformed version) where vN is required
	CodeNoDefinition   = "GWP502" // no policy definition for name at that major
	CodeAmbiguous      = "GWP503" // several definitions for one name and major
	CodeEngineDrift    = "GWP504" // engine build and controller definition differ in minor/patch
	CodeEngineMissing  = "GWP505" // engine build lacks the referenced name or major
	CodeParams         = "GWP506" // params fail the definition's JSON Schema
	CodeVersionInvalid = "GWP507" // definition version is not semver
	CodeLatestVersion  = "GWP508" // reference without a version resolved to the latest definition's major
	CodeDeferredParam  = "GWP509" // param resolved at deploy time (valueFrom, template); its value is not checked
)

// Problem is one finding about a policy reference, a definition or the
// engine build, without a position: the caller places it.
type Problem struct {
	Code     string
	Severity diag.Severity
	Message  string
	Hint     string // how to fix it, e.g. "use version: v1"; may be empty
}

// Diagnostic places a problem at a position in an object. The hint, when
// there is one, is appended to the message as "; fix: HINT".
func (p Problem) Diagnostic(obj diag.ObjectRef, field string, pos diag.Position) diag.Diagnostic {
	return diag.Diagnostic{
		Code:     p.Code,
		Severity: p.Severity,
		Message:  p.Text(),
		Object:   obj,
		Field:    field,
		Pos:      pos,
	}
}

// Text is the message with its hint, the form diagnostics carry.
func (p Problem) Text() string {
	if p.Hint == "" {
		return p.Message
	}
	return p.Message + "; fix: " + p.Hint
}

func fileDiag(p Problem, field string, pos diag.Position) diag.Diagnostic {
	return p.Diagnostic(diag.ObjectRef{}, field, pos)
}
