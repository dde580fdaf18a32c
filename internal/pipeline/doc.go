// Package pipeline compiles an input set: manifest objects → model →
// topology → decoded policies → attach → merge, with the settings of
// .gwpol.yaml (Config) and the WSO2 policy definitions and engine build
// (Versions, LoadVersions). Its registry (Registry, RegistryWith) is the
// one place that lists the supported policy kinds. The result, Compiled,
// holds every stage's output and findings (Diagnostics); the views read
// it.
//
// pipeline comes after every stage and view in the import order: it may
// import the stages (manifest, model, topology, policy and its kind
// packages, policyversion, attach, merge) and diag. Only internal/cli
// imports it; no stage or view does (their tests compile inputs through
// it).
package pipeline
