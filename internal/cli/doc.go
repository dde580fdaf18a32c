// Package cli is the only place that knows about flags, configuration
// files, environment variables, terminals and output files. Every command
// has an options struct, a constructor taking an optional run function (so
// tests can check flag parsing alone) and a run function that does the work
// through injected IOStreams. It reads .gwpol.yaml into pipeline.Config,
// compiles through internal/pipeline and writes what the views return.
//
// cli is last in the import order: it may import pipeline, the views
// (render/envoy, explain, lint, diff, graph), status and the stages before
// them, but no policy kind package: a kind's own output reaches it through
// the hooks of internal/policy/kind.go (ObjectExplainer for a view of its
// own such as WSO2's RestApi chains, Standalone for render's note on an
// input without Gateways). Only a command (package main: cmd/gwpol,
// internal/benchgen/floor) imports cli; imports_test.go keeps that, the
// pipeline's direction and the kinds' isolation true.
package cli

//go:generate go run ../../cmd/gwpol __gendocs ../..
