// Package benchgen generates the platform the benchmarks measure: the
// shape issue #4's budget is stated for. It is no stage of the pipeline:
// it imports nothing of gwpol's; only tests and the floor command
// (benchgen/floor) import it.
package benchgen
