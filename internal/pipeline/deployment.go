package pipeline

import (
	"github.com/gwpol/gwpol/internal/diag"
)

// deploymentDiags are the families' findings about their deployment
// settings themselves (policy.Family.CheckDeployment), positioned in the
// config file.
func (c *Compiled) deploymentDiags() []diag.Diagnostic {
	if c.Config == nil {
		return nil
	}
	var out []diag.Diagnostic
	for _, f := range c.Result.Registry.Families() {
		if f.CheckDeployment != nil {
			out = append(out, f.CheckDeployment(c.Model, c.Config.PolicyConfig(), (&Versions{}).ConfigPos(c.Config))...)
		}
	}
	return out
}
