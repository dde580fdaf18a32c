package kgateway

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// reservedPorts are ports kgateway keeps for the proxy itself (9091: its
// readiness and stats endpoint); a listener may not use them.
var reservedPorts = map[gwv1.PortNumber]bool{9091: true}

// judgeListeners is kgateway's verdict on the listeners of one of its
// Gateways (policy.Family.Listeners): their conditions, and which it
// builds no filter chain for. No setting changes it.
func judgeListeners(g *topology.Graph, gw *topology.Gateway, _ policy.Config) []diag.Diagnostic {
	busy := busyStreamPorts(gw)
	for _, l := range gw.Listeners {
		l.Conditions = listenerConditions(g, l, busy)
	}
	return nil
}

// listenerConditions are the conditions kgateway writes for a listener:
// Accepted, Conflicted, Programmed and ResolvedRefs, the Gateway API's
// with kgateway's own rules — HTTP, HTTPS, TCP and TLS only (another
// protocol is refused yet reported programmed), a reserved port refused
// and not served, and a TCP or TLS listener on a port where it programs
// no route not programmed. It sets l.Unserved.
func listenerConditions(g *topology.Graph, l *topology.Listener, busy map[gwv1.PortNumber]bool) []metav1.Condition {
	l.Unserved = ""
	accepted := topology.Cond("Accepted", true, "Accepted", "Listener is accepted")
	programmedOK := true // an unsupported protocol is reported programmed
	switch l.Protocol {
	case gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType, gwv1.TCPProtocolType, gwv1.TLSProtocolType:
		// kgateway serves all four; gwpol renders the HTTP ones only.
	default:
		// it builds nothing for it (render leaves it out, lint says so),
		// though it reports it programmed
		accepted = topology.Cond("Accepted", false, "UnsupportedProtocol", fmt.Sprintf("protocol %s is not supported; a listener is HTTP, HTTPS, TCP or TLS", l.Protocol))
		// validateSupportedRoutes drops it before the Gateway's listeners
		// are counted: it is not one of the Gateway's valid listeners
		l.Unserved = topology.UnservedProtocol
	}
	conflicted := topology.ConflictCondition(l)
	if l.Conflicted {
		accepted = topology.Cond("Accepted", false, conflicted.Reason, conflicted.Message)
		programmedOK = false
	}
	if reservedPorts[l.Port] && accepted.Status == metav1.ConditionTrue { // an unsupported protocol is refused first
		msg := fmt.Sprintf("invalid port %d in listener: port is reserved", l.Port)
		conflicted = topology.Cond("Conflicted", true, "Invalid", msg)
		accepted = topology.Cond("Accepted", false, "Invalid", msg)
		l.Unserved, programmedOK = topology.UnservedReservedPort, false
	}
	refs := topology.Cond("ResolvedRefs", true, "ResolvedRefs", "All references resolved")
	if kinds := topology.InvalidRouteKinds(l); len(kinds) > 0 {
		refs = topology.Cond("ResolvedRefs", false, "InvalidRouteKinds", fmt.Sprintf("Found invalid route kinds: %v", kinds))
		if len(kinds) == len(l.AllowedRoutes.Kinds) && l.Unserved == "" {
			l.Unserved = topology.UnservedRouteKinds // nothing it could carry: kgateway drops it
		}
	}
	// One unusable frontend CA refuses the listener: kgateway reports it
	// NoValidCACertificate even when other CAs are usable (its
	// frontendtlsconfig translator cases), and serves none of it, where
	// the Gateway API refuses a listener only when no CA is usable.
	accepted, programmedOK, refs = g.TLSConditions(l, accepted, programmedOK, refs, topology.AnyUnusableCARefuses)
	programmed := topology.ProgrammedCondition(l, accepted, programmedOK, refs)
	if l.Conflicted {
		// rejectConflictedListener writes the conflict's reason on
		// Programmed too
		programmed = topology.Cond("Programmed", false, conflicted.Reason, conflicted.Message)
	}
	if programmedOK && topology.IsStream(l.Protocol) && !busy[l.Port] {
		programmed = topology.Cond("Programmed", false, "Invalid", "TCP/TLS listener has no valid backends or routes")
	}
	return []metav1.Condition{accepted, conflicted, programmed, refs}
}

// busyStreamPorts are the ports of a Gateway where a TCP or TLS listener
// has a route kgateway programs (topology.Listener.StreamRoutes). A TCP
// or TLS listener on any other port gets no filter chain from kgateway,
// so it is not programmed.
func busyStreamPorts(gw *topology.Gateway) map[gwv1.PortNumber]bool {
	busy := map[gwv1.PortNumber]bool{}
	for _, l := range gw.Listeners {
		if topology.IsStream(l.Protocol) && len(l.StreamRoutes()) > 0 {
			busy[l.Port] = true
		}
	}
	return busy
}
