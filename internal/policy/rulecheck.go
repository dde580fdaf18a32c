package policy

import (
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
)

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

// RuleFielder is implemented by kinds some of whose fields a route rule
// also sets in its own Gateway API spec, where the rule's value takes
// precedence over every policy's in the data plane: kgateway applies an
// HTTPRoute rule's timeouts and retry first, and a TrafficPolicy only
// fills what they leave unset, while still reporting the policy as
// attached. merge makes such a rule a candidate ahead of all policies.
type RuleFielder interface {
	// RuleFields returns the rule's own values of the kind's fields, in
	// the kind's value types (what its renderer takes), in field order;
	// nil when the rule sets none.
	RuleFields(rt *model.Route, rule *model.Rule) []RuleField
	// Overlay lays a value of a field over a less specific one (a rule's
	// own over a policy's; for FillsUnset fields, a route's over its
	// Gateway's): the value in effect, and whether any part of the less
	// specific value remains in it (kgateway keeps a policy's stream-idle
	// timeout when the rule sets its own request timeout).
	Overlay(key string, over, under any) (effective any, underRemains bool)
}

// RuleField is one value a route rule sets itself.
type RuleField struct {
	Key   string
	Value any
	Path  string // where the rule sets it, e.g. spec.rules[0].retry
}

// BuiltIn marks the pseudo-policy that stands for a route rule's own
// Gateway API fields at a merge point. It is never in a Set and has no
// status.
type BuiltIn struct {
	Route model.GroupKind // the route's kind, e.g. gateway.networking.k8s.io/HTTPRoute
	Rule  string          // the rule's section (name or #N)
	Paths map[string]string
}

// NewBuiltIn returns the pseudo-policy of kind k for a rule's own fields:
// its values are the rule's, its object (for positions) is the route.
func NewBuiltIn(k Kind, rt *model.Route, rule *model.Rule, fields []RuleField) *Policy {
	b := &BuiltIn{Route: model.GroupKind{Group: model.GatewayGroup, Kind: rt.Kind}, Rule: rule.Section(), Paths: map[string]string{}}
	p := &Policy{Kind: k, Obj: rt.Src, Values: map[string]any{}, BuiltIn: b}
	for _, f := range fields {
		p.Values[f.Key] = f.Value
		b.Paths[f.Key] = f.Path
	}
	return p
}

// Describe names a policy for people: its ID, or for a rule's own fields
// "HTTPRoute NS/NAME rule R (built-in)".
func (p *Policy) Describe() string {
	if b := p.BuiltIn; b != nil {
		return b.Route.Kind + " " + p.Obj.Namespace + "/" + p.Obj.Name + " rule " + b.Rule + " (built-in)"
	}
	return p.ID()
}

// Instancer is implemented by kinds some of whose fields each configure
// one of several named instances of a data-plane feature (kgateway's
// ext_authz, ext_proc and oauth2 providers, each an Envoy filter of its
// own). A field decided at a more specific level hides a less specific
// level's only for the same instance, or when it names none (a disable):
// a Gateway's provider stays in effect beside a route's other provider.
type Instancer interface {
	// Instance names the instance a value of the field configures, ""
	// when it names none; ns is the namespace of the policy that set it.
	Instance(key string, v any, ns string) string
}
