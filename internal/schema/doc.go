// Package schema is the stage between manifest and model: it validates
// every object whose kind has a known CustomResourceDefinition as the
// Kubernetes API server would on create — the CRD's structural OpenAPI v3
// schema (types, required, enums, patterns, formats, ranges, sizes,
// x-kubernetes list and map rules), with unknown fields pruned and
// reported and the schema's defaults applied first, then its CEL
// x-kubernetes-validations rules — with the API server's own code
// (k8s.io/apiextensions-apiserver). It also decides whether an object's
// apiVersion is one its CRD serves (a deprecated one warns with the CRD's
// own message).
//
// CRDs come from a Catalog, in order of precedence: the ones the user
// names (--crds, config crds), CustomResourceDefinition objects in the
// input, and those Envoy Gateway's module ships (its own kinds and the
// Gateway API's). Each CRD version's validators are compiled once per
// catalog, when an object first needs them.
//
// schema imports manifest, diag and parallel, and the API server's
// libraries; nothing here knows what a Gateway or a policy means.
package schema
