package kgateway

import (
	"fmt"
	"slices"

	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// StreamRoutes is which routes kgateway programs on a TCP or TLS listener
// (policy.Family.StreamRoutes), each as a tcp_proxy filter chain: on a TCP
// listener the oldest route attached only (then the first by kind,
// namespace and name, the order of l.Routes), on a TLS listener every one.
// A route counts when it has exactly one rule and that rule has
// backendRefs; kgateway programs nothing for the others (its TCPRoute and
// TLSRoute translation builds one tcp_proxy from a route's single rule).
var StreamRoutes = topology.StreamRouteRule{Served: servedStreams, Why: streamWhy, Refused: refusedStreams}

// servedStreams are the attachments of the stream listener l kgateway
// programs.
func servedStreams(l *topology.Listener) []*topology.Attachment {
	return slices.DeleteFunc(slices.Clone(takenUp(l)), func(a *topology.Attachment) bool { return !programmable(a.Route) })
}

// takenUp are the attachments of the stream listener l kgateway builds a
// chain for, before it looks at their rules: on a TCP listener the
// oldest route's, on a TLS listener every one.
func takenUp(l *topology.Listener) []*topology.Attachment {
	if l.Protocol == gwv1.TCPProtocolType {
		return []*topology.Attachment{oldestRoute(l.Routes)}
	}
	return l.Routes
}

// programmable: kgateway programs a TCPRoute or TLSRoute with exactly one
// rule, with backendRefs.
func programmable(r *topology.Route) bool { return len(r.Rules) == 1 && len(r.Rules[0].Backends) > 0 }

// oldestRoute is the attachment of the oldest route (the first of the
// oldest in the order given when several are as old).
func oldestRoute(atts []*topology.Attachment) *topology.Attachment {
	return slices.MinFunc(atts, func(a, b *topology.Attachment) int {
		return a.Route.Meta.CreationTimestamp.Compare(b.Route.Meta.CreationTimestamp.Time)
	})
}

// streamWhy says why a route attached to a stream listener gets no
// filter chain, and at which field. Past the route's own rules, only a
// TCP listener leaves a route out: it serves the oldest.
func streamWhy(l *topology.Listener, a *topology.Attachment) (string, string) {
	r := a.Route
	switch {
	case len(r.Rules) != 1:
		return "spec.rules", fmt.Sprintf("it has %d rules, and %s programs a %s only with exactly one", len(r.Rules), l.Gateway.ControllerTitle(), r.Kind)
	case len(r.Rules[0].Backends) == 0:
		return r.Rules[0].Path, "its rule has no backendRefs"
	}
	oldest := oldestRoute(l.Routes).Route
	served := oldest.Kind + " " + oldest.Meta.Namespace + "/" + oldest.Meta.Name
	if !programmable(oldest) {
		served = "none (the oldest, " + served + ", cannot be programmed)"
	}
	return fmt.Sprintf("spec.parentRefs[%d]", a.Parent.Index),
		fmt.Sprintf("a TCP listener serves one route, the oldest (by creationTimestamp, then name); it serves %s", served)
}

// refusedStreams are the routes kgateway takes up for a chain on the
// stream listener l and then refuses (topology.StreamRouteRule.Refused):
// translateTcpFilterChain translates a TCPRoute or TLSRoute with exactly
// one rule, and marks one with any other number Accepted=False,
// UnsupportedValue, on each of its parentRefs. It takes up, on a TCP
// listener, the oldest route only, on a TLS listener every route (one
// chain each).
func refusedStreams(l *topology.Listener) map[*topology.Route]topology.Refusal {
	var out map[*topology.Route]topology.Refusal
	for _, a := range takenUp(l) {
		r := a.Route
		if len(r.Rules) == 1 {
			continue
		}
		if out == nil {
			out = map[*topology.Route]topology.Refusal{}
		}
		out[r] = topology.Refusal{Reason: "UnsupportedValue",
			Message: fmt.Sprintf("%s has %d rules; %s translates a %s with exactly one", r.Kind, len(r.Rules), l.Gateway.ControllerTitle(), r.Kind)}
	}
	return out
}
