// Package model is the second stage: it decodes the manifest objects gwpol
// understands into typed objects (sigs.k8s.io/gateway-api types for the
// Gateway API kinds, a metadata-only view of Secrets and ConfigMaps) and
// indexes every object by group/kind/namespace/name and by label.
//
// Objects of kinds a policy package registers stay as manifest objects here;
// the policy packages decode them. model imports manifest, diag,
// parallel and secret (Secret and ConfigMap values, held so that no
// message can print them), and schema for the stage before it (its
// verdicts and rules).
package model
