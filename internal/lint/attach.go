package lint

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/status"
)

// attachRules: GWP2xx, references and attachment.
func attachRules() []Rule {
	return []Rule{
		stageRule("GWP201", "target-not-found", "policy target not found",
			"A targetRef names an object that is not in the input, or a kind the policy cannot target. The policy does not attach there (status TargetNotFound).", diag.Error),
		stageRule("GWP202", "section-not-found", "sectionName not found on the target",
			"A targetRef's sectionName names no listener (Gateway, ListenerSet) or rule name (routes) of the target.", diag.Error),
		{Code: "GWP203", Name: "reference-not-permitted", Title: "reference across namespaces not allowed (no ReferenceGrant / policy rules)",
			Doc: "A backendRef, certificateRef or policy reference points into another namespace and no ReferenceGrant there allows it.", Severity: diag.Error, Run: crossNamespace},
		{Code: "GWP204", Name: "route-not-attached", Title: "route attached to no listener (with the reason)",
			Doc: "A route parentRef was not accepted by any listener; the reason is the Gateway API's (NotAllowedByListeners, NoMatchingListenerHostname, NoMatchingParent).", Severity: diag.Warning, Run: unattachedRoutes},
		stageRule("GWP205", "extensionref-not-found", "ExtensionRef to a policy that does not exist",
			"A rule filter references a policy that is not in the route's namespace (or a kind gwpol does not support there); the rule answers with an error.", diag.Error),
		stageRule("GWP206", "duplicate-policy-filter", "more than one policy filter on a rule where the kind forbids it",
			"Kinds that allow one policy per rule (HAProxyRoutePolicy) fail the rule closed when it has several.", diag.Error),
		stageRule("GWP207", "policy-filter-on-backend", "policy filter on a backendRef where the kind forbids it",
			"Kinds that attach only to rules reject filters under backendRefs[].filters; the rule fails closed.", diag.Error),
		stageRule("GWP209", "delegated-route-outside-parent", "delegated child route attached to no parent or matching outside it",
			"A child HTTPRoute rule's match falls outside the delegating parent's path prefix (that rule is not served), or its parent is attached nowhere.", diag.Warning),
		stageRule("GWP210", "delegation-cycle", "route delegation cycle",
			"HTTPRoutes delegate to each other in a loop; the delegation that closes the loop is ignored.", diag.Error),
		stageRule("GWP211", "delegation-to-nothing", "delegating backendRef selects no child route",
			"An HTTPRoute backendRef (by name, \"*\" or delegation label) selects no route: none exists, it names the parent itself, or the routes it names do not accept the parent in their parentRefs. The rule answers 500 and the route's ResolvedRefs is False (BackendNotFound), as in kgateway.", diag.Error),
		{Code: "GWP208", Name: "too-many-ancestors", Title: "more than 16 ancestors",
			Doc: "Policy status holds at most 16 ancestors; the rest are not reported by the controller.", Severity: diag.Warning, Run: tooManyAncestors},
	}
}

func crossNamespace(in *Input) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, rt := range in.Result.Graph.Routes {
		for _, rule := range rt.Rules {
			for _, b := range rule.Backends {
				if b.Reason == "RefNotPermitted" {
					out = append(out, diag.Diagnostic{Object: rt.Key().Ref(), Field: b.Path, Pos: rt.Src.FieldPos(b.Path + ".namespace"),
						Message: b.Message + "; add a ReferenceGrant in namespace " + b.Namespace + " from " + rt.Kind + "s in " + rt.Meta.Namespace})
				}
			}
		}
	}
	for _, gw := range in.Result.Graph.Gateways {
		for _, l := range gw.Listeners {
			for _, c := range l.Conditions {
				if c.Type == "ResolvedRefs" && c.Reason == "RefNotPermitted" {
					src := gw.Src
					p := fmt.Sprintf("spec.listeners[%d].tls.certificateRefs", l.Index)
					if l.Set != nil {
						src = l.Set.Src
					}
					out = append(out, diag.Diagnostic{Object: diag.ObjectRef{Group: src.Group, Kind: src.Kind, Namespace: src.Namespace, Name: src.Name}, Field: p, Pos: src.FieldPos(p), Message: c.Message})
				}
			}
		}
	}
	return out
}

func unattachedRoutes(in *Input) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, rt := range in.Result.Graph.Routes {
		for _, p := range rt.Parents {
			if p.Accepted {
				continue
			}
			path := fmt.Sprintf("spec.parentRefs[%d]", p.Index)
			out = append(out, diag.Diagnostic{Object: rt.Key().Ref(), Field: path, Pos: rt.Src.FieldPos(path),
				Message: fmt.Sprintf("%s is not attached through parentRef %s/%s: %s (%s)", rt.Key().Ref(), *p.Ref.Namespace, p.Ref.Name, p.Reason, p.Message)})
		}
		if len(rt.Parents) == 0 {
			out = append(out, diag.Diagnostic{Object: rt.Key().Ref(), Field: "spec", Pos: rt.Src.FieldPos("spec.parentRefs"),
				Message: fmt.Sprintf("%s has no parentRefs, so it attaches to no Gateway; add a parentRef (or make it the child of a delegating route)", rt.Key().Ref())})
		}
	}
	return out
}

func tooManyAncestors(in *Input) []diag.Diagnostic {
	var out []diag.Diagnostic
	counts := status.AncestorCounts(in.Result)
	for _, p := range in.Result.Policies.Policies {
		max := p.Kind.Spec().MaxAncestors
		if max == 0 {
			continue
		}
		n := counts[p]
		if n > max {
			out = append(out, p.Diag("", 0, "spec", "%s reaches %d ancestors; status reports only %d, so the state under the others is invisible on the cluster", p.ID(), n, max))
		}
	}
	return out
}
