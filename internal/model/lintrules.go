package model

import (
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/schema"
)

// The lint rules of the findings model makes while typing objects. A finding takes its Code from its rule;
// lint's registry lists every rule (lint.Rules).
var (
	LintInvalidDocument = diag.Rule{Code: "GWP101", Name: "invalid-document", Severity: diag.Error,
		Title: "document is not valid YAML/JSON or does not fit its kind",
		Doc:   "A document could not be decoded into its kind (a field has the wrong type); every such field of the document is reported, each at its own position."}
	// LintUnknownField is the schema stage's rule: model reports the
	// unknown fields of the kinds it types, and the stage those of kinds
	// with a known CRD.
	LintUnknownField    = schema.LintUnknownField
	LintDuplicateObject = diag.Rule{Code: "GWP103", Name: "duplicate-object", Severity: diag.Error,
		Title: "two different objects with the same kind/namespace/name",
		Doc:   "Two documents define one object with different content. Applied in input order (-f order, then document order) the later replaces the earlier, as kubectl apply would; gwpol uses the later and reports the earlier, naming both places. Identical documents (the same GatewayClass in two example files) are one object and raise nothing."}
	// LintDeprecatedVersion and LintVersionNotServed are the schema
	// stage's rules: model decides versions for kinds with no known CRD.
	LintDeprecatedVersion = schema.LintDeprecatedVersion
	LintVersionNotServed  = schema.LintVersionNotServed
	LintInvalidName       = diag.Rule{Code: "GWP113", Name: "invalid-name", Severity: diag.Error,
		Title: "object or reference name the API server would refuse",
		Doc:   "metadata.name or metadata.namespace breaks the API server's rules for the kind (a DNS-1123 subdomain for most kinds and every custom resource, a DNS-1035 label for a Service, a DNS-1123 label for a namespace: lower-case letters, digits, '-' and '.', at most 253 or 63 characters), or a reference (parentRefs, backendRefs, targetRefs, secretRef, certificateRefs…) names an object by a name no object can have. The API server refuses such an object, or the reference can never resolve; gwpol reports it at the value and leaves the object out of the run, so nothing is rendered from it."}
)

// LintRules are the rules above, for lint's registry.
func LintRules() []diag.Rule {
	return []diag.Rule{LintInvalidDocument, LintDuplicateObject, LintInvalidName}
}
