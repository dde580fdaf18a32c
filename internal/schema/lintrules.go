package schema

import "github.com/gwpol/gwpol/internal/diag"

// The lint rules of the findings the schema stage makes. A finding takes
// its Code from its rule; lint's registry lists every rule (lint.Rules).
var (
	// LintUnknownField is shared with model, which reports the unknown
	// fields of kinds with no known CRD by its typed decoding.
	LintUnknownField = diag.Rule{Code: "GWP102", Name: "unknown-field", Severity: diag.Error,
		Title: "known kind with an unknown field",
		Doc:   "A field the kind's API does not define, with the nearest field it does define. kubectl's strict field validation rejects the object, so it is an error; config strictFields: false (or --strict-fields=false) makes it a warning, for clusters that prune unknown fields instead."}
	LintDeprecatedVersion = diag.Rule{Code: "GWP104", Name: "deprecated-version", Severity: diag.Warning,
		Title: "deprecated apiVersion",
		Doc:   "The object uses an API version its CRD still serves but marks deprecated (the message is the CRD's own deprecationWarning), or one only older CRD releases serve (TLSRoute v1alpha2 or v1alpha3, HTTPRoute v1beta1…); gwpol reads it as the API server would convert it. Move to the version named. A version not served at all is GWP111."}
	LintSchemaViolation = diag.Rule{Code: "GWP110", Name: "schema-violation", Severity: diag.Error,
		Title: "object fails its CRD's schema or validation rules",
		Doc: "The API server would refuse the object: a field breaks its CustomResourceDefinition's OpenAPI schema (type, required, enum, pattern, format, range, size, list or map rule) or a CEL x-kubernetes-validations rule. " +
			"The message is the API server's, at the offending field; defaults are applied first, as the API server does. See docs/crds.md for where CRDs come from."}
	LintVersionNotServed = diag.Rule{Code: "GWP111", Name: "version-not-served", Severity: diag.Error,
		Title: "apiVersion not served by the kind's CRD",
		Doc:   "The kind's CustomResourceDefinition does not serve this version (or has no such version), or, for a kind gwpol reads with no CRD known, no release of its CRDs serves it (a ListenerSet at gateway.networking.k8s.io/v1alpha1, say): the API server refuses the object, and gwpol leaves it out. Use a version the CRD serves, or give the CRDs your cluster runs with --crds."}
	LintCRDUnusable = diag.Rule{Code: "GWP112", Name: "crd-unusable", Severity: diag.Error,
		Title: "a CustomResourceDefinition cannot be read or its schema compiled",
		Doc:   "A CRD given with --crds or in the input could not be decoded, or a version's schema is not structural or its CEL rules do not compile, so its custom resources are not validated against it (the API server would refuse such a CRD)."}
)

// LintRules are the rules above, for lint's registry.
func LintRules() []diag.Rule {
	return []diag.Rule{LintUnknownField, LintDeprecatedVersion, LintSchemaViolation, LintVersionNotServed, LintCRDUnusable}
}
