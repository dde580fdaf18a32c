// Package inert makes strings from the input safe to print: a manifest
// may carry control characters (ESC starts a terminal escape sequence,
// CR returns to the start of the line), C1 controls (8-bit CSI), and
// Unicode bidi controls (U+202E reverses what follows) in names, values,
// labels and annotations, and printed raw they would rewrite what a
// terminal or a CI log shows. Every text view passes strings from the
// input through String (or Lines for a block of several lines) on their
// way out; JSON output through JSON, YAML built from JSON through
// JSONForYAML.
//
// It is a helper below every stage and imports nothing of gwpol's.
package inert
