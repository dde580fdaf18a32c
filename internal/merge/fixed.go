package merge

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// FixedStatus is the status a rule answers every request with instead of
// forwarding, and why.
type FixedStatus struct {
	Status  int
	Reasons []string
}

// Verdict is the route validation of the controller managing gw
// (policy.Family.ValidateRoute, attach.Result.Verdicts): nil when none validates
// rt there, and then the Gateway API's own checks decide.
func (r *Result) Verdict(rt *topology.Route, gw *topology.Gateway) *policy.RouteVerdict {
	if r.Attach == nil || rt == nil || gw == nil {
		return nil
	}
	byCtrl := r.Attach.Verdicts[rt]
	if len(byCtrl) == 0 {
		return nil // the common case: no controller validates the route
	}
	ctrl, _ := r.Graph.Controller(gw, "")
	return byCtrl[ctrl]
}

// LeftOut reports whether the controller managing gw leaves the rule of rt
// out of its configuration altogether (a dropped rule without a direct
// response): render emits no route for it, and its requests go to the next
// route that matches them.
func (r *Result) LeftOut(rt *topology.Route, rule *topology.Rule, gw *topology.Gateway) (policy.RuleFate, bool) {
	f, ok := r.Verdict(rt, gw).Fate(rule.Index)
	return f, ok && f.Status == 0
}

// FixedStatusOn is FixedStatus for the rule as the controller managing gw
// serves it: a rule its route validation (policy.Family.ValidateRoute)
// keeps but answers (a 500 for filters it refuses) answers that, whatever
// else the rule does; and a
// backendRef it refuses takes no traffic, like one that does not resolve.
// A rule the controller leaves out (LeftOut) answers nothing.
func (r *Result) FixedStatusOn(rt *topology.Route, rule *topology.Rule, gw *topology.Gateway) (FixedStatus, bool) {
	return r.FixedStatusAlong(rt, rule, nil, gw)
}

// FixedStatusAlong is FixedStatusOn (FixedStatus when gw is nil) for a
// delegated rule's copy along one parent path (nil: its Own merge): a
// policy its parents pass down may answer that copy only, as render
// answers each copy from its own merge.
func (r *Result) FixedStatusAlong(rt *topology.Route, rule *topology.Rule, path *RulePath, gw *topology.Gateway) (FixedStatus, bool) {
	if gw == nil {
		return r.fixedStatus(rule, path, usable, nil)
	}
	v := r.Verdict(rt, gw)
	if f, ok := v.Fate(rule.Index); ok {
		if f.Status == 0 {
			return FixedStatus{}, false
		}
		what := "refused"
		if f.Dropped {
			what = "dropped"
		}
		return FixedStatus{Status: f.Status, Reasons: []string{fmt.Sprintf("%s by %s (%s): %s", what, controllerOf(r, gw), f.Reason, f.Message)}}, true
	}
	if fs, ok := r.noBackendAlong(rt, rule, path, gw); ok {
		return fs, true
	}
	return r.fixedStatus(rule, path, r.usableOn(v, rule, gw), gw)
}

// NoBackendOn reports whether the controller managing gw, which validates
// rt (policy.Family.ValidateRoute), answers the rule 500 because none of
// its backendRefs takes traffic (none at all, not resolved, refused,
// weight 0): a controller validating its routes decides it while
// translating the route, before any policy applies, unless the rule
// redirects or its filters answer it.
func (r *Result) NoBackendOn(rt *topology.Route, rule *topology.Rule, gw *topology.Gateway) (FixedStatus, bool) {
	return r.noBackendAlong(rt, rule, nil, gw)
}

// noBackendAlong is NoBackendOn for a delegated rule's copy along path.
func (r *Result) noBackendAlong(rt *topology.Route, rule *topology.Rule, path *RulePath, gw *topology.Gateway) (FixedStatus, bool) {
	v := r.Verdict(rt, gw)
	if v == nil || rule.IsDelegating() || redirects(rule) {
		return FixedStatus{}, false
	}
	if _, ok := r.answered(rule, path); ok {
		return FixedStatus{}, false
	}
	if len(rule.Backends) == 0 {
		return FixedStatus{Status: 500, Reasons: []string{"no backendRefs: " + controllerOf(r, gw) + " has nothing to forward to"}}, true
	}
	return r.noUsableBackendOn(rule, r.usableOn(v, rule, gw), gw)
}

// usableOn is usable with the backendRefs v refuses taking no traffic.
func (r *Result) usableOn(v *policy.RouteVerdict, rule *topology.Rule, gw *topology.Gateway) func(int, *topology.Backend) (string, bool) {
	return func(i int, b *topology.Backend) (string, bool) {
		if rf, ok := v.Refusal(rule.Index, i); ok {
			return fmt.Sprintf("backendRef %s %s/%s is refused by %s (%s): %s", b.Kind, b.Namespace, b.Name, controllerOf(r, gw), rf.Reason, rf.Message), false
		}
		return usable(i, b)
	}
}

// controllerOf names the controller managing gw.
func controllerOf(r *Result, gw *topology.Gateway) string {
	ctrl, _ := r.Graph.Controller(gw, "")
	return ctrl
}

// BackendRefused is why the controller managing gw refuses backendRef i of
// the rule of rt (false when it does not): it then takes no traffic, like
// a backendRef that does not resolve.
func (r *Result) BackendRefused(rt *topology.Route, rule *topology.Rule, i int, gw *topology.Gateway) (policy.RefusedBackend, bool) {
	return r.Verdict(rt, gw).Refusal(rule.Index, i)
}

// FixedStatus reports whether a rule answers a fixed status: 503 when a
// policy kind that fails closed made it unusable, 500 when another broken
// policy reference did, when the rule cannot be translated as written
// (topology.RuleProblem, not dropped) or, unless it redirects, when nothing
// gives it an action (no backendRefs, NoAction: a controller with a
// NoActionReason replaces it) or none of its backendRefs can take traffic
// (not found, not permitted without a ReferenceGrant, an unsupported kind;
// weight 0), as gateways answer. Views report it; the renderer emits the
// same response (a test over every fixture and shared case holds the two
// together). It is the default controller's answer (FixedStatusOn: a
// Gateway's).
func (r *Result) FixedStatus(rule *topology.Rule) (FixedStatus, bool) {
	return r.fixedStatus(rule, nil, usable, nil)
}

// fixedStatus is FixedStatus with the backendRefs judged by use: why one
// takes no traffic (when it does not) and whether it does; gw is the
// Gateway whose controller answers (nil: the default controller).
func (r *Result) fixedStatus(rule *topology.Rule, path *RulePath, use func(int, *topology.Backend) (string, bool), gw *topology.Gateway) (FixedStatus, bool) {
	if bs := r.Attach.BrokenOn(rule, gw); len(bs) > 0 {
		fs := FixedStatus{Status: 500}
		for _, b := range bs {
			if b.Kind != nil && b.Kind.Spec().FailClosed {
				fs.Status = 503
			}
			fs.Reasons = append(fs.Reasons, b.Code+": "+b.Reason)
		}
		return fs, true
	}
	if p := r.ProblemOf(rule, path, gw); p != nil {
		if p.Dropped {
			// left out of the config: it answers nothing, its requests
			// go to the next route that matches them
			return FixedStatus{}, false
		}
		return FixedStatus{Status: 500, Reasons: []string{"replaced: " + p.Message}}, true
	}
	if rule.IsDelegating() {
		return delegatesToNothing(rule)
	}
	if redirects(rule) {
		return FixedStatus{}, false // it answers the redirect, backends or not
	}
	if fs, ok := r.answered(rule, path); ok {
		return fs, true
	}
	if len(rule.Backends) == 0 {
		if why := r.NoActionReason(gw); why != "" {
			return FixedStatus{Status: 500, Reasons: []string{"replaced: " + why}}, true
		}
		return FixedStatus{Status: 500, Reasons: []string{"no backendRefs: nothing to forward to"}}, true
	}
	return r.noUsableBackendOn(rule, use, gw)
}

// noUsableBackendOn is noUsableBackend under the controller managing gw:
// one that forwards a rule's lone backendRef whatever its weight
// (LoneBackendForwards) takes its weight 0 as a weight.
func (r *Result) noUsableBackendOn(rule *topology.Rule, use func(int, *topology.Backend) (string, bool), gw *topology.Gateway) (FixedStatus, bool) {
	if len(rule.Backends) == 1 && rule.Backends[0].Weight <= 0 && r.LoneBackendForwards(gw) {
		b := *rule.Backends[0]
		ref := *b.BackendRef
		ref.Weight = 1
		b.BackendRef = &ref
		return noUsableBackend(&topology.Rule{Rule: rule.Rule, Backends: []*topology.Backend{&b}}, use)
	}
	return noUsableBackend(rule, use)
}

// LoneBackendForwards reports whether the controller managing gw (the
// default one when gw is nil) forwards a rule's only backendRef whatever
// its weight (policy.Controller.LoneBackendIgnoresWeight).
func (r *Result) LoneBackendForwards(gw *topology.Gateway) bool {
	if r.Graph == nil || r.Registry == nil {
		return false
	}
	name, _ := r.Graph.Controller(gw, r.Registry.DefaultController().Name)
	c, _ := r.Registry.Controller(name)
	return c.LoneBackendIgnoresWeight
}

// NoActionReason is why the controller managing gw (the default one when
// gw is nil) replaces a rule that nothing gives an action
// (policy.Controller.NoActionReason); "" when it answers such a rule 500
// as one with no usable backend.
func (r *Result) NoActionReason(gw *topology.Gateway) string {
	if r.Graph == nil || r.Registry == nil {
		return ""
	}
	name, _ := r.Graph.Controller(gw, r.Registry.DefaultController().Name)
	c, _ := r.Registry.Controller(name)
	return c.NoActionReason
}

// NoAction reports whether nothing gives the rule an action: no
// backendRefs, no redirect, no policy answering it, and nothing else
// already broke or replaced it.
func (r *Result) NoAction(rule *topology.Rule) bool {
	if len(rule.Backends) > 0 || len(r.Attach.Broken[rule]) > 0 || rule.Problems.Replace() || rule.IsDelegating() || redirects(rule) {
		return false
	}
	_, answered := r.answered(rule, nil)
	return !answered
}

// answered: a policy of the rule answers it itself (a kind implementing
// policy.Answerer: a direct response), with the status render writes; for a
// delegated rule's copy, a policy of its merge along path (nil: Own).
func (r *Result) answered(rule *topology.Rule, path *RulePath) (FixedStatus, bool) {
	var own Points
	if path != nil {
		own = path.Own
	} else if rp := r.Rule(rule); rp != nil {
		own = rp.Own
	}
	for _, pt := range own {
		a, ok := pt.Kind.(policy.Answerer)
		if !ok {
			continue
		}
		for _, f := range pt.Fields {
			if len(f.Values) == 0 {
				continue
			}
			if st, ok := a.Answer(f.Key, f.Values[0]); ok {
				return FixedStatus{Status: st, Reasons: []string{"answered by " + f.Owner.Policy.ID()}}, true
			}
		}
	}
	return FixedStatus{}, false
}

// redirects reports whether a rule answers with a RequestRedirect filter.
func redirects(rule *topology.Rule) bool {
	if rule.Rule == nil || rule.HTTP == nil {
		return false
	}
	for _, f := range rule.HTTP.Filters {
		if f.RequestRedirect != nil {
			return true
		}
	}
	return false
}

// noUsableBackend: a rule none of whose backendRefs can take traffic
// (none resolves, or only weight 0) answers 500, as the
// Gateway API asks; render writes a direct response, or (a target with
// policy.Target.Blackhole) a route to a cluster no resource defines,
// which Envoy answers 500.
func noUsableBackend(rule *topology.Rule, use func(int, *topology.Backend) (string, bool)) (FixedStatus, bool) {
	fs := FixedStatus{Status: 500}
	for i, b := range rule.Backends {
		why, ok := use(i, b)
		if ok {
			return FixedStatus{}, false
		}
		fs.Reasons = append(fs.Reasons, why)
	}
	return fs, true
}

// usable: a backendRef takes traffic when it resolves and has a weight;
// else why not.
func usable(_ int, b *topology.Backend) (string, bool) {
	switch {
	case !b.Resolved:
		return fmt.Sprintf("backendRef %s %s/%s: %s: %s", b.Kind, b.Namespace, b.Name, b.Reason, b.Message), false
	case b.Weight <= 0:
		return fmt.Sprintf("backendRef %s %s/%s has weight 0", b.Kind, b.Namespace, b.Name), false
	}
	return "", true
}

// delegatesToNothing: a delegating rule none of whose backendRefs selects
// a route it can serve (GWP211) or whose backendRefs close a delegation
// cycle (GWP210) answers 500, as a rule none of whose backendRefs
// resolves does (noUsableBackend).
func delegatesToNothing(rule *topology.Rule) (FixedStatus, bool) {
	fs := FixedStatus{Status: 500}
	for _, b := range rule.Backends {
		if b.Why == "" {
			return FixedStatus{}, false
		}
		if b.ClosesCycle {
			fs.Reasons = append(fs.Reasons, topology.LintDelegationCycle.Code+": its backendRef is refused: "+b.Why)
			continue
		}
		fs.Reasons = append(fs.Reasons, topology.LintDelegationToNothing.Code+": its backendRef delegates to no route: "+b.Why)
	}
	return fs, len(fs.Reasons) > 0
}
