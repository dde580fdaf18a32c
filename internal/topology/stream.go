package topology

import (
	"fmt"
	"slices"

	"github.com/gwpol/gwpol/internal/diag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// StreamRouteRule is which of the routes attached to a TCP or TLS
// listener its controller programs, each as a tcp_proxy filter chain of
// its own (policy.Family.StreamRoutes; Controller.StreamRoutes, and
// Options.StreamRoutes for a Gateway whose controller declares none).
type StreamRouteRule struct {
	// Served are the attachments of the stream listener l (it has
	// routes) the controller programs, in chain order.
	Served func(l *Listener) []*Attachment
	// Why says why the controller programs no chain for an attachment of
	// l that Served leaves out, and the field of the route that keeps it
	// out.
	Why func(l *Listener, a *Attachment) (field, why string)
	// Refused are the routes attached to the stream listener l (it has
	// routes) the controller takes up for a chain and then refuses to
	// translate, and the Accepted=False condition it writes on each of
	// their parentRefs (StreamRefusals). Nil: it refuses none.
	Refused func(l *Listener) map[*Route]Refusal
}

// Refusal is a controller's Accepted=False verdict on a route or a whole
// Gateway.
type Refusal struct {
	Reason, Message string
	// Conditions, on a Gateway, are what its controller writes there in
	// place of Accepted False with Reason and Message (a controller that
	// never gets to reconcile the Gateway and says so in Programmed);
	// nil: Accepted False.
	Conditions []metav1.Condition
}

// decideStreamRefusals records, on each TCP or TLS listener of gw with
// routes, the routes its controller refuses there (StreamRouteRule.Refused).
func decideStreamRefusals(gw *Gateway) {
	if gw.streams.Refused == nil {
		return
	}
	for _, l := range gw.Listeners {
		if IsStream(l.Protocol) && len(l.Routes) > 0 {
			l.refused = gw.streams.Refused(l)
		}
	}
}

// Refusal is the controller's refusal of route r on the stream listener
// l, if it refuses it there.
func (l *Listener) Refusal(r *Route) (Refusal, bool) {
	rf, ok := l.refused[r]
	return rf, ok
}

// StreamRefusals are the routes the controllers of g's Gateways refuse
// on a TCP or TLS listener, with the refusing Gateway (the first
// listener's, in Gateway and listener order): status writes the refusal
// on each of the route's parentRefs that Gateway's controller reports.
// It reads what Build decided.
func StreamRefusals(g *Graph) map[*Route]StreamRefusal {
	var out map[*Route]StreamRefusal
	for _, gw := range g.Gateways {
		for _, l := range gw.Listeners {
			for _, a := range l.Routes {
				rf, ok := l.refused[a.Route]
				if !ok {
					continue
				}
				if out == nil {
					out = map[*Route]StreamRefusal{}
				}
				if _, seen := out[a.Route]; !seen {
					out[a.Route] = StreamRefusal{Refusal: rf, Gateway: gw}
				}
			}
		}
	}
	return out
}

// StreamRefusal is a route's refusal by the controller of the Gateway
// whose stream listener it attaches to.
type StreamRefusal struct {
	Refusal
	Gateway *Gateway
}

// StreamRoutes are the route attachments the Gateway's controller
// programs on a TCP or TLS listener (StreamRouteRule), each as a
// tcp_proxy filter chain; without a rule, every route attached. Render
// builds the chains from them, and a TCP or TLS port where no listener
// has one is not programmed.
func (l *Listener) StreamRoutes() []*Attachment {
	if !IsStream(l.Protocol) && l.Protocol != gwv1.UDPProtocolType || len(l.Routes) == 0 {
		return nil
	}
	if rule := l.Gateway.streams; rule.Served != nil {
		return rule.Served(l)
	}
	return l.Routes
}

// unprogrammedStreamRoutes reports (GWP213) every route a TCP or TLS
// listener of gw accepts but does not program (StreamRoutes), once per
// route and listener, at the field that keeps it out.
func unprogrammedStreamRoutes(gw *Gateway) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, l := range gw.Listeners {
		// a UDP listener its controller serves is judged as a TCP one is
		// (one route per listener); one it does not serve is reported
		// whole (LintListenerNotServed)
		udp := l.Protocol == gwv1.UDPProtocolType && l.Unserved == ""
		if !IsStream(l.Protocol) && !udp || len(l.Routes) == 0 {
			continue
		}
		served := map[*Attachment]bool{}
		for _, a := range l.StreamRoutes() {
			served[a] = true
		}
		for _, a := range l.Routes {
			if served[a] {
				continue
			}
			field, why := l.streamWhy(a)
			r := a.Route
			verdict := fmt.Sprintf("is accepted by %s listener %s but", l.Protocol, l.ID())
			if rf, ok := l.refused[r]; ok {
				verdict = fmt.Sprintf("is refused (Accepted=False, %s) by %s listener %s and", rf.Reason, l.Protocol, l.ID())
			}
			out = append(out, diag.Diagnostic{Code: LintStreamRouteNotProgrammed.Code, Severity: LintStreamRouteNotProgrammed.Severity,
				Object: r.Key().Ref(), Field: field, Pos: r.Src.KeyPos(field),
				Message: fmt.Sprintf("%s %s/%s %s carries no connection: %s", r.Kind, r.Meta.Namespace, r.Meta.Name, verdict, why)})
		}
	}
	return out
}

// StreamRouteGap says why the Gateway's controller programs no filter
// chain for a route attached to a TCP or TLS listener, "" when it
// programs one.
func (l *Listener) StreamRouteGap(a *Attachment) string {
	if slices.Contains(l.StreamRoutes(), a) {
		return ""
	}
	_, why := l.streamWhy(a)
	if rf, ok := l.refused[a.Route]; ok {
		return fmt.Sprintf("refused (Accepted=False, %s): %s", rf.Reason, why)
	}
	return why
}

// streamWhy is the rule's reason an attachment of l gets no filter chain,
// and at which field.
func (l *Listener) streamWhy(a *Attachment) (string, string) {
	if rule := l.Gateway.streams; rule.Why != nil {
		return rule.Why(l, a)
	}
	return "", ""
}

// sniClaim is a filter chain's match on one port: a server name ("" for
// a chain that matches no name, i.e. every connection) and who made it.
type sniClaim struct {
	route *Route // nil for an HTTPS listener's chain
	who   string
}

// overlappingStreamChains reports (GWP214) the routes whose tcp_proxy
// chain would match a server name another chain on the same port matches
// already: Envoy rejects a listener with two chains matching alike, so
// nothing on the port is served. The first claim (listener order, then
// route order) stands; the later route is reported.
func overlappingStreamChains(gw *Gateway) []diag.Diagnostic {
	var out []diag.Diagnostic
	claims := map[gwv1.PortNumber]map[string]sniClaim{}
	for _, l := range gw.Listeners {
		if l.Conflicted || (l.Protocol != gwv1.HTTPSProtocolType && !IsStream(l.Protocol)) {
			continue
		}
		if claims[l.Port] == nil {
			claims[l.Port] = map[string]sniClaim{}
		}
		port := claims[l.Port]
		if l.Protocol == gwv1.HTTPSProtocolType {
			if _, ok := port[hostOf(l.Hostname)]; !ok {
				port[hostOf(l.Hostname)] = sniClaim{who: "HTTPS listener " + l.ID()}
			}
			continue
		}
		for _, a := range l.StreamRoutes() {
			out = append(out, claimNames(port, l, a)...)
		}
	}
	return out
}

// claimNames records the server names a route's chain matches on its
// port and reports the first one another chain matches already.
func claimNames(port map[string]sniClaim, l *Listener, a *Attachment) []diag.Diagnostic {
	r := a.Route
	names := []string{""}
	if r.Kind == "TLSRoute" && len(a.Hostnames) > 0 {
		names = a.Hostnames
	}
	for _, n := range names {
		prev, ok := port[n]
		if !ok || prev.route == r { // one route through two listeners shares one chain
			port[n] = sniClaim{route: r, who: r.Kind + " " + r.Meta.Namespace + "/" + r.Meta.Name}
			continue
		}
		match := "server name " + n
		if n == "" {
			match = "every connection (no server name)"
		}
		field := fmt.Sprintf("spec.parentRefs[%d]", a.Parent.Index)
		if len(r.Hostnames) > 0 {
			field = "spec.hostnames"
		}
		return []diag.Diagnostic{{Code: LintStreamChainsOverlap.Code, Severity: LintStreamChainsOverlap.Severity,
			Object: r.Key().Ref(), Field: field, Pos: r.Src.KeyPos(field),
			Message: fmt.Sprintf("%s %s/%s on listener %s matches %s on port %d, as %s does: Envoy rejects a listener whose filter chains match alike, so no route on the port is served — give each a hostname of its own",
				r.Kind, r.Meta.Namespace, r.Meta.Name, l.ID(), match, l.Port, prev.who)}}
	}
	return nil
}
