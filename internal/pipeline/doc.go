// Package pipeline compiles an input set: manifest objects → model →
// topology → decoded policies → attach → merge, with the settings of
// .gwpol.yaml (Config) and the WSO2 policy definitions and engine build
// (Versions). Its registry is the one place that lists the supported
// policy kinds. The result, Compiled, is what every view reads.
//
// pipeline comes after every stage and view in the import order: it may
// import the stages (manifest, model, topology, policy and its kind
// packages, attach, merge) and diag; only internal/cli imports it, and no
// stage or view does (their tests compile inputs through it).
package pipeline
