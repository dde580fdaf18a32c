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
		Title: "two objects with the same kind/namespace/name",
		Doc:   "The second object would overwrite the first when applied; gwpol uses the first and reports the second."}
	// LintDeprecatedVersion and LintVersionNotServed are the schema
	// stage's rules: model decides versions for kinds with no known CRD.
	LintDeprecatedVersion = schema.LintDeprecatedVersion
	LintVersionNotServed  = schema.LintVersionNotServed
)

// LintRules are the rules above, for lint's registry.
func LintRules() []diag.Rule {
	return []diag.Rule{LintInvalidDocument, LintDuplicateObject}
}
