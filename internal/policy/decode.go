package policy

import (
	"errors"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
)

// DecodeObject decodes the policy's object into v (a pointer to the kind's
// typed object), reporting every problem of the document in one run, each
// at its own position:
//   - a value that does not fit its field (maxTokens: five) is GWP401, and
//     the policy is Invalid: the API server would reject the object;
//   - a key the kind does not define (rateLimt) is GWP102 with the nearest
//     defined key; an error, as kubectl's strict field validation rejects
//     the object, unless config strictFields is false.
//
// It reports whether v was decoded without type errors.
func (p *Policy) DecodeObject(v any, cfg Config) bool {
	unknown, errs := p.Obj.DecodeAll(v)
	p.ReportDecodeErrors(errs)
	p.Findings = append(p.Findings, UnknownFieldFindings(p.Obj, unknown, cfg.LenientFields)...)
	return len(errs) == 0
}

// ReportDecodeErrors makes each decode error an Invalid finding at the
// value that did not fit.
func (p *Policy) ReportDecodeErrors(errs []error) {
	for _, err := range errs {
		p.Invalid = append(p.Invalid, decodeError(p, err))
	}
}

func decodeError(p *Policy, err error) diag.Diagnostic {
	d := diag.Diagnostic{Code: LintPolicyInvalid.Code, Severity: diag.Error, Object: p.Ref(), Field: "spec", Pos: p.Obj.FieldPos("spec"), Message: err.Error()}
	var pe *manifest.PosError
	if errors.As(err, &pe) && pe.Pos.Line > 0 {
		d.Pos, d.Message = pe.Pos, pe.Msg
		if pe.Field != "" {
			d.Field = pe.Field
		}
	}
	return d
}

// UnknownFieldFindings are model.UnknownFieldFindings, for policy kinds.
func UnknownFieldFindings(o *manifest.Object, unknown []manifest.UnknownField, lenient bool) []diag.Diagnostic {
	return model.UnknownFieldFindings(o, unknown, lenient)
}
