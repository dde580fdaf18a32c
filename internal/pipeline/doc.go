// Package pipeline compiles an input set: manifest objects → model →
// topology → decoded policies → attach → merge, with the settings of
// .gwpol.yaml (Config) and the policy definitions and engine build
// versioned policy references resolve against (Versions, LoadVersions).
// It runs the controller families it is given (Families: a registry of
// policy.Family and their policy kinds) and names none: the list is
// internal/families'. The result, Compiled, holds every stage's output
// and findings (Diagnostics); the views read it. The families' own steps
// — what a controller adds beyond the manifests (Family.Finish), the
// checks of its deployment settings (Family.CheckConfig,
// Family.CheckDeployment) — run here, called without knowing whose they
// are.
//
// pipeline comes after every stage and view in the import order: it may
// import the stages (manifest, schema, model, topology, policy,
// policyversion, attach, merge) and diag, but no family's package.
// internal/families and internal/cli import it; no stage or view does
// (their tests compile inputs through internal/families).
package pipeline
