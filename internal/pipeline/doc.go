// Package pipeline compiles an input set: manifest objects → model →
// topology → decoded policies → attach → merge, with the settings of
// .gwpol.yaml (Config) and the policy definitions and engine build
// versioned policy references resolve against (Versions, LoadVersions). Its registry (Registry) is the one place that
// lists the controller families (policy.Family) and their policy kinds.
// The result, Compiled, holds every stage's output and findings
// (Diagnostics); the views read it. The families' own steps — what a
// controller adds beyond the manifests (Family.Finish), the checks of its
// deployment settings (Family.CheckConfig, Family.CheckDeployment) — run
// here, called without knowing whose they are.
//
// pipeline comes after every stage and view in the import order: it may
// import the stages (manifest, model, topology, policy and its kind
// packages, policyversion, attach, merge) and diag. It is the one package
// besides the kinds themselves that imports a kind package. Only
// internal/cli imports it; no stage or view does (their tests compile
// inputs through it). Its tests hold every registered kind to the
// policy-kind contract: a `var _ policy.X = …` assertion for each hook it
// implements, and every hook listed in internal/policy/kind.go.
package pipeline
