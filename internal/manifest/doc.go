// Package manifest is the first stage of gwpol's pipeline: it reads files,
// directories and stdin, splits YAML/JSON streams and `kind: List` objects
// into Kubernetes objects, and keeps the file, line and column of every
// object and every field in it.
//
// It imports only diag. Nothing here knows what a Gateway or a policy is;
// decoding into typed objects is done by callers through Object.Decode.
package manifest
