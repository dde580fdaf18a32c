// Package manifest is the first stage of gwpol's pipeline: it reads files,
// directories and stdin, splits YAML/JSON streams and `kind: List` objects
// into Kubernetes objects, and keeps the file, line and column of every
// object and every field in it.
//
// Files that are not Kubernetes objects (WSO2 policy definitions and
// engine build manifests) are read through its node API (ParseNodes,
// Field, Scalar, NodeJSON) by the same rules.
//
// It imports only diag and parallel. Nothing here knows what a Gateway or
// a policy is; decoding into typed objects is done by callers through
// Object.Decode.
package manifest
