// Package policyversion is the WSO2 API Platform version stage of gwpol: it reads
// the policy definitions the gateway-controller loads (--policy-definitions
// DIR) and the policy engine's build lock (--engine-manifest
// build-manifest.yaml), and answers the questions a versioned policy
// reference raises, exactly the way the WSO2 code answers them:
//
//   - Resolve: a reference's version must be major-only (`^v\d+$`, after
//     trimming spaces); it resolves to the single loaded definition of that
//     name whose version is `vMAJOR.MINOR.PATCH` and starts with `vN.`. The
//     identity shared by controller and engine is `name:vN`.
//   - EngineManifest.Check: the engine registry is keyed `name:vN` with no
//     fallback; a missing name or major is "policy not found" at runtime, a
//     different minor/patch than the controller's definition is drift that is
//     compatible under major identity.
//   - Definition.ValidateParams: a reference's params against the
//     definition's `parameters` JSON Schema (draft-7 unless the schema says
//     otherwise), as parsed: the gateway-controller at 1c84e11c coerces
//     nothing, so a string where the schema wants a number fails, and a
//     param resolved at deploy time (valueFrom, template) is a string.
//
// Results are plain structs carrying a stable lint code (GWP501–GWP507), a
// severity, a message and a fix hint. This package does not know where a
// reference sits in the user's manifests: the policy and lint packages turn a
// Problem into a diag.Diagnostic at the reference's position (see
// Problem.Diagnostic). Problems found in the definition and engine files
// themselves (a definition version that is not semver, a duplicate major in
// the engine build) come back from the loaders as diagnostics positioned in
// those files.
//
// Imports: the standard library, internal/diag, internal/manifest (the
// definition and build-manifest files have no apiVersion/kind, so they are
// read through manifest's node API — ParseNodes, Field, Scalar, NodeJSON —
// with the same alias, merge-key, number and timestamp rules as objects),
// go.yaml.in/yaml/v3 for the node type, Masterminds/semver and
// santhosh-tekuri/jsonschema. Nothing here imports the policy, lint,
// render or cli packages; they import this one.
package policyversion
