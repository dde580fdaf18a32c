package wso2

import (
	"fmt"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The WSO2 gateway operator turns an HTTPRoute into one API for the
// gateway-controller. gwpol models it at the family's pinned commit,
// 1c84e11c of wso2/api-platform (kubernetes/gateway-operator/internal/
// controller: httproute_controller.go Reconcile, httproute_mapper.go
// BuildAPIConfigFromHTTPRoute and firstBackendURL, httproute_policies.go):
// every match of every rule becomes an operation carrying the rule's
// APIPolicy ExtensionRefs, the APIPolicies whose targetRef names the
// route are the API's policies, and every operation goes to one upstream,
// the route's single Service backend. The operator at that commit
// generates no policy from the route's other filters or backends (the
// generation from header modifiers, redirects, backend-less and weighted
// rules came with httproute_filters.go on 2026-07-11, after the pin).
//
// What it cannot build it refuses whole: the route's parent status gets
// ResolvedRefs False (reason Invalid, or Retrying for what may resolve
// later) and no API is deployed, so none of the route's rules is served.

// OperatorControllerPrefix starts the controllerName of the WSO2 gateway
// operator's GatewayClass (gateway.api-platform.wso2.com/gateway-operator).
const OperatorControllerPrefix = Group + "/"

// refusal is why the operator builds no API from a route: the field it
// comes from, the operator's message, and whether it retries (a missing
// object may appear) or gives up (the route must change).
type refusal struct {
	field, message string
	retrying       bool
}

// buildRefusal is the first reason, in the operator's order, it refuses
// the route as a whole; nil when it builds the API. The order: the
// route's Gateway parentRefs (Reconcile), its rules, its Service backends
// over all rules (firstBackendURL), each rule's APIPolicy ExtensionRefs
// and matches.
func (ks *Kinds) buildRefusal(rt *topology.Route, att policy.Attachments) *refusal {
	if n := gatewayParentRefs(rt); n > 1 {
		return &refusal{field: "spec.parentRefs", message: "HTTPRoute with multiple Gateway parentRefs is not supported; use a single parent Gateway"}
	}
	if len(rt.Rules) == 0 {
		return &refusal{field: "spec.rules", message: "HTTPRoute has no rules"}
	}
	if r := singleServiceBackend(rt); r != nil {
		return r
	}
	for _, rule := range rt.Rules {
		if r := ks.extensionRefRefusal(rt, rule, att); r != nil {
			return r
		}
		if rule.HTTP != nil && rule.HTTP.Matches != nil && len(rule.HTTP.Matches) == 0 {
			return &refusal{field: rule.Path + ".matches", message: fmt.Sprintf("rule[%d] has no matches; add at least one rule.matches entry", rule.Index)}
		}
	}
	return nil
}

// gatewayParentRefs counts the route's parentRefs to a Gateway
// (parentGatewayRefs: a named ref of kind Gateway in the Gateway API
// group), two refs to one Gateway with different sections counting twice.
func gatewayParentRefs(rt *topology.Route) int {
	n := 0
	for _, p := range rt.Route.ParentRefs {
		if p.Name == "" || (p.Kind != nil && *p.Kind != "Gateway") || (p.Group != nil && *p.Group != gwv1.GroupName) {
			continue
		}
		n++
	}
	return n
}

// singleServiceBackend is firstBackendURL's refusal: every Service
// backendRef of every rule, in order, must resolve to the same Service
// and port, and there must be one. A backendRef of another kind is passed
// over; a Service ref with a group, one in another namespace without a
// ReferenceGrant and a Service not found are retried; a port the Service
// does not have, or a Service without ports, refuses the route.
func singleServiceBackend(rt *topology.Route) *refusal {
	var first *topology.Backend
	var firstPort int32
	for _, rule := range rt.Rules {
		for _, b := range rule.Backends {
			br := b.BackendRef
			if br == nil || (br.Kind != nil && *br.Kind != "" && *br.Kind != "Service") {
				continue
			}
			if br.Group != nil && *br.Group != "" {
				return &refusal{field: br.Path + ".group", retrying: true,
					message: fmt.Sprintf("unsupported backendRef: core Service backends require group to be omitted or empty (got group %q)", string(*br.Group))}
			}
			if b.Name == "" {
				continue
			}
			switch {
			case b.Reason == "RefNotPermitted":
				return &refusal{field: br.Path + ".namespace", retrying: true,
					message: fmt.Sprintf("Service %s/%s is in another namespace than the route and no ReferenceGrant there allows it", b.Namespace, b.Name)}
			case b.Service == nil:
				return &refusal{field: br.Path + ".name", retrying: true,
					message: fmt.Sprintf("get backend Service %s/%s: not found", b.Namespace, b.Name)}
			}
			port, r := servicePort(b)
			if r != nil {
				return r
			}
			if first == nil {
				first, firstPort = b, port
				continue
			}
			if b.Namespace != first.Namespace || b.Name != first.Name || port != firstPort {
				return &refusal{field: br.Path,
					message: fmt.Sprintf("HTTPRoute backendRefs must resolve to a single Service backend (first %s/%s:%d, found %s/%s:%d)",
						first.Namespace, first.Name, firstPort, b.Namespace, b.Name, port)}
			}
		}
	}
	if first == nil {
		return &refusal{field: "spec.rules", message: "no Service backendRef found on HTTPRoute"}
	}
	return nil
}

// servicePort is resolveServicePort: the backendRef's port among the
// Service's ports, or its only port when the ref gives none. A Service
// the input does not hold (config assumeExist) has the port asked for.
func servicePort(b *topology.Backend) (int32, *refusal) {
	svc := b.Service
	if svc.Assumed {
		return b.Port, nil
	}
	ports := svc.Spec.Ports
	switch {
	case len(ports) == 0:
		return 0, &refusal{field: b.BackendRef.Path, message: fmt.Sprintf("service %s/%s has no ports", svc.Namespace, svc.Name)}
	case b.Port > 0:
		for _, p := range ports {
			if p.Port == b.Port {
				return p.Port, nil
			}
		}
		return 0, &refusal{field: b.BackendRef.Path + ".port",
			message: fmt.Sprintf("service %s/%s has no port %d in spec.ports (backendRefs[].port must match a Service spec.ports.port)", svc.Namespace, svc.Name, b.Port)}
	case len(ports) > 1:
		return 0, &refusal{field: b.BackendRef.Path,
			message: fmt.Sprintf("service %s/%s has %d ports; set backendRefs[].port to a spec.ports.port value to disambiguate", svc.Namespace, svc.Name, len(ports))}
	}
	return ports[0].Port, nil
}

// extensionRefRefusal is policiesFromHTTPRouteRuleExtensionRefs' refusal
// for one rule: an APIPolicy ExtensionRef (in the operator's group) to an
// APIPolicy the route's namespace does not hold is retried, and one whose
// targetRef names another route refuses the route. Other ExtensionRef
// kinds are passed over.
func (ks *Kinds) extensionRefRefusal(rt *topology.Route, rule *topology.Rule, att policy.Attachments) *refusal {
	if rule.HTTP == nil {
		return nil
	}
	for i, f := range rule.HTTP.Filters {
		ref := f.ExtensionRef
		if f.Type != gwv1.HTTPRouteFilterExtensionRef || ref == nil || string(ref.Kind) != KindAPIPolicy || string(ref.Group) != Group {
			continue
		}
		at := fmt.Sprintf("%s.filters[%d].extensionRef", rule.Path, i)
		var found *policy.Policy
		for _, a := range att.OnRule(rule) {
			if a.ExtensionRef && ks.Owns(a.Policy) && a.Policy.Obj.Name == string(ref.Name) && a.Policy.Obj.Namespace == rt.Meta.Namespace {
				found = a.Policy
				break
			}
		}
		if found == nil {
			return &refusal{field: at + ".name", retrying: true, message: fmt.Sprintf("APIPolicy %s/%s not found", rt.Meta.Namespace, ref.Name)}
		}
		if ap, ok := found.Data.(*APIPolicy); ok && ap.Spec.TargetRef != nil && !targetsRoute(ap.Spec.TargetRef, rt) {
			return &refusal{field: at + ".name",
				message: fmt.Sprintf("APIPolicy %q spec.targetRef must name this HTTPRoute (%s/%s) with group %s kind HTTPRoute when targetRef is set",
					found.Obj.Name, rt.Meta.Namespace, rt.Meta.Name, gwv1.GroupName)}
		}
	}
	return nil
}

// targetsRoute is apiPolicyTargetRefMatchesHTTPRoute: an APIPolicy's
// targetRef names rt when its kind and group (trimmed) are HTTPRoute's,
// its name is rt's, and its namespace is unset, blank, or rt's
// (targetRefNamespaceOK). The operator reads it so both where it joins
// the APIPolicies targeting a route and where a rule's ExtensionRef names
// an APIPolicy that has a targetRef. The CRD requires kind and group, so
// an empty one never reaches the operator; gwpol reads it as Decode does
// (HTTPRoute, the Gateway API group).
func targetsRoute(t *TargetRef, rt *topology.Route) bool {
	kind, group := strings.TrimSpace(t.Kind), strings.TrimSpace(t.Group)
	return (kind == "" || kind == string(policy.TargetHTTPRoute)) && (group == "" || group == gwv1.GroupName) &&
		t.Name == rt.Meta.Name && targetRefNamespaceOK(t, rt.Meta.Namespace)
}

// targetRefNamespaceOK: a targetRef's namespace names ns as the operator
// compares it — unset or blank (trimmed) is the APIPolicy's own, any
// other value must equal ns as written, untrimmed.
func targetRefNamespaceOK(t *TargetRef, ns string) bool {
	return strings.TrimSpace(t.Namespace) == "" || t.Namespace == ns
}

// refuseRoute fails every rule of a route the operator builds no API
// from: nothing is deployed for it, so no rule is served (500 in render,
// like a route the gateway-controller rejects).
func (ks *Kinds) refuseRoute(rt *topology.Route, att policy.Attachments, r *refusal) diag.Diagnostic {
	reason := "Invalid"
	then := "and does not retry until the route changes"
	if r.retrying {
		reason, then = "Retrying", "and retries every 30 s"
	}
	why := fmt.Sprintf("the WSO2 gateway operator builds no API from %s %s/%s (ResolvedRefs False, reason %s): %s", rt.Kind, rt.Meta.Namespace, rt.Meta.Name, reason, r.message)
	for _, rule := range rt.Rules {
		att.Break(rule, policy.BrokenRule{Kind: ks.APIPolicy(), Code: LintRouteRejected.Code, Reason: why})
	}
	return diag.Diagnostic{Code: LintRouteRejected.Code, Severity: diag.Error, Object: rt.Key().Ref(), Field: r.field, Pos: rt.Src.FieldPos(r.field),
		Message: fmt.Sprintf("%s; it deploys nothing for the route %s, so none of its %d rule(s) is served; fix: change the route so the operator can build one API from it",
			why, then, len(rt.Rules))}
}
