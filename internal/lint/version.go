package lint

import "github.com/gwpol/gwpol/internal/diag"

// versionRules: GWP5xx, versioned policies (name + major version).
func versionRules() []Rule {
	return []Rule{
		stageRule("GWP501", "version-not-major", "policy reference uses full semver where `vN` is required",
			"References must name a major version only (v1); the controller rejects full versions.", diag.Error),
		stageRule("GWP502", "no-definition-for-major", "no policy definition for name at that major",
			"No loaded policy definition has that name and major; the controller cannot resolve the reference.", diag.Error),
		stageRule("GWP503", "ambiguous-major", "several definitions for one name and major",
			"Two definitions share a name and major; resolution is ambiguous and the engine rejects duplicates.", diag.Error),
		stageRule("GWP504", "engine-drift", "engine build and controller definitions differ in minor/patch",
			"Compatible under major identity, but the engine runs a different minor/patch than the controller validated against.", diag.Warning),
		stageRule("GWP505", "engine-missing-major", "engine build lacks the referenced major",
			"The policy engine was built without that name:major; at runtime the lookup answers \"policy not found\".", diag.Error),
		stageRule("GWP506", "params-schema", "params fail the definition's JSON Schema",
			"The reference's params do not validate against the definition's parameters schema.", diag.Error),
		stageRule("GWP507", "definition-not-semver", "definition version is not semver",
			"A policy definition's version is not a semantic version, so no major can be derived from it.", diag.Error),
		stageRule("GWP508", "version-defaulted", "policy reference without a version resolved to the latest definition's major",
			"The gateway-controller resolves a reference without a version to the major of the highest loaded definition of that name; the finding names it, so a newer definition cannot move the API to another major unnoticed.", diag.Info),
		stageRule("GWP509", "param-deferred", "param resolved at deploy time (valueFrom, template); its value is not checked",
			"A param given as valueFrom.secretKeyRef/configMapKeyRef (the operator substitutes the key's string) or as a gateway-controller template ({{ env \"X\" }}, {{ secret \"X\" }}, …) is only known at deploy time; it satisfies any scalar type of the schema, and the note says where it comes from.", diag.Info),
		stageRule("GWP510", "duplicate-api-policy", "API-level policy name listed more than once",
			"The gateway-controller keys API-level policies by name: the last entry of a name replaces the earlier ones and runs once for every time the name is listed, so the earlier params never take effect.", diag.Warning),
		stageRule("GWP511", "policies-not-checked", "policy references gwpol lists but does not resolve",
			"The policy references of a WebSubApi are resolved by the WSO2 event gateway against its own policy definitions, which gwpol does not load; the note says they were not checked. (LlmProvider, LlmProxy and Mcp references are resolved like a RestApi's.)", diag.Info),
		stageRule("GWP512", "route-rejected", "HTTPRoute rejected as a whole by the WSO2 operator",
			"The WSO2 gateway operator compiles an HTTPRoute into one API; when a policy of one rule (an ExtensionRef APIPolicy, or one it generates from a filter) is invalid, the gateway-controller rejects the whole API, so every rule of the route fails, not only that one.", diag.Error),
	}
}
