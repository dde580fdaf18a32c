package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/status"
	"github.com/gwpol/gwpol/internal/topology"
)

func crossNamespace(in *Input) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, rt := range in.Result.Graph.Routes {
		for _, rule := range rt.Rules {
			for _, b := range rule.Backends {
				if b.Reason == "RefNotPermitted" && !b.Delegates() { // a delegation cycle is GWP210
					out = append(out, diag.Diagnostic{Code: ReferenceNotPermitted.Code, Object: rt.Key().Ref(), Field: b.Path, Pos: rt.Src.FieldPos(b.Path + ".namespace"),
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
					if _, ok, _, _ := in.Result.Graph.FrontendCAs(l); !ok {
						src, p = gw.Src, "spec.tls.frontend" // a CA of the Gateway's client validation
					}
					out = append(out, diag.Diagnostic{Code: ReferenceNotPermitted.Code, Object: diag.ObjectRef{Group: src.Group, Kind: src.Kind, Namespace: src.Namespace, Name: src.Name}, Field: p, Pos: src.FieldPos(p), Message: c.Message})
				}
			}
		}
	}
	return out
}

// missingBackends reports each backendRef of an attached route that names
// an object or port the input lacks: render answers 500 there. A finding a
// stage already made at that backendRef (a controller's own route
// validation, policy.RouteValidator) is not repeated.
func missingBackends(in *Input) []diag.Diagnostic {
	said := map[string]bool{}
	for _, d := range in.Stage {
		said[d.Object.String()+"\x00"+d.Field] = true
	}
	var out []diag.Diagnostic
	for _, rt := range in.Result.Graph.Routes {
		for _, rule := range rt.Rules {
			if !rt.Attached() && !(rt.ReachedAsChild() && rt.Served(rule)) {
				continue // GWP204 or GWP209 says why; its backends carry no traffic
			}
			for _, b := range rule.Backends {
				if b.Reason != "BackendNotFound" || b.Delegates() || said[rt.Key().Ref().String()+"\x00"+b.Path] {
					continue // a delegation to nothing is GWP211
				}
				hint := "add it to the input"
				if b.Group == "" && b.Kind == "Service" {
					hint = "add the Service, or, when it is deployed outside this repository, declare it with config assumeExist: [Service] (--assume-exist Service)"
				}
				if b.Service != nil {
					hint = "fix the port or add it to the Service"
				}
				out = append(out, diag.Diagnostic{Code: BackendNotFound.Code, Object: rt.Key().Ref(), Field: b.Path, Pos: rt.Src.FieldPos(b.Path + ".name"),
					Message: fmt.Sprintf("backendRef: %s; render answers 500 for its share of requests (ResolvedRefs False, BackendNotFound) — %s", b.Message, hint)})
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
			out = append(out, diag.Diagnostic{Code: RouteNotAttached.Code, Object: rt.Key().Ref(), Field: path, Pos: rt.Src.FieldPos(path),
				Message: fmt.Sprintf("%s is not attached through parentRef %s/%s: %s (%s)", rt.Key().Ref(), *p.Ref.Namespace, p.Ref.Name, p.Reason, p.Message)})
		}
		if len(rt.Parents) == 0 {
			out = append(out, diag.Diagnostic{Code: RouteNotAttached.Code, Object: rt.Key().Ref(), Field: "spec", Pos: rt.Src.FieldPos("spec.parentRefs"),
				Message: rt.Key().Ref().String() + " " + whyNoParent(rt)})
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
			out = append(out, p.Diag(TooManyAncestors.Code, 0, "spec", "%s reaches %d ancestors; status reports only %d, so the state under the others is invisible on the cluster", p.ID(), n, max))
		}
	}
	return out
}

// statusReplaced (GWP309) reports a policy whose status, as status
// computes it (status.Policies), holds the entries of more than one
// controller, one of which writes a policy's status whole
// (policy.Controller.ReplacesPolicyStatus).
func statusReplaced(in *Input) []diag.Diagnostic {
	r := in.Result
	var out []diag.Diagnostic
	for i, st := range status.Policies(r, status.Options{ControllerName: in.ControllerName}) {
		var writers []string
		for _, a := range st.Ancestors {
			if !slices.Contains(writers, a.ControllerName) {
				writers = append(writers, a.ControllerName)
			}
		}
		if len(writers) < 2 {
			continue
		}
		slices.Sort(writers)
		title := func(name string) string {
			if c, ok := r.Registry.Controller(name); ok && c.Title != "" {
				return c.Title
			}
			return name
		}
		for _, w := range writers {
			if c, ok := r.Registry.Controller(w); !ok || !c.ReplacesPolicyStatus {
				continue
			}
			var all, others []string
			for _, o := range writers {
				all = append(all, title(o))
				if o != w {
					others = append(others, title(o)+"'s")
				}
			}
			p := r.Policies.Policies[i]
			out = append(out, p.Diag(StatusReplacedByOneWriter.Code, 0, "spec",
				"the status of %s holds entries of %s; %s writes the status whole, its own ancestors alone, so after each of its writes the cluster shows none of %s until they write again: which verdicts a reader sees depends on which controller wrote last",
				p.ID(), andList(all), title(w), andList(others)))
		}
	}
	return out
}

// andList joins names as a sentence does: "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// whyNoParent explains a route with no parent entry at all: no parentRefs,
// parentRefs naming only parent routes that do not serve it, or delegating
// parents none of whose matches keeps a rule of it.
func whyNoParent(rt *topology.Route) string {
	switch {
	case len(rt.DelegatedBy) > 0:
		return fmt.Sprintf("is delegated to by %s, but no parent serves it (no rule of it matches within a delegating match, or its parent is attached nowhere)", rt.DelegatedBy[0].Parent.Key().Ref())
	case len(rt.ParentRefs) > 0:
		return "names only parent HTTPRoutes in its parentRefs, and none of them delegates to it, so it attaches to no Gateway"
	}
	return "has no parentRefs, so it attaches to no Gateway; add a parentRef (or make it the child of a delegating route)"
}
