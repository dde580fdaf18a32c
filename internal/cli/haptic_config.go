package cli

import (
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy/haptic"
)

// readHAPTIC re-reads the haptic: section of the config file keeping the
// case of its keys (viper lower-cases them, and trusted WAF policy names
// are case-sensitive), then checks it: an unknown switch or a value of the
// wrong type is a config error, never ignored.
func (c *Config) readHAPTIC() error {
	if c.HAPTIC != nil {
		m, err := c.section("haptic")
		if err != nil {
			return err
		}
		if m != nil {
			c.HAPTIC = m
		}
	}
	_, err := haptic.ParseSettings(c.PolicyConfig())
	return err
}

// hapticDeploymentDiags are the findings about the haptic: settings
// themselves (trusted catalogs, defaultPolicy), positioned in the config
// file.
func hapticDeploymentDiags(c *Compiled) []diag.Diagnostic {
	if c.Config == nil || c.Config.HAPTIC == nil {
		return nil
	}
	return haptic.CheckDeployment(c.Model, c.Config.PolicyConfig(), (&Versions{}).configPos(c.Config))
}
