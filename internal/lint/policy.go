package lint

import (
	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
)

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
		{Code: "GWP405", Name: "policy-no-effect", Title: "policy attaches but sets no field that takes effect",
			Doc:      "The policy is accepted and attached, but sets no field (only targetRefs, or only misspelled keys) or only empty ones (rateLimit: {}): it changes nothing where it attaches, though status says Attached. Also: a policy whose mergeType (Envoy Gateway) finds no Gateway or listener policy of its kind to merge into on some route: the mergeType changes nothing there.",
			Severity: diag.Warning, Run: noEffect},
	}
}

// noEffect reports valid policies that attach somewhere and set nothing,
// and policies whose mergeType merges into nothing (whole.go).
func noEffect(in *Input) []diag.Diagnostic {
	return append(setsNothing(in), mergedIntoNothing(in)...)
}

// setsNothing reports valid policies that attach somewhere and set nothing.
func setsNothing(in *Input) []diag.Diagnostic {
	attached := attachedPolicies(in.Result)
	var out []diag.Diagnostic
	for _, p := range in.Result.Policies.Policies {
		if !attached[p] || !p.NoEffect() {
			continue
		}
		d := p.Diag("", 0, "spec", "%s attaches but sets no field that takes effect (only targetRefs, unknown or empty fields): it changes nothing; set a field or remove the policy", p.ID())
		d.Pos = p.Obj.KeyPos("spec")
		out = append(out, d)
	}
	return out
}

// attachedPolicies are the policies with at least one attachment.
func attachedPolicies(r *merge.Result) map[*policy.Policy]bool {
	out := map[*policy.Policy]bool{}
	a := r.Attach
	for _, atts := range a.Gateway {
		mark(out, atts)
	}
	for _, atts := range a.ListenerSet {
		mark(out, atts)
	}
	for _, atts := range a.Listener {
		mark(out, atts)
	}
	for _, atts := range a.Route {
		mark(out, atts)
	}
	for _, atts := range a.Rule {
		mark(out, atts)
	}
	return out
}

func mark(out map[*policy.Policy]bool, atts []*attach.Attachment) {
	for _, at := range atts {
		out[at.Policy] = true
	}
}
