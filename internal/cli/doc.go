// Package cli is the only place that knows about flags, configuration
// files, environment variables, terminals and output files. Every command
// has an options struct, a constructor taking an optional run function (so
// tests can check flag parsing alone) and a run function that does the work
// through injected IOStreams.
//
// cli may import every stage of the pipeline; nothing imports cli except
// cmd/gwpol.
package cli

//go:generate go run ../../cmd/gwpol __gendocs ../..
