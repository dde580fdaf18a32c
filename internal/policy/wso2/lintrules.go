package wso2

import (
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// The lint rules of the findings of WSO2's APIs and routes that no other kind makes. A finding takes its Code from its rule;
// lint's registry lists every rule (lint.Rules).
var (
	LintDuplicateAPIPolicy = diag.Rule{Code: "GWP510", Name: "duplicate-api-policy", Severity: diag.Warning,
		Title: "API-level policy name listed more than once",
		Doc:   "The gateway-controller keys API-level policies by name: the last entry of a name replaces the earlier ones and runs once for every time the name is listed, so the earlier params never take effect."}
	LintPoliciesNotChecked = diag.Rule{Code: "GWP511", Name: "policies-not-checked", Severity: diag.Info,
		Title: "policy references gwpol lists but does not resolve",
		Doc:   "The policy references of a WebSubApi are resolved by the WSO2 event gateway against its own policy definitions, which gwpol does not load; the note says they were not checked. (LlmProvider, LlmProxy and Mcp references are resolved like a RestApi's.)"}
	LintRouteRejected = diag.Rule{Code: "GWP512", Name: "route-rejected", Severity: diag.Error,
		Title: "HTTPRoute rejected as a whole by the WSO2 operator",
		Doc:   "The WSO2 gateway operator compiles an HTTPRoute into one API (gwpol models the operator at the family's pinned commit, 1c84e11c): when it cannot build that API — more than one Gateway parentRef, no rules, a rule with an empty matches list, backendRefs resolving to more than one Service port or to none, a Service port the Service lacks, an APIPolicy ExtensionRef that is missing or whose targetRef names another route — it deploys nothing for the route; and when a policy of one rule (an ExtensionRef APIPolicy, or one targeting the route) is invalid, the gateway-controller rejects the whole API. Either way every rule of the route fails, not only the one at fault."}
)

// LintOperationDiffers is a match of an HTTPRoute the WSO2 operator
// builds an API from whose operation serves other requests than the
// match selects (operations.go).
var LintOperationDiffers = diag.Rule{Code: "GWP514", Name: "operation-differs", Severity: diag.Warning,
	Title: "HTTPRoute match the WSO2 operator serves differently",
	Doc: "The WSO2 gateway operator (at the family's pinned commit, 1c84e11c) builds one operation from each match of an HTTPRoute: the match's method (all seven the API models without one) and its path value whatever the match type, under the API's context (annotation " + AnnotationContext + "). The gateway-controller serves a path ending in /* with the paths under it, {param} segments as any one segment, / as the context alone, and any other path exactly (and with a trailing slash); header and query parameter matches are not read, and the context is stripped before the backend. " +
		"The finding names what the operator serves where that differs from the Gateway API match — a PathPrefix match served as one path, a regular expression taken as a literal path, dropped header or query matches, the context — which gwpol's render does not follow (it renders the match as written)."}

// LintRules are the rules above, for lint's registry.
func LintRules() []diag.Rule {
	return []diag.Rule{LintDuplicateAPIPolicy, LintPoliciesNotChecked, LintRouteRejected, LintOperationDiffers, LintGatewayNeverRegisters}
}

// LintRules implements policy.LintRuleOwner for each WSO2 kind; the
// registry lists the shared rules once.
func (*APIKind) LintRules() []diag.Rule { return LintRules() }

// LintRules implements policy.LintRuleOwner.
func (*APIPolicyKind) LintRules() []diag.Rule { return LintRules() }

// LintRules implements policy.LintRuleOwner.
func (*RestAPIKind) LintRules() []diag.Rule { return LintRules() }

var (
	_ policy.LintRuleOwner = (*APIKind)(nil)
	_ policy.LintRuleOwner = (*APIPolicyKind)(nil)
	_ policy.LintRuleOwner = (*RestAPIKind)(nil)
)
