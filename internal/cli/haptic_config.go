package cli

// readHAPTIC re-reads the haptic: section of the config file keeping the
// case of its keys (viper lower-cases them, and trusted WAF policy names
// are case-sensitive), then checks it: an unknown switch or a value of the
// wrong type is a config error, never ignored.
func readHAPTIC(c *Config) error {
	if c.HAPTIC != nil {
		m, err := section(c, "haptic")
		if err != nil {
			return err
		}
		if m != nil {
			c.HAPTIC = m
		}
	}
	return c.CheckHAPTIC()
}
