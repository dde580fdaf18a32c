package haptic

import (
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// The lint rules of the findings of HAPTIC's policies that no other kind makes. A finding takes its Code from its rule;
// lint's registry lists every rule (lint.Rules).
var (
	LintPolicyDependency = diag.Rule{Code: "GWP402", Name: "policy-dependency", Severity: diag.Error,
		Title: "credential Secret / catalog ConfigMap missing, mutable, or in another namespace",
		Doc:   "Credential Secrets and WAF catalogs must be immutable objects in the policy's namespace, in the formats the controller reads (HAPTIC: API key lines, one PEM public key that fits the JWT algorithm, a catalog whose every entry is valid), and the deployment must have the feature switched on (config haptic:); otherwise the rule fails closed."}
	LintGRPCFeature = diag.Rule{Code: "GWP403", Name: "grpc-feature", Severity: diag.Error,
		Title: "feature not allowed on GRPCRoute (cache, body-buffering WAF)",
		Doc:   "Response caching and WAF policies that buffer request bodies cannot apply to gRPC streams; the rule fails closed."}
)

// LintRules are the rules above, for lint's registry.
func LintRules() []diag.Rule {
	return []diag.Rule{LintPolicyDependency, LintGRPCFeature}
}

// LintRules implements policy.LintRuleOwner.
func (Kind) LintRules() []diag.Rule { return LintRules() }

var _ policy.LintRuleOwner = Kind{}
