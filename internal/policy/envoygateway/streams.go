package envoygateway

import (
	"cmp"
	"fmt"
	"slices"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/topology"
)

// streamRoutes is which routes Envoy Gateway programs on a TCP or TLS
// listener (policy.Family.StreamRoutes), as its translator adds them to
// the listener's IR, route kind by route kind (translator.go: TLSRoutes,
// then TCPRoutes), each kind's routes in its provider's order
// (resource.go: Resources.Sort — creationTimestamp, then namespace and
// name):
//   - every TLSRoute on a TLS listener, each a chain matching its
//     hostnames by SNI (route.go: processTLSRouteParentRefs), its rules'
//     backendRefs pooled into one destination;
//   - the first TCPRoute of exactly one rule on a TCP listener, and on a
//     TLS listener no TLSRoute took (processTCPRouteParentRefs: only while
//     the listener has no route; every TCPRoute there is Accepted).
//
// A TCPRoute of another number of rules is refused (Accepted False,
// InvalidRule, the route verdict's ruleCountProblem) before it can take
// the listener. The TLSRoutes its route verdict refuses on a listener (a
// dynamic resolver where TLS terminates) are policy.RouteVerdict.UnservedOn,
// which render reads beside this rule.
var streamRoutes = topology.StreamRouteRule{Served: servedStreams, Why: streamWhy, Refused: refusedStreams}

// servedStreams are the attachments of the stream listener l Envoy
// Gateway programs, in the order it adds them.
func servedStreams(l *topology.Listener) []*topology.Attachment {
	if tls := ofKind(l, "TLSRoute"); l.Protocol == gwv1.TLSProtocolType && len(tls) > 0 {
		return tls
	}
	if first := firstOfOneRule(l, listenerRouteKind(l)); first != nil {
		return []*topology.Attachment{first}
	}
	return nil
}

// listenerRouteKind is the route kind one route of which a TCP or UDP
// listener serves: TCPRoute (on a TLS listener too, when no TLSRoute is
// there), UDPRoute on a UDP listener (route.go:
// processUDPRouteParentRefs, the oldest route only, as for TCP).
func listenerRouteKind(l *topology.Listener) string {
	if l.Protocol == gwv1.UDPProtocolType {
		return "UDPRoute"
	}
	return "TCPRoute"
}

// ofKind are the attachments of l of one route kind, in Envoy Gateway's
// order.
func ofKind(l *topology.Listener, kind string) []*topology.Attachment {
	var out []*topology.Attachment
	for _, a := range l.Routes {
		if a.Route.Kind == kind {
			out = append(out, a)
		}
	}
	slices.SortStableFunc(out, func(a, b *topology.Attachment) int { return providerOrder(a.Route, b.Route) })
	return out
}

// providerOrder is Resources.Sort's order of one route kind:
// creationTimestamp, then namespace, then name.
func providerOrder(a, b *topology.Route) int {
	if c := a.Meta.CreationTimestamp.Compare(b.Meta.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Or(cmp.Compare(a.Meta.Namespace, b.Meta.Namespace), cmp.Compare(a.Meta.Name, b.Meta.Name))
}

// firstOfOneRule is the route of kind Envoy Gateway programs on l: the
// first, in its order, of exactly one rule; nil when none is.
func firstOfOneRule(l *topology.Listener, kind string) *topology.Attachment {
	for _, a := range ofKind(l, kind) {
		if ruleCountProblem(a.Route.Route) == "" {
			return a
		}
	}
	return nil
}

// streamWhy says why Envoy Gateway programs no chain for an attachment
// of the stream listener l, and at which field.
func streamWhy(l *topology.Listener, a *topology.Attachment) (string, string) {
	r := a.Route
	if msg := ruleCountProblem(r.Route); msg != "" {
		return "spec.rules", fmt.Sprintf("it has %d rules, and Envoy Gateway translates a %s of exactly one (%q)", len(r.Rules), r.Kind, msg)
	}
	field := fmt.Sprintf("spec.parentRefs[%d]", a.Parent.Index)
	if l.Protocol == gwv1.TLSProtocolType && len(ofKind(l, "TLSRoute")) > 0 {
		return field, "a TLS listener with TLSRoutes serves those, and no TCPRoute"
	}
	kind := listenerRouteKind(l)
	served := firstOfOneRule(l, kind).Route
	return field, fmt.Sprintf("a %s listener serves one %s, the first of one rule by creationTimestamp, then namespace and name (all are Accepted); it serves %s %s/%s",
		l.Protocol, kind, kind, served.Meta.Namespace, served.Meta.Name)
}

// refusedStreams are the routes attached to the stream listener l that
// Envoy Gateway refuses there: a TCPRoute of other than one rule
// (Accepted False, InvalidRule, as the route verdict writes it).
func refusedStreams(l *topology.Listener) map[*topology.Route]topology.Refusal {
	var out map[*topology.Route]topology.Refusal
	for _, a := range l.Routes {
		msg := ruleCountProblem(a.Route.Route)
		if msg == "" {
			continue
		}
		if out == nil {
			out = map[*topology.Route]topology.Refusal{}
		}
		out[a.Route] = topology.Refusal{Reason: "InvalidRule", Message: msg}
	}
	return out
}
