package status

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// verdictConditions are a route parent's conditions from the verdict of
// a controller that validates routes itself (policy.Family.ValidateRoute):
// Accepted from the parent's attachment, turned False when the
// controller drops every rule; PartiallyInvalid "Dropped Rule(s) [i j]:
// …" when it drops some; ResolvedRefs False with the first unresolved
// reference's reason and every message (none when the controller
// refuses the route before resolving anything); then the controller's
// own, the route's and this parent's.
func verdictConditions(rt *topology.Route, p *topology.Parent, v *policy.RouteVerdict) []metav1.Condition {
	conds := topology.RouteParentConditions(rt, p)[:1] // Accepted
	if c, ok := v.NotAccepted[p.Index]; ok && !p.Accepted {
		conds[0] = metav1.Condition{Type: "Accepted", Status: metav1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message}
	}
	if len(v.Dropped) > 0 {
		// A rule may be dropped for several problems: each is said, the
		// rule counted once. A problem that drops several rules is said
		// once per rule (a controller may join every error into one
		// message), one of the route's own (RouteWide) once.
		var msgs, idx []string
		for i, d := range v.Dropped {
			if !d.RouteWide || i == 0 || d.Message != v.Dropped[i-1].Message {
				msgs = append(msgs, d.Message)
			}
			if i == 0 || d.Index != v.Dropped[i-1].Index {
				idx = append(idx, fmt.Sprint(d.Index))
			}
		}
		reasons := make([]string, len(v.Dropped))
		for i, d := range v.Dropped {
			reasons[i] = cmp.Or(d.Collected, d.Reason)
		}
		reason, msg := verdictReason(v, reasons), strings.Join(msgs, "\n")
		if len(idx) == len(rt.Rules) {
			conds = append(conds, metav1.Condition{Type: "Accepted", Status: metav1.ConditionFalse, Reason: reason, Message: msg})
		} else {
			conds = append(conds, metav1.Condition{Type: "PartiallyInvalid", Status: metav1.ConditionTrue, Reason: reason,
				Message: fmt.Sprintf("Dropped Rule(s) [%s]: %s", strings.Join(idx, " "), msg)})
		}
	}
	refs := metav1.Condition{Type: "ResolvedRefs", Status: metav1.ConditionTrue, Reason: "ResolvedRefs", Message: "Resolved all the Object references for the Route"}
	if len(v.Unresolved) > 0 {
		var msgs, reasons []string
		for _, c := range v.Unresolved {
			msgs = append(msgs, c.Message)
			reasons = append(reasons, c.Reason)
		}
		refs = metav1.Condition{Type: "ResolvedRefs", Status: metav1.ConditionFalse, Reason: verdictReason(v, reasons), Message: strings.Join(msgs, "\n")}
	}
	if !v.RefsUnjudged {
		conds = append(conds, refs)
	}
	for _, c := range slices.Concat(v.Conditions, v.ParentConditions[p.Index]) {
		conds = append(conds, metav1.Condition{Type: c.Type, Status: metav1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message})
	}
	return conds
}

// verdictReason is the reason of a condition the problems with reasons
// turn False: the first one's, or, for a controller that joins them, the
// distinct ones sorted and comma-joined.
func verdictReason(v *policy.RouteVerdict, reasons []string) string {
	if !v.JoinReasons {
		return reasons[0]
	}
	out := slices.Clone(reasons)
	slices.Sort(out)
	return strings.Join(slices.Compact(out), ",")
}
