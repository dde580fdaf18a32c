package policy

import "github.com/gwpol/gwpol/internal/diag"

// RuleChecker is implemented by kinds whose policies are valid or not
// depending on the rule that references them (HAProxyRoutePolicy rejects
// response caching on a GRPCRoute). attach calls it for every ExtensionRef
// that resolves to a policy of the kind; diagnostics it returns break that
// rule (it fails closed), not the policy.
type RuleChecker interface {
	// CheckRule returns the problems of using p on a rule of a route of
	// routeKind (HTTPRoute or GRPCRoute); nil when p may be used there.
	CheckRule(p *Policy, routeKind string) []diag.Diagnostic
}

// Identifier is implemented by kinds whose data plane names rules and
// policies at runtime (stick tables, counters, rate-limit budgets), so that
// explain can show those names.
type Identifier interface {
	// RuleIdentity is the runtime name of rule (its index) of the route
	// routeKind ns/name.
	RuleIdentity(routeKind, ns, name string, rule int) string
	// PolicyIdentity is the runtime name of the policy itself; rules that
	// share a policy share what is keyed by it (a rate-limit budget).
	PolicyIdentity(p *Policy) string
	// SharedState names what the rules using p share through its identity
	// (e.g. "one rate-limit budget"), "" when p keys nothing shared.
	SharedState(p *Policy) string
}

// Inheritor is implemented by kinds whose parent routes say how their
// policies combine with delegated children's (kgateway's
// kgateway.dev/inherited-policy-priority annotation on the parent route).
type Inheritor interface {
	InheritStrategy(parentAnnotations map[string]string) Strategy
}

// StatusReasoner is implemented by kinds whose controller writes route
// conditions of its own for rules the kind's references break (HAPTIC:
// ResolvedRefs False only for an unresolved reference — PolicyNotFound,
// RefNotPermitted — and IncompatibleFilters for two policies on a rule).
type StatusReasoner interface {
	// BrokenReasons are the reasons for a rule broken with the diagnostic
	// code on the policy field: reason for Accepted False and
	// PartiallyInvalid, and resolvedRefs for ResolvedRefs False ("" when
	// the rule's references resolved, so ResolvedRefs is not set False).
	BrokenReasons(code, field string) (reason, resolvedRefs string)
}
