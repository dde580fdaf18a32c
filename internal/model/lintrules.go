package model

import "github.com/gwpol/gwpol/internal/diag"

// The lint rules of the findings model makes while typing objects. A finding takes its Code from its rule;
// lint's registry lists every rule (lint.Rules).
var (
	LintInvalidDocument = diag.Rule{Code: "GWP101", Name: "invalid-document", Severity: diag.Error,
		Title: "document is not valid YAML/JSON or does not fit its kind",
		Doc:   "A document could not be decoded into its kind (a field has the wrong type); every such field of the document is reported, each at its own position."}
	LintUnknownField = diag.Rule{Code: "GWP102", Name: "unknown-field", Severity: diag.Error,
		Title: "known kind with an unknown field",
		Doc:   "A field the kind's API does not define, with the nearest field it does define. kubectl's strict field validation rejects the object, so it is an error; config strictFields: false (or --strict-fields=false) makes it a warning, for clusters that prune unknown fields instead."}
	LintDuplicateObject = diag.Rule{Code: "GWP103", Name: "duplicate-object", Severity: diag.Error,
		Title: "two different objects with the same kind/namespace/name",
		Doc:   "Two documents define one object with different content. Applied in input order (-f order, then document order) the later replaces the earlier, as kubectl apply would; gwpol uses the later and reports the earlier, naming both places. Identical documents (the same GatewayClass in two example files) are one object and raise nothing."}
	LintDeprecatedVersion = diag.Rule{Code: "GWP104", Name: "deprecated-version", Severity: diag.Warning,
		Title: "deprecated apiVersion",
		Doc:   "The object uses an API version the CRDs still serve but deprecate (TLSRoute v1alpha2 or v1alpha3, HTTPRoute v1beta1…); gwpol reads it as the API server would convert it. Move to the v1 API. A version not served at all is GWP111."}
	LintVersionNotServed = diag.Rule{Code: "GWP111", Name: "version-not-served", Severity: diag.Error,
		Title: "apiVersion not served for the kind",
		Doc:   "The kind is one gwpol reads, but not at this apiVersion: no release of its CRDs serves it (a ListenerSet at gateway.networking.k8s.io/v1alpha1, say), so the API server refuses the object. gwpol leaves it out; use a version the CRDs serve."}
	LintInvalidName = diag.Rule{Code: "GWP113", Name: "invalid-name", Severity: diag.Error,
		Title: "object or reference name the API server would refuse",
		Doc:   "metadata.name or metadata.namespace breaks the API server's rules for the kind (a DNS-1123 subdomain for most kinds and every custom resource, a DNS-1035 label for a Service, a DNS-1123 label for a namespace: lower-case letters, digits, '-' and '.', at most 253 or 63 characters), or a reference (parentRefs, backendRefs, targetRefs, secretRef, certificateRefs…) names an object by a name no object can have. The API server refuses such an object, or the reference can never resolve; gwpol reports it at the value and leaves the object out of the run, so nothing is rendered from it."}
)

// LintRules are the rules above, for lint's registry.
func LintRules() []diag.Rule {
	return []diag.Rule{LintInvalidDocument, LintUnknownField, LintDuplicateObject, LintDeprecatedVersion, LintVersionNotServed, LintInvalidName}
}
