package envoygateway

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/topology"
)

// listenerSetConditions implements policy.Family.ListenerSetConditions:
// what Envoy Gateway v1.9.0 writes on a ListenerSet naming one of its
// Gateways (listenerset.go). A set its Gateway refuses whole
// (processListenerSet: GatewayNotAccepted) or does not allow from its
// namespace is not attached, both conditions False with "Not
// Programmed"; an attached set's Accepted is its listeners' Accepted
// alone and its Programmed their Programmed alone, each all, some or none
// (ProcessListenerSetStatus).
func listenerSetConditions(s *topology.ListenerSet) []metav1.Condition {
	cond := func(typ string, ok bool, reason, msg string) metav1.Condition {
		st := metav1.ConditionFalse
		if ok {
			st = metav1.ConditionTrue
		}
		return metav1.Condition{Type: typ, Status: st, Reason: reason, Message: msg}
	}
	if s.Parent == nil {
		gw := s.Gateway
		switch s.Reason {
		case string(gwv1.ListenerSetReasonParentNotAccepted):
			return []metav1.Condition{
				cond("Accepted", false, s.Reason, fmt.Sprintf("Parent Gateway %s/%s not accepted", gw.Namespace, gw.Name)),
				cond("Programmed", false, string(gwv1.ListenerSetReasonProgrammed), "Not Programmed"),
			}
		case string(gwv1.ListenerSetReasonNotAllowed):
			return []metav1.Condition{
				cond("Accepted", false, s.Reason, fmt.Sprintf("ListenerSet attachment from namespace %s not allowed by Gateway %s/%s", s.Namespace, gw.Namespace, gw.Name)),
				cond("Programmed", false, s.Reason, "Not Programmed"),
			}
		}
		return []metav1.Condition{cond("Accepted", false, s.Reason, s.Message), cond("Programmed", false, s.Reason, s.Message)}
	}
	allAccepted, anyAccepted, allProgrammed, anyProgrammed := true, false, true, false
	for _, l := range s.Parent.Listeners {
		if l.Set != s {
			continue
		}
		accepted, programmed := conditionTrue(l.Conditions, "Accepted"), conditionTrue(l.Conditions, "Programmed")
		allAccepted, anyAccepted = allAccepted && accepted, anyAccepted || accepted
		allProgrammed, anyProgrammed = allProgrammed && programmed, anyProgrammed || programmed
	}
	var out []metav1.Condition
	switch {
	case allAccepted:
		out = append(out, cond("Accepted", true, string(gwv1.ListenerSetReasonAccepted), "All listeners are accepted"))
	case anyAccepted:
		out = append(out, cond("Accepted", true, string(gwv1.ListenerSetReasonListenersNotValid), "Some listeners are invalid"))
	default:
		out = append(out, cond("Accepted", false, string(gwv1.ListenerSetReasonListenersNotValid), "No listeners are accepted"))
	}
	switch {
	case allProgrammed:
		out = append(out, cond("Programmed", true, string(gwv1.ListenerSetReasonProgrammed), "All listeners are programmed"))
	case anyProgrammed:
		out = append(out, cond("Programmed", true, string(gwv1.ListenerSetReasonProgrammed), "Some listeners are not programmed"))
	default:
		out = append(out, cond("Programmed", false, string(gwv1.ListenerSetReasonListenersNotValid), "No listeners are programmed"))
	}
	return out
}

// conditionTrue: cs has a condition of type typ whose status is True.
func conditionTrue(cs []metav1.Condition, typ string) bool {
	for _, c := range cs {
		if c.Type == typ {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}
