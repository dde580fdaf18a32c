package status

import (
	"fmt"
	"strings"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// verdictConditions are a route parent's conditions from the verdict of
// a controller that validates routes itself (policy.RouteValidator):
// Accepted from the parent's attachment, turned False when the
// controller drops every rule; PartiallyInvalid "Dropped Rule(s) [i j]:
// …" when it drops some; ResolvedRefs False with the first unresolved
// reference's reason and every message; then the controller's own.
func verdictConditions(rt *topology.Route, p *topology.Parent, v *policy.RouteVerdict) []metav1.Condition {
	conds := topology.RouteParentConditions(rt, p)[:1] // Accepted
	if n := len(v.Dropped); n > 0 {
		var msgs []string
		var idx []string
		for _, d := range v.Dropped {
			msgs = append(msgs, d.Message)
			idx = append(idx, fmt.Sprint(d.Index))
		}
		reason, msg := v.Dropped[0].Reason, strings.Join(msgs, "\n")
		if n == len(rt.Rules) {
			conds = append(conds, metav1.Condition{Type: "Accepted", Status: metav1.ConditionFalse, Reason: reason, Message: msg})
		} else {
			conds = append(conds, metav1.Condition{Type: "PartiallyInvalid", Status: metav1.ConditionTrue, Reason: reason,
				Message: fmt.Sprintf("Dropped Rule(s) [%s]: %s", strings.Join(idx, " "), msg)})
		}
	}
	refs := metav1.Condition{Type: "ResolvedRefs", Status: metav1.ConditionTrue, Reason: "ResolvedRefs", Message: "Resolved all the Object references for the Route"}
	if len(v.Unresolved) > 0 {
		var msgs []string
		for _, c := range v.Unresolved {
			msgs = append(msgs, c.Message)
		}
		refs = metav1.Condition{Type: "ResolvedRefs", Status: metav1.ConditionFalse, Reason: v.Unresolved[0].Reason, Message: strings.Join(msgs, "\n")}
	}
	conds = append(conds, refs)
	for _, c := range v.Conditions {
		conds = append(conds, metav1.Condition{Type: c.Type, Status: metav1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message})
	}
	return conds
}
