package policy

import "github.com/gwpol/gwpol/internal/diag"

// The lint rules of the findings about policy specs and references that several stages and kinds make (decoding, attach, render). A finding takes its Code from its rule;
// lint's registry lists every rule (lint.Rules).
var (
	LintTargetNotFound = diag.Rule{Code: "GWP201", Name: "target-not-found", Severity: diag.Error,
		Title: "policy target not found",
		Doc:   "A targetRef names an object that is not in the input, or a kind the policy cannot target. The policy does not attach there (status TargetNotFound)."}
	LintExtensionRefNotFound = diag.Rule{Code: "GWP205", Name: "extensionref-not-found", Severity: diag.Error,
		Title: "ExtensionRef to a policy that does not exist",
		Doc:   "A rule filter references a policy that is not in the route's namespace (or a kind gwpol does not support there, or one the controller of the route's Gateway does not resolve: kgateway, Envoy Gateway and HAPTIC each resolve only their own family's kinds in a rule's ExtensionRef); the rule answers with an error — on a route served by Gateways of several controllers, on the Gateways of those that do not resolve the kind."}
	LintDuplicatePolicyFilter = diag.Rule{Code: "GWP206", Name: "duplicate-policy-filter", Severity: diag.Error,
		Title: "more than one policy filter on a rule where the kind forbids it",
		Doc:   "Kinds that allow one policy per rule (HAProxyRoutePolicy) fail the rule closed when it has several."}
	LintPolicyFilterOnBackend = diag.Rule{Code: "GWP207", Name: "policy-filter-on-backend", Severity: diag.Error,
		Title: "policy filter on a backendRef where the kind forbids it",
		Doc:   "Kinds that attach only to rules reject filters under backendRefs[].filters; the rule fails closed."}
	LintBackendRefFilterIgnored = diag.Rule{Code: "GWP218", Name: "backendref-filter-ignored", Severity: diag.Warning,
		Title: "backendRef filter the controller leaves out",
		Doc: "A filter on a backendRefs[] entry, or a field of the policy it references, that the controller does not apply to that backend: kgateway applies a TrafficPolicy named from a backendRef per backend with its per-filter settings only (auth, ext_proc, rate limits, CORS, header modifiers…) and leaves its route settings (timeouts, retry, urlRewrite, autoHostRewrite, tracing…) out; " +
			"it skips a backendRef ExtensionRef to a policy that does not exist or of another family's kind, and ignores Gateway API filter types other than the header modifiers there. Envoy Gateway leaves an HTTPRouteFilter's directResponse and urlRewrite out on a backendRef. Put the setting on the rule to apply it."}
	LintPolicyInvalid = diag.Rule{Code: "GWP401", Name: "policy-invalid", Severity: diag.Error,
		Title: "policy spec invalid",
		Doc:   "A policy's spec has a value that does not parse or a reference that does not resolve; the policy is not accepted (Accepted=False/Invalid) and what it targets is replaced by an error response."}
	LintUnsupportedCapability = diag.Rule{Code: "GWP404", Name: "unsupported-capability", Severity: diag.Error,
		Title: "unsupported(required_capability) for the render target",
		Doc:   "A field needs an Envoy capability the render target lacks; the affected routes fail closed with a 503 naming the policy and field."}
	LintNotTranslated = diag.Rule{Code: "GWP406", Name: "not-translated", Severity: diag.Warning,
		Title: "object or field not translated offline",
		Doc:   "The controller reads this object or field, but gwpol does not translate it (an EnvoyPatchPolicy's patches, EnvoyProxy settings gwpol does not model): the running config has it and gwpol's output does not. Or no controller gwpol emulates reads it at its pinned version (a BackendTLSPolicy's options): neither has it, and the controller's status does not say so. The finding says why."}
)

// LintRules are the rules above, for lint's registry.
func LintRules() []diag.Rule {
	return []diag.Rule{LintTargetNotFound, LintExtensionRefNotFound, LintDuplicatePolicyFilter, LintPolicyFilterOnBackend, LintBackendRefFilterIgnored, LintPolicyInvalid, LintUnsupportedCapability, LintNotTranslated}
}
