// Package diag holds what every stage of gwpol reports with: source
// positions, diagnostics with stable codes, and the closed set of error kinds
// the CLI maps to exit codes.
//
// It sits below the pipeline and imports nothing of gwpol's.
package diag
