package lint

import "github.com/gwpol/gwpol/internal/diag"

// policyRules: GWP4xx, policy specs and what they depend on.
func policyRules() []Rule {
	return []Rule{
		stageRule("GWP401", "policy-invalid", "policy spec invalid",
			"A policy's spec has a value that does not parse or a reference that does not resolve; the policy is not accepted (Accepted=False/Invalid) and what it targets is replaced by an error response.", diag.Error),
		stageRule("GWP402", "policy-dependency", "credential Secret / catalog ConfigMap missing, mutable, or in another namespace",
			"Credential Secrets and WAF catalogs must be immutable objects in the policy's namespace, in the formats the controller reads (HAPTIC: API key lines, a PEM or JWKS public key that fits the JWT algorithm, a catalog whose every entry is valid), and the deployment must have the feature switched on (config haptic:); otherwise the rule fails closed.", diag.Error),
		stageRule("GWP403", "grpc-feature", "feature not allowed on GRPCRoute (cache, body-buffering WAF)",
			"Response caching and WAF policies that buffer request bodies cannot apply to gRPC streams; the rule fails closed.", diag.Error),
		stageRule("GWP404", "unsupported-capability", "unsupported(required_capability) for the render target",
			"A field needs an Envoy capability the render target lacks; the affected routes fail closed with a 503 naming the policy and field.", diag.Error),
	}
}
