package topology

import (
	"fmt"
	"slices"

	"github.com/gwpol/gwpol/internal/diag"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// StreamRoutes are the route attachments kgateway programs on a TCP or
// TLS listener, each as a tcp_proxy filter chain: on a TCP listener the
// oldest route attached only (then the first by kind, namespace and name,
// the order of l.Routes), on a TLS listener every one. A route counts when
// it has exactly one rule and that rule has backendRefs; kgateway
// programs nothing for the others. Render builds the chains from them,
// and a TCP or TLS port where no listener has one is not programmed.
func (l *Listener) StreamRoutes() []*Attachment {
	var atts []*Attachment
	switch {
	case len(l.Routes) == 0:
		return nil
	case l.Protocol == gwv1.TCPProtocolType:
		atts = []*Attachment{oldestRoute(l.Routes)}
	case l.Protocol == gwv1.TLSProtocolType:
		atts = l.Routes
	default:
		return nil
	}
	return slices.DeleteFunc(slices.Clone(atts), func(a *Attachment) bool { return !programmable(a.Route) })
}

// programmable: kgateway programs a TCPRoute or TLSRoute with exactly one
// rule, with backendRefs.
func programmable(r *Route) bool { return len(r.Rules) == 1 && len(r.Rules[0].Backends) > 0 }

// oldestRoute is the attachment of the oldest route (the first of the
// oldest in the order given when several are as old).
func oldestRoute(atts []*Attachment) *Attachment {
	return slices.MinFunc(atts, func(a, b *Attachment) int {
		return a.Route.Meta.CreationTimestamp.Compare(b.Route.Meta.CreationTimestamp.Time)
	})
}

// unprogrammedStreamRoutes reports (GWP213) every route a TCP or TLS
// listener of gw accepts but does not program (StreamRoutes), once per
// route and listener, at the field that keeps it out.
func unprogrammedStreamRoutes(gw *Gateway) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, l := range gw.Listeners {
		if !IsStream(l.Protocol) || len(l.Routes) == 0 {
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
			field, why := streamWhy(l, a)
			r := a.Route
			out = append(out, diag.Diagnostic{Code: LintStreamRouteNotProgrammed.Code, Severity: LintStreamRouteNotProgrammed.Severity,
				Object: r.Key().Ref(), Field: field, Pos: r.Src.KeyPos(field),
				Message: fmt.Sprintf("%s %s/%s is accepted by %s listener %s but carries no connection: %s", r.Kind, r.Meta.Namespace, r.Meta.Name, l.Protocol, l.ID(), why)})
		}
	}
	return out
}

// StreamRouteGap says why kgateway programs no filter chain for a route
// attached to a TCP or TLS listener, "" when it programs one.
func (l *Listener) StreamRouteGap(a *Attachment) string {
	if slices.Contains(l.StreamRoutes(), a) {
		return ""
	}
	_, why := streamWhy(l, a)
	return why
}

// streamWhy says why a route attached to a stream listener gets no
// filter chain, and at which field. Past the route's own rules, only a
// TCP listener leaves a route out: it serves the oldest.
func streamWhy(l *Listener, a *Attachment) (string, string) {
	r := a.Route
	switch {
	case len(r.Rules) != 1:
		return "spec.rules", fmt.Sprintf("it has %d rules, and %s programs a %s only with exactly one", len(r.Rules), l.Gateway.controllerTitle(), r.Kind)
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
