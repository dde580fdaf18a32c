package explain

import (
	"github.com/gwpol/gwpol/internal/guardrail"
	"github.com/gwpol/gwpol/internal/merge"
)

// Guard is one guardrail (config guardrails:) as it stands on a field or
// a target: whether it holds there, and why.
type Guard struct {
	Name  string `json:"name"`
	Code  string `json:"code"`
	Holds bool   `json:"holds"`
	// Field is the field the guardrail names (a sub-field of the row's,
	// or a required one).
	Field  string `json:"field"`
	Detail string `json:"detail"`
}

// guards evaluates opt.Guardrails at t, whose effective fields are es,
// and puts each finding on the row of its field, or on the target when
// it is about no field in effect (a required field that is missing, one
// a more specific policy hides). It reads what the merge decided through
// guardrail.Check, which reads the IR.
func guards(r *merge.Result, gt guardrail.Target, es []merge.EffectiveField, t *Target, opt Options) {
	if len(opt.Guardrails) == 0 {
		return
	}
	for _, f := range guardrail.Check(r, opt.Guardrails, gt, es) {
		g := Guard{Name: f.Rule.Name, Code: f.Code(), Holds: f.Holds, Field: f.Field, Detail: f.Detail}
		if f.Key == "" {
			if MatchField(f.Field, opt.Field) || MatchField(opt.Field, f.Field) {
				t.Guardrails = append(t.Guardrails, g)
			}
			continue
		}
		gk := f.Kind.GroupKind()
		for i := range t.Fields {
			if t.Fields[i].Field == f.Key && t.Fields[i].PolicyKind == gk.Group+"/"+gk.Kind {
				t.Fields[i].Guardrails = append(t.Fields[i].Guardrails, g)
				break
			}
		}
	}
}
