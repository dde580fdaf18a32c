package policyversion

import (
	"github.com/gwpol/gwpol/internal/diag"
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
