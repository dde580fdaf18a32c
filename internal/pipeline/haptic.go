package pipeline

import (
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy/haptic"
)

// hapticDeploymentDiags are the findings about the haptic: settings
// themselves (trusted catalogs, defaultPolicy), positioned in the config
// file.
func hapticDeploymentDiags(c *Compiled) []diag.Diagnostic {
	if c.Config == nil || c.Config.HAPTIC == nil {
		return nil
	}
	return haptic.CheckDeployment(c.Model, c.Config.PolicyConfig(), (&Versions{}).ConfigPos(c.Config))
}
