// Package cli is the only place that knows about flags, configuration
// files, environment variables, terminals and output files. Every command
// has an options struct, a constructor taking an optional run function (so
// tests can check flag parsing alone) and a run function that does the work
// through injected IOStreams. It reads .gwpol.yaml into pipeline.Config,
// compiles through internal/pipeline and writes what the views return.
//
// cli is last in the import order: it may import pipeline, the views
// (render/envoy, explain, lint, diff, graph), status and the stages before
// them; it names no policy kind except wso2, for explain's RestApi chain
// view (issue 15 moves that into the kind). Only a command (package main:
// cmd/gwpol, internal/benchgen/floor) imports cli; imports_test.go keeps
// that and the pipeline's direction true.
package cli

//go:generate go run ../../cmd/gwpol __gendocs ../..
