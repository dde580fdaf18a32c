package policyversion

import "github.com/gwpol/gwpol/internal/diag"

// The lint rules of the findings about versioned policy references, definitions and engine builds. A finding takes its Code from its rule;
// lint's registry lists every rule (lint.Rules).
var (
	LintVersionNotMajor = diag.Rule{Code: "GWP501", Name: "version-not-major", Severity: diag.Error,
		Title: "policy reference uses full semver where `vN` is required",
		Doc:   "References must name a major version only (v1); the controller rejects full versions."}
	LintNoDefinitionForMajor = diag.Rule{Code: "GWP502", Name: "no-definition-for-major", Severity: diag.Error,
		Title: "no policy definition for name at that major",
		Doc:   "No loaded policy definition has that name and major; the controller cannot resolve the reference."}
	LintAmbiguousMajor = diag.Rule{Code: "GWP503", Name: "ambiguous-major", Severity: diag.Error,
		Title: "several definitions for one name and major",
		Doc:   "Two definitions share a name and major; resolution is ambiguous and the engine rejects duplicates. Two of one name and version make the gateway-controller's policy loader fail, so the controller does not start."}
	LintEngineDrift = diag.Rule{Code: "GWP504", Name: "engine-drift", Severity: diag.Warning,
		Title: "engine build and controller definitions differ in minor/patch",
		Doc:   "Compatible under major identity, but the engine runs a different minor/patch than the controller validated against: the engine's registry keys a policy by name and major alone, so it runs the version it was built with, its system parameters under the params the controller checked against its own definition."}
	LintEngineMissingMajor = diag.Rule{Code: "GWP505", Name: "engine-missing-major", Severity: diag.Error,
		Title: "engine build lacks the referenced major",
		Doc:   "The policy engine was built without that name:major. The gateway-controller still deploys the API (the route is accepted), but the engine cannot build the policy chain of a route that runs it (\"policy not found\"), skips that chain, and answers the route's requests 500; render and explain show those rules answering 500."}
	LintParamsSchema = diag.Rule{Code: "GWP506", Name: "params-schema", Severity: diag.Error,
		Title: "params fail the definition's JSON Schema",
		Doc:   "The reference's params do not validate against the definition's parameters schema."}
	LintDefinitionNotSemver = diag.Rule{Code: "GWP507", Name: "definition-not-semver", Severity: diag.Error,
		Title: "definition version is not semver",
		Doc:   "A policy definition's version is missing, not a semantic version or not of the form vMAJOR.MINOR.PATCH; the gateway-controller's policy loader refuses the definitions and the controller does not start."}
	LintVersionDefaulted = diag.Rule{Code: "GWP508", Name: "version-defaulted", Severity: diag.Info,
		Title: "policy reference without a version resolved to the latest definition's major",
		Doc:   "The gateway-controller resolves a reference without a version to the major of the highest loaded definition of that name; the finding names it, so a newer definition cannot move the API to another major unnoticed."}
	LintParamDeferred = diag.Rule{Code: "GWP509", Name: "param-deferred", Severity: diag.Info,
		Title: "param or policy reference resolved at deploy time (valueFrom, template); not checked",
		Doc:   "A param given as valueFrom.secretKeyRef/configMapKeyRef (the operator substitutes the key's string) or as a gateway-controller template ({{ env \"X\" }}, {{ secret \"X\" }}, …) is only known at deploy time; it is a string then, which fits where the schema admits a string (a failure of a type it cannot have stands), and the note says where it comes from. A policy reference whose name or version is such a template is resolved by the gateway-controller only once rendered, so gwpol neither resolves it nor checks its params."}
	LintDefinitionNotLoaded = diag.Rule{Code: "GWP513", Name: "definition-not-loaded", Severity: diag.Warning,
		Title: "a definition after the first YAML document of its file is not loaded",
		Doc:   "The gateway-controller decodes a YAML definition file with yaml.Unmarshal, which reads its first document only: a definition in a later document is never loaded, so references to it do not resolve. Put each definition in a file of its own."}
)

// LintRules are the rules above, for lint's registry.
func LintRules() []diag.Rule {
	return []diag.Rule{LintVersionNotMajor, LintNoDefinitionForMajor, LintAmbiguousMajor, LintEngineDrift, LintEngineMissingMajor, LintParamsSchema, LintDefinitionNotSemver, LintVersionDefaulted, LintParamDeferred, LintDefinitionNotLoaded}
}
