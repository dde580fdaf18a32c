package merge

import (
	"strings"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// ForwardingVerdict is the verdict on a field of a policy on a rule that
// does not forward: one that answers with a RequestRedirect, or that a
// policy answers itself (a direct response, policy.Answerer). Such a
// route has no route action, so the field's RouteAction settings (Writes
// under "route.") are not written there, and a field that configures
// forwarding routes only (policy.FieldSpec.ForwardingOnly, or one whose
// every path is a RouteAction field) is not applied at all. Render leaves
// the field off such a route and explain says so: each reads this
// verdict (Result.FieldForwardingOn, ForwardingOnly), none decides it
// again.
type ForwardingVerdict struct {
	// Answer is how the rule answers without forwarding ("a redirect",
	// "a direct response"); "" when it forwards.
	Answer string
	// RouteAction are the field's paths that configure the route action
	// (not written on this rule's routes when Answer is set).
	RouteAction []policy.EnvoyPath
	// Whole: the field configures forwarding routes only.
	Whole bool
}

// NotApplied says the field takes no effect on the rule's routes: the
// rule does not forward and the field configures forwarding routes only.
func (v ForwardingVerdict) NotApplied() bool { return v.Answer != "" && v.Whole }

// PartlyApplied says the rule does not forward and some, not all, of the
// field's paths configure the route action: those are left out.
func (v ForwardingVerdict) PartlyApplied() bool {
	return v.Answer != "" && !v.Whole && len(v.RouteAction) > 0
}

// ForwardingOnly reports whether field key of kind configures forwarding
// routes only: its spec says so (policy.FieldSpec.ForwardingOnly), or it
// declares Envoy paths and all of them are RouteAction fields. Render
// leaves such a field off a route without a route action.
func ForwardingOnly(kind policy.Kind, key string) bool {
	whole, _ := forwardingPaths(kind, key)
	return whole
}

// forwardingPaths are the field's RouteAction paths, and whether the
// field configures forwarding routes only.
func forwardingPaths(kind policy.Kind, key string) (bool, []policy.EnvoyPath) {
	spec := kind.Spec()
	var ra []policy.EnvoyPath
	ws := spec.FieldWrites(key)
	for _, w := range ws {
		if strings.HasPrefix(string(w), "route.") {
			ra = append(ra, w)
		}
	}
	whole := len(ws) > 0 && len(ra) == len(ws)
	for _, fs := range spec.Fields {
		if fs.Key == key && fs.ForwardingOnly {
			whole = true
		}
	}
	return whole, ra
}

// FieldForwardingOn is the verdict on field key of kind on the routes of
// rule (along path for a delegated rule's copy; nil: its Own merge).
func (r *Result) FieldForwardingOn(kind policy.Kind, key string, rule *topology.Rule, path *RulePath) ForwardingVerdict {
	whole, ra := forwardingPaths(kind, key)
	v := ForwardingVerdict{RouteAction: ra, Whole: whole}
	switch {
	case redirects(rule):
		v.Answer = "a redirect"
	default:
		if _, ok := r.answered(rule, path); ok {
			v.Answer = "a direct response"
		}
	}
	return v
}
