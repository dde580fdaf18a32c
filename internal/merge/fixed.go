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

// FixedStatus reports whether a rule answers a fixed status: 503 when a
// policy kind that fails closed made it unusable, 500 when another broken
// policy reference did, when the rule cannot be translated as written
// (topology.RuleProblem, not dropped) or, unless it redirects, when nothing
// gives it an action (no backendRefs: kgateway replaces it, NoAction) or
// none of its backendRefs can take traffic (not found, not permitted
// without a ReferenceGrant, an unsupported kind; weight 0), as gateways
// answer. Views report it; the renderer emits the same response (a test
// over every fixture and shared case holds the two together).
func (r *Result) FixedStatus(rule *topology.Rule) (FixedStatus, bool) {
	if bs := r.Attach.Broken[rule]; len(bs) > 0 {
		fs := FixedStatus{Status: 500}
		for _, b := range bs {
			if b.Kind != nil && b.Kind.Spec().FailClosed {
				fs.Status = 503
			}
			fs.Reasons = append(fs.Reasons, b.Code+": "+b.Reason)
		}
		return fs, true
	}
	if p := rule.Problem; p != nil && !p.Dropped {
		return FixedStatus{Status: 500, Reasons: []string{"replaced: " + p.Message}}, true
	}
	if rule.IsDelegating() {
		return delegatesToNothing(rule)
	}
	if redirects(rule) {
		return FixedStatus{}, false // it answers the redirect, backends or not
	}
	if fs, ok := r.answered(rule); ok {
		return fs, true
	}
	if len(rule.Backends) == 0 {
		return FixedStatus{Status: 500, Reasons: []string{"replaced: " + NoActionReason}}, true
	}
	return noUsableBackend(rule)
}

// NoActionReason is why kgateway replaces a rule that neither forwards,
// redirects nor answers (RouteRuleReplaced).
const NoActionReason = "no action specified: the rule has no backendRefs and no filter that answers"

// NoAction reports whether kgateway replaces the rule because nothing
// gives it an action: no backendRefs, no redirect, no policy answering it,
// and nothing else already broke or replaced it.
func (r *Result) NoAction(rule *topology.Rule) bool {
	if len(rule.Backends) > 0 || len(r.Attach.Broken[rule]) > 0 || rule.Problem != nil || rule.IsDelegating() || redirects(rule) {
		return false
	}
	_, answered := r.answered(rule)
	return !answered
}

// answered: a policy of the rule answers it itself (policy.Answerer,
// kgateway's DirectResponse), with the status render writes.
func (r *Result) answered(rule *topology.Rule) (FixedStatus, bool) {
	rp := r.Rule(rule)
	if rp == nil {
		return FixedStatus{}, false
	}
	for _, pt := range rp.Own {
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
// Gateway API asks; render writes a direct response, or (kgateway) a route
// to a cluster that does not exist, which Envoy answers 500.
func noUsableBackend(rule *topology.Rule) (FixedStatus, bool) {
	fs := FixedStatus{Status: 500}
	for _, b := range rule.Backends {
		switch {
		case !b.Resolved:
			fs.Reasons = append(fs.Reasons, fmt.Sprintf("backendRef %s %s/%s: %s: %s", b.Kind, b.Namespace, b.Name, b.Reason, b.Message))
		case b.Weight <= 0:
			fs.Reasons = append(fs.Reasons, fmt.Sprintf("backendRef %s %s/%s has weight 0", b.Kind, b.Namespace, b.Name))
		default:
			return FixedStatus{}, false
		}
	}
	return fs, true
}

// delegatesToNothing: a delegating rule none of whose backendRefs selects
// a route it can serve (GWP211) or whose backendRefs close a delegation
// cycle (GWP210) answers 500, as kgateway answers it.
func delegatesToNothing(rule *topology.Rule) (FixedStatus, bool) {
	fs := FixedStatus{Status: 500}
	for _, b := range rule.Backends {
		if b.Why == "" {
			return FixedStatus{}, false
		}
		if b.Reason == "RefNotPermitted" { // refused: it closes a delegation cycle
			fs.Reasons = append(fs.Reasons, topology.LintDelegationCycle.Code+": its backendRef is refused: "+b.Why)
			continue
		}
		fs.Reasons = append(fs.Reasons, topology.LintDelegationToNothing.Code+": its backendRef delegates to no route: "+b.Why)
	}
	return fs, len(fs.Reasons) > 0
}
