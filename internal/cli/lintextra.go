package cli

import "github.com/gwpol/gwpol/internal/diag"

// lintExtra gathers findings that other views make (render's capability
// check, GWP404) for the lint report.
var lintExtra = func(c *Compiled, target string) ([]diag.Diagnostic, error) { return nil, nil }
