package topology

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
)

// Controller is what topology applies of one controller's own rules to
// the Gateways it manages (Options.Controllers, by controllerName): how
// its messages name it, and its verdict on their listeners. The
// controller's family declares it and internal/pipeline passes it in, so
// that topology computes what the Gateway API says and stores each
// controller's verdict beside it, naming none.
type Controller struct {
	// Title is how messages name the controller.
	Title string
	// Listeners judges the listeners of gw by the controller's own rules.
	// It runs once the Gateway API's conditions are set (each listener's
	// Conditions and Unserved on the way in), replaces both on every
	// listener it judges, and returns its findings. The stored verdict is
	// what status reports and render serves. Nil: the Gateway API's
	// conditions stand.
	Listeners func(g *Graph, gw *Gateway) []diag.Diagnostic
	// TLSOptions reads the tls.options of its Gateways' HTTPS listeners
	// (TLSOptionParser). Nil: Options.TLSOptions.
	TLSOptions TLSOptionParser
	// StreamRoutes is which routes a TCP or TLS listener of its Gateways
	// programs (StreamRouteRule); unset: Options.StreamRoutes.
	StreamRoutes StreamRouteRule
	// Conflicts marks the listeners of gw that share a port in a way the
	// controller refuses (Listener.Conflicted, ConflictReason), by its
	// own rules, in place of the Gateway API's (markConflicts). It runs
	// before routes attach, so a conflicted listener takes none. Nil: the
	// Gateway API's rules.
	Conflicts func(gw *Gateway)
	// ConflictsInVerdict: the controller decides which listeners conflict
	// in its verdict on them (Listeners), which sets Listener.Conflicted
	// and ConflictReason with their conditions, so that status, render,
	// lint and explain read one decision; neither Conflicts nor the
	// Gateway API's rules mark any before routes attach, as the
	// controller attaches a route to a listener whatever its conflicts
	// (by kind, namespace and hostname alone) and counts it there, while
	// serving nothing through a conflicted one.
	ConflictsInVerdict bool
	// ExclusiveListenerHostnames: a hostname that is a listener's own is
	// served on its port by that listener alone, so a route hostname
	// equal to it is left out of the other listeners of the port (the
	// route then intersects them only by its other hostnames, or not at
	// all: NoMatchingListenerHostname). A route without hostnames takes
	// each listener's hostname as it is.
	ExclusiveListenerHostnames bool
	// AdmissionFirst: why a parentRef attaches to no listener is decided
	// first by whether any listener of its parent (the Gateway's own, or
	// the ListenerSet's) admits the route's kind and namespace, whichever
	// listener its sectionName and port select: NotAllowedByListeners
	// only when none does; NoMatchingParent when none of those that do is
	// one it selects; then NoMatchingListenerHostname. Unset: the Gateway
	// API's order, which judges only the selected listeners.
	AdmissionFirst bool
	// NoListenersNotValid: a Gateway with no listener at all (none of its
	// own, none of an attached ListenerSet's) is not valid, as one whose
	// every listener is refused while the Gateway is validated:
	// Accepted=False, ListenersNotValid, and not programmed. Unset: such
	// a Gateway is accepted and programmed.
	NoListenersNotValid bool
	// ListenerSetConditions are the conditions the controller writes on
	// a ListenerSet naming one of its Gateways — attached (Parent set,
	// its listeners judged) or refused (Reason says why) — in place of
	// the Gateway API's wording (ListenerSetConditions). Nil: those.
	ListenerSetConditions func(s *ListenerSet) []metav1.Condition
	// Unwatched says why the controller does not read routes of a kind
	// under its deployment ("" when it reads them): a route of such a
	// kind attaches to none of its Gateways (Parent.Unwatched), takes no
	// status from it and no traffic. Nil: it reads every route kind.
	Unwatched func(kind string) string
	// UnreadListenerSets says why the controller does not read listener
	// sets of a kind other than the v1 ListenerSet (the experimental
	// XListenerSet) under its deployment ("" when it reads them, as the
	// v1 kind): such a set attaches to none of its Gateways, its
	// listeners are not served, the routes and policies naming it attach
	// to nothing there and it takes no status (LintListenerNotServed).
	// Nil: it reads the v1 kind alone.
	UnreadListenerSets func(gk model.GroupKind) string
	// Grants is how the controller matches a ReferenceGrant's groups
	// against a reference (model.GrantRule): its Gateways' certificate
	// and CA references and its routes' backendRefs are judged by it
	// (Graph.GrantRule, Graph.RouteGrantRule). Zero: groups as written.
	Grants model.GrantRule
	// Gateway is the controller's verdict on a whole Gateway before it
	// translates any of it (its parameters, its addresses), with its
	// findings: a Refusal with a reason refuses it, and the reason and
	// message are its Accepted=False condition. Nothing of a refused Gateway is
	// translated (Gateway.Refused): it has no listeners, a ListenerSet
	// naming it is not attached, a route's parentRef to it attaches
	// nowhere and its controller writes no status there
	// (Parent.Declined), and a policy targeting it or its listeners
	// attaches to nothing. Nil: every Gateway is accepted.
	Gateway func(m *model.Model, gw *model.Gateway) (Refusal, []diag.Diagnostic)
	// Reported is what the controller's status reporter writes on a
	// Gateway it translates whole, over the conditions translation gives
	// it (its spec.addresses, say): each condition replaces the Gateway's
	// own of its type (Gateway.Reported), after the listeners' verdict,
	// and nothing else changes — its listeners are judged, served and
	// attached to as before. Decided once when the graph is built; status
	// and explain read it, lint reports the findings. Nil: none.
	Reported func(m *model.Model, gw *model.Gateway) ([]metav1.Condition, []diag.Diagnostic)
	// BackendGroups are the API groups in which the controller reads a
	// backendRef by its kind alone: a backendRef giving one of them names
	// the Service, or the backend kind of that name registered in one of
	// them (Options.BackendKinds), whichever of them it gives (Envoy
	// Gateway: validateBackendRefGroup admits these groups and
	// processDestination switches on the kind). A ReferenceGrant is still
	// matched against the group as written. Nil: group and kind as
	// written.
	BackendGroups []string
}

// judgeListeners sets the conditions of gw's listeners: the Gateway API's,
// then its controller's own verdict (Controller.Listeners); a listener
// left unserved is reported (LintListenerNotServed) naming that
// controller.
func (g *Graph) judgeListeners(gw *Gateway) {
	name, managed := g.Controller(gw, g.fallback)
	ctrl, registered := g.controllers[name]
	for _, l := range gw.Listeners {
		if managed && registered && ctrl.TLSOptions != nil {
			l.tlsOptions = ctrl.TLSOptions // its own reading of tls.options
		}
		l.Conditions = listenerConditions(g, l)
	}
	if !managed {
		ctrl = Controller{}
	}
	if ctrl.Listeners != nil {
		g.Diagnostics = append(g.Diagnostics, ctrl.Listeners(g, gw)...)
	}
	for _, l := range gw.Listeners {
		if l.Unserved != "" {
			g.Diagnostics = append(g.Diagnostics, g.notServed(l))
		}
	}
}

// controllerOf is the registered controller of gw (Graph.Controller, with
// Options.Controller for a Gateway whose class the input does not name);
// the zero Controller when none is registered or in view.
func (g *Graph) controllerOf(gw *Gateway) Controller {
	name, managed := g.Controller(gw, g.fallback)
	if !managed {
		return Controller{}
	}
	return g.controllers[name]
}

// GrantRule is how gw's controller matches ReferenceGrants
// (Controller.Grants); the zero rule when none is registered.
func (g *Graph) GrantRule(gw *Gateway) model.GrantRule {
	return g.controllerOf(gw).Grants
}

// routeBackendGroups are the groups in which the controllers of r's
// parents read a backendRef by its kind alone (Controller.BackendGroups):
// a route's backendRef is resolved once, so only when every controller
// with a parent of r reads them so; a route with no such parent takes
// the configured controller's (Options.Controller).
func (g *Graph) routeBackendGroups(r *Route) []string {
	var groups []string
	seen := false
	for _, p := range r.Parents {
		gw := p.Gateway
		if gw == nil {
			gw = p.Declined
		}
		if gw == nil {
			continue
		}
		own := g.controllerOf(gw).BackendGroups
		if !seen {
			groups, seen = own, true
		} else if !slices.Equal(own, groups) {
			return nil
		}
	}
	if !seen {
		return g.controllers[g.fallback].BackendGroups
	}
	return groups
}

// RouteGrantRule is how the controllers of r's parents match the
// ReferenceGrants its backendRefs need (Controller.Grants): a route's
// backendRef is judged once, so a rule holds only when every controller
// with a parent of r (its Gateway, or the Gateway that declined its
// ListenerSet) has it; a route with no such parent (a delegated child)
// takes the configured controller's (Options.Controller).
func (g *Graph) RouteGrantRule(r *Route) model.GrantRule {
	var rule model.GrantRule
	seen := false
	for _, p := range r.Parents {
		gw := p.Gateway
		if gw == nil {
			gw = p.Declined
		}
		if gw == nil {
			continue
		}
		own := g.controllerOf(gw).Grants
		if !seen {
			rule, seen = own, true
		} else if own != rule {
			return model.GrantRule{}
		}
	}
	if !seen {
		return g.controllers[g.fallback].Grants
	}
	return rule
}
