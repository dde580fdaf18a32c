package lint

import (
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/guardrail"
)

// guardrailRules are the guardrail package's rules, each run over the
// findings of one evaluation of in.Guardrails.
func guardrailRules() []Rule {
	var out []Rule
	for _, r := range guardrail.LintRules() {
		out = append(out, Rule{r, func(in *Input) []diag.Diagnostic {
			var found []diag.Diagnostic
			for _, d := range in.guardrailFindings() {
				if d.Code == r.Code {
					found = append(found, d)
				}
			}
			return found
		}})
	}
	return out
}

// guardrailFindings evaluates the guardrails once per run.
func (in *Input) guardrailFindings() []diag.Diagnostic {
	if !in.guardrailsDone {
		in.guardrailsDone = true
		if in.Result != nil {
			in.guardrails = guardrail.Evaluate(in.Result, in.Guardrails)
		}
	}
	return in.guardrails
}
