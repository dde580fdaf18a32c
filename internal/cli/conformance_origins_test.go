package cli

import "testing"

// checkOrigins compares merge metadata; filled in with render.
func checkOrigins(t *testing.T, c *Compiled, exp expectedCase) {}
