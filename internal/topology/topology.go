package topology

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/parallel"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Options for Build.
type Options struct {
	// BackendKinds are backendRef kinds other than Service that a policy
	// package registered (policy.BackendProvider); a ref to one resolves
	// when the object exists.
	BackendKinds map[model.GroupKind]bool
	// PortlessBackendKinds are those of BackendKinds whose objects define
	// their own ports: a ref naming one with a port does not resolve.
	PortlessBackendKinds map[model.GroupKind]bool
	// RuleChecks are the controllers' checks of each route rule
	// (RuleCheck), run in order; each controller's problem is the rule's
	// on its Gateways.
	RuleChecks []RuleCheck
	// TLSOptions reads an HTTPS listener's tls.options (TLSOptionParser);
	// nil: none are read.
	TLSOptions TLSOptionParser
	// StreamRoutes is which routes a TCP or TLS listener programs on a
	// Gateway whose controller declares no rule of its own
	// (Controller.StreamRoutes); unset: every route attached.
	StreamRoutes StreamRouteRule
	// Keys are the family's annotation, label and option keys topology
	// reads (its package declares them).
	Keys Keys
	// Delegation is the controller's route delegation (DelegationRules;
	// policy.Registry.Delegation); unset, no backendRef delegates.
	Delegation DelegationRules
	// WeightedRoutePrecedence is a controller's setting
	// (policy.Controller.WeightedRoutePrecedence): a route's weight
	// annotation (Keys.RouteWeight) orders its Envoy routes first.
	WeightedRoutePrecedence bool
	// Controllers are the registered controllers' own rules, by
	// controllerName (Controller).
	Controllers map[string]Controller
	// Controller is the controllerName of a Gateway whose GatewayClass an
	// input without any GatewayClass does not name (Graph.Controller's
	// fallback: the configured controller).
	Controller string
	// ExtensionBackends are the backends the controller's extension
	// plugins register (policy.Registry.ExtensionBackends): a backendRef
	// of one of their kinds resolves to the one of that namespace, name
	// and port, and to nothing else.
	ExtensionBackends []ExtensionBackend
	// Classes are the controllers' verdicts on the GatewayClasses that
	// name them (ClassJudge); nil: no controller writes one.
	Classes ClassJudge
}

// ExtensionBackend is one backend a controller's extension plugin
// registers: not an object of the input, so it is named whole, with the
// port a backendRef must give (0: none).
type ExtensionBackend struct {
	Group, Kind, Namespace, Name string
	Port                         int32
}

// Graph is the resolved topology.
type Graph struct {
	Model    *model.Model
	Gateways []*Gateway // sorted by namespace/name
	Routes   []*Route   // sorted by kind/namespace/name

	Diagnostics []diag.Diagnostic
	// Classes are the controllers' verdicts on the input's GatewayClasses
	// (Options.Classes), by class name; nil when none has one.
	Classes map[string]*ClassVerdict

	undecided  map[undecidedKey]bool // listener × namespace already reported
	keys       Keys                  // Options.Keys
	ruleChecks []RuleCheck           // Options.RuleChecks
	tlsOptions TLSOptionParser       // Options.TLSOptions
	// controllers and fallback are Options.Controllers and
	// Options.Controller.
	controllers map[string]Controller
	fallback    string
	gateways    map[model.Key]*Gateway
	routes      map[model.Key]*Route
	sets        map[model.Key]*ListenerSet
	delegation  DelegationRules // Options.Delegation
	// httpRoutes indexes HTTPRoutes for delegation (link: built when a
	// backendRef first delegates).
	httpRoutes routeIndex
	// reportedDelegation: delegating backendRefs already reported while
	// flattening.
	reportedDelegation map[*Backend]bool
	// delegationFindings are the findings on delegating backendRefs whose
	// consequence for their rule is worded once its entries are judged
	// (wordDelegationFindings).
	delegationFindings []delegationFinding
}

// Gateway is a Gateway with its listeners (its own, then those of the
// ListenerSets attached to it).
type Gateway struct {
	*model.Gateway
	Listeners []*Listener
	Sets      []*ListenerSet

	title   string          // how messages name its controller (Controller.Title)
	streams StreamRouteRule // its controller's (Controller.StreamRoutes, else Options.StreamRoutes)
	// Refused is its controller's verdict refusing the whole Gateway
	// (Controller.Gateway, or its class's GatewayReport.Pending), decided
	// once when the graph is built; its
	// Reason is "" when the Gateway is accepted. Status, render, explain
	// and lint all read it.
	Refused Refusal
	// Reported are the conditions its controller's status reporter writes
	// over the Gateway's own of their types (Controller.Reported), decided
	// once when the graph is built; nil when it writes none. Status and
	// explain read them (GatewayConditions).
	Reported []metav1.Condition
	// NoListenerStatus: the controller of its class writes no listener
	// status on it (ClassVerdict.Gateway); status reports none.
	NoListenerStatus bool
	// portHosts counts, per port, the listeners with each hostname, when
	// its controller makes them exclusive
	// (Controller.ExclusiveListenerHostnames); nil otherwise.
	portHosts map[gwv1.PortNumber]map[string]int
}

// ControllerTitle names the Gateway's controller in messages.
func (gw *Gateway) ControllerTitle() string {
	if gw.title == "" {
		return "its controller"
	}
	return gw.title
}

// ListenerSet is a ListenerSet resolved to its parent Gateway.
type ListenerSet struct {
	*model.ListenerSet
	Parent   *Gateway // nil when the parent does not exist or refuses it
	Accepted bool
	Reason   string
	Message  string
	// own are its Gateway's controller's conditions for it
	// (Controller.ListenerSetConditions); nil: the Gateway API's.
	own func(s *ListenerSet) []metav1.Condition
	// Gateway is the Gateway it names when the input has it (Parent
	// too when that Gateway takes it; nil when there is none).
	Gateway *Gateway
}

// Listener is one listener of a Gateway or of a ListenerSet attached to it.
type Listener struct {
	// tlsOptions reads its tls.options (Options.TLSOptions).
	tlsOptions TLSOptionParser

	Gateway *Gateway
	Set     *ListenerSet // nil for the Gateway's own listeners
	Index   int          // index in its owner's spec.listeners
	gwv1.Listener
	Routes     []*Attachment // routes attached, sorted
	Conditions []metav1.Condition
	// Conflicted reports a port/protocol/hostname clash with another
	// listener of the same Gateway; ConflictReason is the spec's reason
	// for it, ProtocolConflict or HostnameConflict.
	Conflicted     bool
	ConflictReason string
	// Unserved says why its controller builds no filter chain for the
	// listener ("" when it does): one of the Unserved* reasons. With
	// Conditions it is the verdict on the listener (Controller.Listeners)
	// that status reports and render reads.
	Unserved string
	// DefaultALPN, when set, are the ALPN protocols its controller offers
	// on the listener's TLS connections in place of its render target's
	// baseline (a policy that sets the protocols still replaces them):
	// HTTP/1.1 alone, say, where a certificate of the listener may
	// overlap another's of its port, so that clients do not coalesce
	// HTTP/2 connections across them (GEP-3567). Decided with Conditions
	// (Controller.Listeners); render reads it.
	DefaultALPN []string
	// refused are the routes attached to it (a TCP or TLS listener) its
	// controller takes up and refuses (StreamRouteRule.Refused), decided
	// once while the Gateway is built: status writes the refusal, lint
	// and explain say it (Refusal).
	refused map[*Route]Refusal
}

// Why a listener is not served. A listener refused while its controller
// validates the Gateway (route kinds; a protocol it does not serve, where
// its family marks it so; a reserved port on a ListenerSet) does not
// count as one of its listeners at all; the others are dropped when it is
// translated.
const (
	UnservedRouteKinds   = "RouteKinds"
	UnservedProtocol     = "Protocol"
	UnservedReservedPort = "ReservedPort"
	UnservedTLS          = "TLS"
	// UnservedInvalid: its controller's own verdict does not program it
	// (Programmed False for a problem of its own rules).
	UnservedInvalid = "Invalid"
)

// Ancestor is the object a policy on this listener reports status against:
// the ListenerSet for its listeners, otherwise the Gateway.
func (l *Listener) Ancestor() model.Key {
	if l.Set != nil {
		return l.Set.Key()
	}
	return l.Gateway.Key()
}

// Programmed reports whether the listener gets Envoy filter chains: not
// Conflicted, served by its controller (Unserved empty), and of a
// protocol served over TCP with chains (HTTP, HTTPS, TCP, TLS; a UDP
// listener has none: render builds it an Envoy listener of its own).
func (l *Listener) Programmed() bool {
	switch l.Protocol {
	case gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType, gwv1.TCPProtocolType, gwv1.TLSProtocolType:
		return !l.Conflicted && l.Unserved == ""
	}
	return false
}

// SharesPort reports whether another programmed listener of its Gateway
// (its ListenerSets' included) listens on its port: they are served by
// one Envoy listener, whose settings only the whole Gateway's policies
// make, and HTTP listeners there share one filter chain.
func (l *Listener) SharesPort() bool {
	if l.Gateway == nil {
		return false
	}
	for _, o := range l.Gateway.Listeners {
		if o != l && o.Port == l.Port && o.Programmed() {
			return true
		}
	}
	return false
}

// ID names a listener for messages: ns/gateway/listener, or a set's
// ns/set/listener, with the set's kind in front when it is not the v1
// ListenerSet.
func (l *Listener) ID() string {
	if l.Set != nil {
		id := l.Set.Namespace + "/" + l.Set.Name + "/" + string(l.Name)
		if gk := l.Set.GroupKind(); gk != model.ListenerSetKind {
			id = gk.Kind + "/" + id // a set of another kind may share the name
		}
		return id
	}
	return l.Gateway.Namespace + "/" + l.Gateway.Name + "/" + string(l.Name)
}

// Route is a route with what its parentRefs and backendRefs resolved to.
type Route struct {
	*model.Route
	Parents []*Parent
	Rules   []*Rule
	// DelegatedBy are the parent rules that delegate to this route.
	DelegatedBy []*Delegation
	// PrecedenceWeight is the route's weight (Keys.RouteWeight) when the
	// weightedRoutePrecedence setting is on (else 0): higher-weight routes'
	// Envoy routes come first.
	PrecedenceWeight int32
	// Flat is, for an HTTPRoute attached to a Gateway or ListenerSet, every
	// rule × match it serves with its delegations flattened, in the order
	// the controller translates them (see flatten).
	Flat []FlatMatch

	reachedAsChild bool        // some flattening reached it as a delegated child
	firstReach     *childReach // the first parent that reached it, for messages
}

// ReachedAsChild reports whether a delegating parent route reaches the
// route: it is then served through its parents, with or without parents
// of its own.
func (r *Route) ReachedAsChild() bool { return r.reachedAsChild }

// Attached reports whether any parentRef was accepted.
func (r *Route) Attached() bool {
	for _, p := range r.Parents {
		if p.Accepted {
			return true
		}
	}
	return false
}

// Parent is one parentRef of a route and its outcome.
type Parent struct {
	Index     int
	Ref       gwv1.ParentReference // with group, kind and namespace defaulted
	Gateway   *Gateway             // nil when the parent does not exist
	Listeners []*Listener          // the listeners it attached to
	// Allowed are the listeners the parentRef selects (sectionName, port)
	// that admit the route's kind and namespace, whether or not a
	// hostname matches: a controller's parent context may hold these and
	// merge a route policy on each.
	Allowed []*Listener
	// Hostnames is, per attached listener (same index), the hostnames the
	// route serves there: the intersection of both; nil means "any".
	Hostnames [][]string
	Accepted  bool
	// Unwatched: the parent's controller does not read routes of this
	// route's kind (Controller.Unwatched): it writes no status for the
	// parentRef, and Reason and Message say why.
	Unwatched bool
	// Delegation is set when the parent is a delegating HTTPRoute.
	Delegation *Delegation
	// Declined is, for a ListenerSet parent whose Gateway does not attach
	// the set, that Gateway: its controller still owns the route's status.
	Declined   *Gateway
	Reason     string // Gateway API reason when not accepted
	Message    string
	Conditions []metav1.Condition
}

// Rule is a route rule with its backends resolved.
type Rule struct {
	*model.Rule
	Backends []*Backend
	// Mirrors are the backends of the rule's RequestMirror filters, one
	// per such filter in the order written, resolved as Backends are;
	// one that did not resolve mirrors nothing.
	Mirrors []*Backend
	// Children are the delegations this rule makes.
	Children []*Delegation
	// Problems are what the controllers cannot translate in the rule as
	// written (Options.RuleChecks), one per controller; each holds on its
	// controller's Gateways (Graph.ProblemOn).
	Problems RuleProblems
	// RedirectStatus overrides the status code of the rule's
	// RequestRedirect (a controller's RuleCheck reads it off the route); 0
	// keeps the filter's. It holds on that controller's Gateways
	// (Graph.RedirectStatusOn).
	RedirectStatus int
	redirectBy     string // the controller whose check read RedirectStatus

	kept bool // some flattening serves it (see Route.Served)
	// served are the problems of its copies served through delegation
	// that are not its own (see served.go).
	served []ServedProblem
}

// Backend is one resolved backendRef.
type Backend struct {
	// selector is what a delegating backendRef selects (Delegates;
	// DelegationRules.Select), nil for any other.
	selector *ChildSelector

	// The model's backendRef, shared rather than copied: the topology
	// holds a Backend per backendRef of every route for the whole run.
	*model.BackendRef
	Group, Kind, Namespace, Name string
	Service                      *model.Service // for kind Service
	// The port and the flags side by side: no padding between them, in
	// a struct held once per backendRef of every route.
	Port     int32
	Resolved bool
	// Extension: it resolved to a backend an extension plugin registers
	// (Options.ExtensionBackends), whose cluster the plugin completes.
	Extension bool
	// ClosesCycle: a delegating backendRef refused because the route it
	// selects is already above it in the delegation chain.
	ClosesCycle bool
	Reason      string // BackendNotFound, RefNotPermitted, InvalidKind
	Message     string
	// Why says, for a delegation to no route, why nothing was selected.
	Why string
}

// Attachment is a route attached to a listener through one parentRef.
type Attachment struct {
	Route     *Route
	Parent    *Parent
	Hostnames []string // nil: any host
}

// Gateway returns a Gateway node.
func (g *Graph) Gateway(ns, name string) *Gateway {
	return g.gateways[model.GatewayAPIKey("Gateway", ns, name)]
}

// Route returns a route node.
func (g *Graph) Route(kind, ns, name string) *Route {
	return g.routes[model.GatewayAPIKey(kind, ns, name)]
}

// ListenerSet returns a ListenerSet node.
func (g *Graph) ListenerSet(ns, name string) *ListenerSet {
	return g.sets[model.GatewayAPIKey("ListenerSet", ns, name)]
}

// ListenerSetOf returns the node of a listener set of kind gk (the v1
// ListenerSet or the experimental XListenerSet); nil for another kind.
func (g *Graph) ListenerSetOf(gk model.GroupKind, ns, name string) *ListenerSet {
	if !isListenerSetKind(gk) {
		return nil
	}
	return g.sets[model.Key{Group: gk.Group, Kind: gk.Kind, Namespace: ns, Name: name}]
}

// isListenerSetKind: gk is a kind of listener set (the v1 ListenerSet, or
// the experimental XListenerSet read into the same shape).
func isListenerSetKind(gk model.GroupKind) bool {
	return gk == model.ListenerSetKind || gk == model.XListenerSetKind
}

// IsListenerSetKind reports whether a reference's group and kind name a
// listener set (isListenerSetKind), for the stages after topology.
func IsListenerSetKind(group, kind string) bool {
	return isListenerSetKind(model.GroupKind{Group: group, Kind: kind})
}

// Listener finds a Gateway's own listener by name.
func (gw *Gateway) Listener(name string) *Listener {
	for _, l := range gw.Listeners {
		if l.Set == nil && string(l.Name) == name {
			return l
		}
	}
	return nil
}

// Listener finds a ListenerSet's listener by name.
func (s *ListenerSet) Listener(name string) *Listener {
	if s.Parent == nil {
		return nil
	}
	for _, l := range s.Parent.Listeners {
		if l.Set == s && string(l.Name) == name {
			return l
		}
	}
	return nil
}

// Build resolves the topology of a model.
func Build(m *model.Model, opt Options) *Graph {
	g := &Graph{Model: m, keys: opt.Keys, delegation: opt.Delegation, ruleChecks: opt.RuleChecks, tlsOptions: opt.TLSOptions, controllers: opt.Controllers, fallback: opt.Controller, gateways: map[model.Key]*Gateway{}, routes: map[model.Key]*Route{}, sets: map[model.Key]*ListenerSet{}}
	g.judgeClasses(opt.Classes)
	for _, mg := range m.Gateways {
		gw := &Gateway{Gateway: mg}
		g.Gateways = append(g.Gateways, gw)
		g.gateways[mg.Key()] = gw
		gw.title = g.controllerOf(gw).Title
		if judge := g.controllerOf(gw).Gateway; judge != nil {
			var ds []diag.Diagnostic
			gw.Refused, ds = judge(m, mg)
			g.Diagnostics = append(g.Diagnostics, ds...)
			if gw.Refused.Reason != "" {
				continue // nothing of it is translated: no listeners
			}
		}
		if report := g.controllerOf(gw).Reported; report != nil {
			var ds []diag.Diagnostic
			gw.Reported, ds = report(m, mg)
			g.Diagnostics = append(g.Diagnostics, ds...)
		}
		if v := g.Classes[string(mg.Spec.GatewayClassName)]; v != nil && !v.Refused {
			if pending := v.Gateway.Pending; pending != nil {
				var ds []diag.Diagnostic
				gw.Refused, ds = pending(m, mg)
				g.Diagnostics = append(g.Diagnostics, ds...)
				if gw.Refused.Reason != "" {
					continue // nothing of it is translated: no listeners
				}
			}
			gw.Reported = append(gw.Reported, v.Gateway.Conditions...)
			gw.NoListenerStatus = v.Gateway.NoListenerStatus
		}
		for i, l := range mg.Spec.Listeners {
			gw.Listeners = append(gw.Listeners, &Listener{Gateway: gw, Index: i, Listener: l, tlsOptions: opt.TLSOptions})
		}
	}
	g.attachListenerSets()
	for _, gw := range g.Gateways {
		if ctrl := g.controllerOf(gw); ctrl.ConflictsInVerdict {
			// its listener verdict decides them, once routes attached
		} else if ctrl.Conflicts != nil {
			ctrl.Conflicts(gw)
		} else {
			markConflicts(gw)
		}
		if g.controllerOf(gw).ExclusiveListenerHostnames {
			gw.portHosts = listenerHostsByPort(gw)
		}
	}
	for _, mr := range m.Routes {
		r := &Route{Route: mr}
		if w := g.routeWeight(r); opt.WeightedRoutePrecedence {
			r.PrecedenceWeight = w
		}
		g.Routes = append(g.Routes, r)
		g.routes[mr.Key()] = r
	}
	// A route's parentRefs are its own to resolve: in parallel. What a
	// resolution adds to the Gateways — its attachments to listeners'
	// routes, a listener's selector it cannot decide — is kept per route
	// and added afterwards in input order, as one loop added it.
	// Each range of routes keeps its own record (ranges are consecutive,
	// so the records in range order are in input order).
	const routesPerRange = 64
	fx := make([]parentEffects, (len(g.Routes)+routesPerRange-1)/routesPerRange)
	parallel.Chunks(len(g.Routes), routesPerRange, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			g.resolveParents(g.Routes[i], &fx[lo/routesPerRange])
		}
	})
	for i := range fx {
		fx[i].apply(g)
	}
	// A route's backends are its own to resolve (resolveBackends): in
	// parallel, the findings taken in route order.
	found := make([][]diag.Diagnostic, len(g.Routes))
	parallel.Chunks(len(g.Routes), 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			found[i] = g.resolveBackends(g.Routes[i], opt)
		}
	})
	for _, ds := range found {
		g.Diagnostics = append(g.Diagnostics, ds...)
	}
	g.resolveDelegation()
	for _, gw := range g.Gateways {
		for _, l := range gw.Listeners {
			slices.SortFunc(l.Routes, func(a, b *Attachment) int { return a.Route.Key().Compare(b.Route.Key()) })
		}
		ctrl := g.controllerOf(gw)
		gw.title, gw.streams = ctrl.Title, ctrl.StreamRoutes
		if gw.streams.Served == nil {
			gw.streams = opt.StreamRoutes
		}
		// after the sort: it breaks ties between routes as old
		decideStreamRefusals(gw)
		g.judgeListeners(gw)
		// after the listeners' verdict: a listener it leaves conflicted
		// builds no chain to claim a server name with
		g.Diagnostics = append(g.Diagnostics, overlappingStreamChains(gw)...)
		// after the listeners' verdict: a listener not served is
		// reported whole
		g.Diagnostics = append(g.Diagnostics, unprogrammedStreamRoutes(gw)...)
	}
	return g
}

// routeWeight reads a route's weight; a value that is not an int32 counts
// as 0 and is reported, whether or not the setting is on (the annotation
// is wrong either way).
func (g *Graph) routeWeight(r *Route) int32 {
	key := g.keys.RouteWeight
	s, ok := r.Meta.Annotations[key]
	if !ok || key == "" {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil {
		g.Diagnostics = append(g.Diagnostics, diag.Diagnostic{Code: LintRouteWeightInvalid.Code, Severity: diag.Warning, Object: r.Key().Ref(), Field: "metadata.annotations", Pos: r.Src.FieldPos("metadata.annotations"),
			Message: fmt.Sprintf("annotation %s=%q is not an int32 (-2147483648 to 2147483647); the route's weight is 0", key, s)})
		return 0
	}
	return int32(n)
}

// attachListenerSets resolves each ListenerSet's parentRef. A Gateway takes
// ListenerSets only when its allowedListeners admits their namespace.
func (g *Graph) attachListenerSets() {
	for _, ms := range g.Model.ListenerSets {
		s := &ListenerSet{ListenerSet: ms}
		ref := ms.Spec.ParentRef
		ns := s.parentNamespace()
		gw := g.gateways[model.GatewayAPIKey("Gateway", ns, string(ref.Name))]
		if why := g.unreadSet(gw, ms); why != "" {
			// the controller that would take it reads none of its kind:
			// to it the object does not exist
			gk := ms.GroupKind()
			g.Diagnostics = append(g.Diagnostics, diag.Diagnostic{Code: LintListenerNotServed.Code, Severity: diag.Warning, Object: ms.Key().Ref(), Field: "spec.parentRef", Pos: ms.Src.FieldPos("spec.parentRef"),
				Message: fmt.Sprintf("%s %s/%s is not read: %s; its listeners are not served, the routes and policies naming it attach to nothing, and it gets no status", gk.Kind, ms.Namespace, ms.Name, why)})
			continue
		}
		g.sets[ms.Key()] = s
		if gw != nil {
			s.Gateway, s.own = gw, g.controllerOf(gw).ListenerSetConditions
		}
		switch {
		case gw == nil:
			s.Reason, s.Message = "NoMatchingParent", fmt.Sprintf("Gateway %s/%s not found", ns, ref.Name)
		case gw.Refused.Reason != "":
			s.Reason, s.Message = "ParentNotAccepted", fmt.Sprintf("Parent Gateway %s/%s not accepted", ns, ref.Name)
		case !allowsListenerSet(g.Model, gw, ms):
			s.Reason, s.Message = "NotAllowed", fmt.Sprintf("Gateway %s/%s does not allow ListenerSets from namespace %s (spec.allowedListeners)", ns, ref.Name, ms.Namespace)
		default:
			s.Parent, s.Accepted = gw, true
			gw.Sets = append(gw.Sets, s)
			for i, le := range ms.Spec.Listeners {
				gw.Listeners = append(gw.Listeners, &Listener{Gateway: gw, Set: s, Index: i, Listener: gwv1.Listener(le), tlsOptions: g.tlsOptions})
			}
		}
	}
}

// unreadSet says why the controller of gw (the Gateway the set names; nil
// when there is none) does not read a set of ms's kind, "" when it does:
// every controller reads the v1 ListenerSet; another kind only where the
// controller says so (Controller.UnreadListenerSets). A set naming no
// Gateway is judged by the fallback controller's rule.
func (g *Graph) unreadSet(gw *Gateway, ms *model.ListenerSet) string {
	gk := ms.GroupKind()
	if gk == model.ListenerSetKind {
		return ""
	}
	var ctrl Controller
	if gw != nil {
		ctrl = g.controllerOf(gw)
	} else if c, ok := g.controllers[g.fallback]; ok {
		ctrl = c
	}
	if ctrl.UnreadListenerSets == nil {
		title := ctrl.Title
		if title == "" {
			title = "the controller"
		}
		return fmt.Sprintf("%s reads no %s (only %s/%s)", title, groupKind(gk.Group, gk.Kind), model.GatewayGroup, "ListenerSet")
	}
	return ctrl.UnreadListenerSets(gk)
}

// parentNamespace is the namespace of the Gateway the set names.
func (s *ListenerSet) parentNamespace() string {
	if ns := s.Spec.ParentRef.Namespace; ns != nil && *ns != "" {
		return string(*ns)
	}
	return s.Namespace
}

// allowsListenerSet applies spec.allowedListeners. Without it (or with
// from: None) a Gateway takes no ListenerSets: the spec's default is None,
// and attachment is opt-in.
func allowsListenerSet(m *model.Model, gw *Gateway, s *model.ListenerSet) bool {
	al := gw.Spec.AllowedListeners
	if al == nil || al.Namespaces == nil || al.Namespaces.From == nil {
		return false
	}
	switch *al.Namespaces.From {
	case gwv1.NamespacesFromAll:
		return true
	case gwv1.NamespacesFromSame:
		return s.Namespace == gw.Namespace
	case gwv1.NamespacesFromSelector:
		if al.Namespaces.Selector == nil {
			return false
		}
		sel, err := metav1.LabelSelectorAsSelector(al.Namespaces.Selector)
		return err == nil && sel.Matches(m.NamespaceLabels(s.Namespace))
	}
	return false
}

// markConflicts applies the spec's rules for indistinct listeners to the
// merged listener list (the Gateway's own, then each ListenerSet's, in
// precedence order). Listeners sharing a port must use compatible protocols
// (ProtocolConflict) and differ in hostname (HostnameConflict); a UDP
// listener is distinct from the port's TCP-borne listeners (the spec's
// distinctness is per protocol), so it conflicts only with another UDP
// listener of its port.
//
// Within one resource no conflicting listener wins: all of them are
// Conflicted (Gateway spec, "Handling indistinct Listeners"). Across
// resources the listener earlier in precedence keeps its place and only the
// later one is Conflicted (GEP-1713, "Listener and ListenerSet conflicts").
func markConflicts(gw *Gateway) {
	type hostKey struct {
		port gwv1.PortNumber
		udp  bool // UDP and the TCP protocols are distinct on one port
		host string
	}
	// protocol classes per port: the one class seen, or "*" for several.
	// A UDP listener takes no part: it shares no transport with the
	// others, so it is distinct from them whatever their protocol.
	addClass := func(m map[gwv1.PortNumber]string, l *Listener) {
		if l.Protocol == gwv1.UDPProtocolType {
			return
		}
		c := protocolClass(l.Protocol)
		if prev, ok := m[l.Port]; !ok {
			m[l.Port] = c
		} else if prev != c {
			m[l.Port] = "*"
		}
	}
	keyOf := func(l *Listener) hostKey {
		return hostKey{l.Port, l.Protocol == gwv1.UDPProtocolType, hostOf(l.Hostname)}
	}
	priorClass := map[gwv1.PortNumber]string{}
	priorHost := map[hostKey]bool{}
	ls := gw.Listeners
	for start := 0; start < len(ls); {
		end := start + 1
		for end < len(ls) && ls[end].Set == ls[start].Set {
			end++
		}
		own := ls[start:end] // the listeners of one Gateway or ListenerSet
		ownClass := map[gwv1.PortNumber]string{}
		ownHost := map[hostKey]int{}
		for _, l := range own {
			addClass(ownClass, l)
			ownHost[keyOf(l)]++
		}
		for _, l := range own {
			k := keyOf(l)
			pc, prior := priorClass[l.Port]
			switch {
			case l.Protocol != gwv1.UDPProtocolType && (ownClass[l.Port] == "*" || prior && (pc == "*" || pc != protocolClass(l.Protocol))):
				l.Conflicted, l.ConflictReason = true, "ProtocolConflict"
			case ownHost[k] > 1, priorHost[k]:
				l.Conflicted, l.ConflictReason = true, "HostnameConflict"
			}
		}
		for _, l := range own {
			addClass(priorClass, l)
			priorHost[keyOf(l)] = true
		}
		start = end
	}
}

// protocolClass groups protocols that may share a port: HTTPS and TLS
// (both SNI-routed) may; every other protocol needs a port of its own.
func protocolClass(p gwv1.ProtocolType) string {
	if p == gwv1.TLSProtocolType {
		return string(gwv1.HTTPSProtocolType)
	}
	return string(p)
}

func hostOf(h *gwv1.Hostname) string {
	if h == nil {
		return ""
	}
	return string(*h)
}

// parentEffects is what resolving routes' parentRefs adds to the
// Gateways, in the order resolving them met it: the attachments to their
// listeners' routes and the listener selectors it could not decide
// (undecidedNamespace). Ranges of routes are resolved in parallel, each
// into a record of its own; apply, called in input order, adds them.
type parentEffects struct {
	attached  []listenerRoute
	undecided []undecidedSelector
}

type listenerRoute struct {
	l *Listener
	a *Attachment
}

type undecidedSelector struct {
	undecidedKey
	sel labels.Selector
}

func (fx *parentEffects) attach(l *Listener, a *Attachment) {
	fx.attached = append(fx.attached, listenerRoute{l, a})
}

func (fx *parentEffects) apply(g *Graph) {
	for _, at := range fx.attached {
		at.l.Routes = append(at.l.Routes, at.a)
	}
	for _, u := range fx.undecided {
		g.undecidedNamespace(u.l, u.ns, u.sel)
	}
}

// resolveParents resolves r's parentRefs; it changes r alone and records
// in fx what it adds to the Gateways.
func (g *Graph) resolveParents(r *Route, fx *parentEffects) {
	for i, ref := range r.ParentRefs {
		if ref.Kind != nil && *ref.Kind == "HTTPRoute" {
			continue // a delegatee accepting a parent route: delegation reports it
		}
		p := &Parent{Index: i, Ref: defaultParentRef(ref, r.Meta.Namespace)}
		r.Parents = append(r.Parents, p)
		g.resolveParent(r, p, fx)
		if !p.Accepted && !p.Unwatched {
			// a parent not found (or a ListenerSet its Gateway declines):
			// the controller that would report it does not read the kind
			// either, so it reports nothing
			gw := p.Gateway
			if gw == nil {
				gw = p.Declined
			}
			if unwatched := g.controllerOf(gw).Unwatched; unwatched != nil {
				if why := unwatched(r.Kind); why != "" {
					p.Unwatched = true
					p.reject("Unwatched", why)
				}
			}
		}
	}
}

func defaultParentRef(ref gwv1.ParentReference, ns string) gwv1.ParentReference {
	out := ref
	grp := gwv1.Group(model.GatewayGroup)
	kind := gwv1.Kind("Gateway")
	nsv := gwv1.Namespace(ns)
	// The CRD defaults an omitted group; an explicit "" is the core group
	// (a GAMMA parentRef to a Service), not gateway.networking.k8s.io.
	if ref.Group == nil {
		out.Group = &grp
	}
	if ref.Kind == nil || *ref.Kind == "" {
		out.Kind = &kind
	}
	if ref.Namespace == nil || *ref.Namespace == "" {
		out.Namespace = &nsv
	}
	return out
}

// groupKind names a group and kind as the API does: Kind alone for the
// core group, group/Kind otherwise.
func groupKind(group, kind string) string {
	if group == "" {
		return kind + " (core group)"
	}
	return group + "/" + kind
}

func (g *Graph) resolveParent(r *Route, p *Parent, fx *parentEffects) {
	ref := p.Ref
	ns, name := string(*ref.Namespace), string(ref.Name)
	var candidates []*Listener
	switch {
	case string(*ref.Group) == model.GatewayGroup && string(*ref.Kind) == "Gateway":
		gw := g.gateways[model.GatewayAPIKey("Gateway", ns, name)]
		if gw == nil {
			p.reject("NoMatchingParent", fmt.Sprintf("Gateway %s/%s not found", ns, name))
			return
		}
		if gw.Refused.Reason != "" {
			// its controller translates nothing of it: the parentRef
			// names no Gateway it holds, and it writes no status there
			p.Declined = gw
			p.reject("NoMatchingParent", fmt.Sprintf("Gateway %s/%s is not accepted by %s (%s): %s", ns, name, gw.ControllerTitle(), gw.Refused.Reason, gw.Refused.Message))
			return
		}
		p.Gateway = gw
		for _, l := range gw.Listeners {
			if l.Set == nil {
				candidates = append(candidates, l)
			}
		}
	case isListenerSetKind(model.GroupKind{Group: string(*ref.Group), Kind: string(*ref.Kind)}):
		kind := string(*ref.Kind)
		s := g.sets[model.Key{Group: string(*ref.Group), Kind: kind, Namespace: ns, Name: name}]
		if s == nil || s.Parent == nil {
			msg := fmt.Sprintf("%s %s/%s not found", kind, ns, name)
			if s != nil {
				msg = fmt.Sprintf("%s %s/%s is not attached to a Gateway: %s", kind, ns, name, s.Message)
				p.Declined = g.gateways[model.GatewayAPIKey("Gateway", s.parentNamespace(), string(s.Spec.ParentRef.Name))]
			}
			p.reject("NoMatchingParent", msg)
			return
		}
		p.Gateway = s.Parent
		for _, l := range s.Parent.Listeners {
			if l.Set == s {
				candidates = append(candidates, l)
			}
		}
	default:
		p.reject("NoMatchingParent", fmt.Sprintf("parentRef kind %s is not a Gateway or ListenerSet", groupKind(string(*ref.Group), string(*ref.Kind))))
		return
	}
	if unwatched := g.controllerOf(p.Gateway).Unwatched; unwatched != nil {
		if why := unwatched(r.Kind); why != "" {
			p.Unwatched = true
			p.reject("Unwatched", why)
			return
		}
	}
	if g.controllerOf(p.Gateway).AdmissionFirst {
		if reason, msg := admissionFirst(g, r, candidates, ref, fx); reason != "" {
			p.reject(reason, msg)
			return
		}
	}
	if ref.SectionName != nil && *ref.SectionName != "" {
		candidates = slices.DeleteFunc(candidates, func(l *Listener) bool { return l.Name != *ref.SectionName })
		if len(candidates) == 0 {
			p.reject("NoMatchingParent", fmt.Sprintf("no listener named %q on %s/%s", *ref.SectionName, ns, name))
			return
		}
	}
	if ref.Port != nil && *ref.Port != 0 {
		candidates = slices.DeleteFunc(candidates, func(l *Listener) bool { return l.Port != *ref.Port })
		if len(candidates) == 0 {
			p.reject("NoMatchingParent", fmt.Sprintf("no listener on port %d of %s/%s", *ref.Port, ns, name))
			return
		}
	}
	reason, msg := "", ""
	for _, l := range candidates {
		if why := g.admits(l, r, fx); why != "" {
			if reason == "" {
				reason, msg = "NotAllowedByListeners", why
			}
			continue
		}
		p.Allowed = append(p.Allowed, l)
		hosts, ok := intersect(l.Hostname, r.Hostnames)
		if ok && len(r.Hostnames) > 0 && l.Gateway.portHosts != nil {
			hosts = othersExcluded(l, hosts)
			ok = len(hosts) > 0
		}
		if !ok {
			if reason != "NoMatchingListenerHostname" {
				reason, msg = "NoMatchingListenerHostname", fmt.Sprintf("no hostname of the route matches listener %s (%s)", l.Name, hostOf(l.Hostname))
			}
			continue
		}
		p.Listeners = append(p.Listeners, l)
		p.Hostnames = append(p.Hostnames, hosts)
		fx.attach(l, &Attachment{Route: r, Parent: p, Hostnames: hosts})
	}
	if len(p.Listeners) == 0 {
		if reason == "" { // the parent has no listeners at all
			reason, msg = "NoMatchingParent", fmt.Sprintf("%s %s/%s has no listeners", *ref.Kind, ns, name)
		}
		p.reject(reason, msg)
		return
	}
	p.Accepted = true
}

func (p *Parent) reject(reason, msg string) { p.Reason, p.Message = reason, msg }

// admissionFirst is the refusal of a parentRef under
// Controller.AdmissionFirst, from all the listeners of its parent: ""
// when a listener it selects admits the route, which the Gateway API's
// order then judges by hostname.
func admissionFirst(g *Graph, r *Route, all []*Listener, ref gwv1.ParentReference, fx *parentEffects) (reason, msg string) {
	first, admitted := "", false
	for _, l := range all {
		why := g.allows(l, r, fx)
		if why != "" {
			if first == "" {
				first = why
			}
			continue
		}
		admitted = true
		if selects(ref, l) {
			return "", ""
		}
	}
	parent := fmt.Sprintf("%s %s/%s", *ref.Kind, *ref.Namespace, ref.Name)
	if !admitted {
		if first == "" {
			return "NoMatchingParent", parent + " has no listeners"
		}
		return "NotAllowedByListeners", fmt.Sprintf("no listener of %s admits the route (%s)", parent, first)
	}
	return "NoMatchingParent", fmt.Sprintf("no listener of %s that admits the route is the one the parentRef selects%s", parent, selection(ref))
}

// selects reports whether a parentRef's sectionName and port select l.
func selects(ref gwv1.ParentReference, l *Listener) bool {
	if ref.SectionName != nil && *ref.SectionName != "" && l.Name != *ref.SectionName {
		return false
	}
	return ref.Port == nil || *ref.Port == 0 || l.Port == *ref.Port
}

// selection says which listener a parentRef selects, for messages.
func selection(ref gwv1.ParentReference) string {
	var parts []string
	if ref.SectionName != nil && *ref.SectionName != "" {
		parts = append(parts, fmt.Sprintf("sectionName %q", *ref.SectionName))
	}
	if ref.Port != nil && *ref.Port != 0 {
		parts = append(parts, fmt.Sprintf("port %d", *ref.Port))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// admits returns why a listener refuses a route, or "".
func (g *Graph) admits(l *Listener, r *Route, fx *parentEffects) string {
	if l.Conflicted {
		return fmt.Sprintf("listener %s conflicts with another listener on port %d", l.Name, l.Port)
	}
	return g.allows(l, r, fx)
}

// allows returns why a listener's allowedRoutes (and protocol) refuse
// a route's kind or namespace, or ""; a selector it cannot decide is
// recorded in fx.
func (g *Graph) allows(l *Listener, r *Route, fx *parentEffects) string {
	if !kindAllowed(l, r.Kind) {
		return fmt.Sprintf("listener %s (%s) does not allow %s", l.Name, l.Protocol, r.Kind)
	}
	owner := l.Gateway.Namespace
	if l.Set != nil {
		owner = l.Set.Namespace
	}
	from := gwv1.NamespacesFromSame
	var sel *metav1.LabelSelector
	if ar := l.AllowedRoutes; ar != nil && ar.Namespaces != nil {
		if ar.Namespaces.From != nil {
			from = *ar.Namespaces.From
		}
		sel = ar.Namespaces.Selector
	}
	ns := r.Meta.Namespace
	switch from {
	case gwv1.NamespacesFromAll:
		return ""
	case gwv1.NamespacesFromSame:
		if ns == owner {
			return ""
		}
		return fmt.Sprintf("listener %s only allows routes from namespace %s", l.Name, owner)
	case gwv1.NamespacesFromSelector:
		if sel != nil {
			s, err := metav1.LabelSelectorAsSelector(sel)
			if err == nil && s.Matches(labels.Set(g.Model.NamespaceLabels(ns))) {
				return ""
			}
			if err == nil && !g.Model.HasNamespace(ns) && needsUnknownLabels(s, g.Model.NamespaceLabels(ns)) {
				// Only the automatic name label is known: the selector
				// cannot be decided, so the route is let in (and analysed)
				// and the listener reported, instead of a false refusal.
				fx.undecided = append(fx.undecided, undecidedSelector{undecidedKey{l, ns}, s})
				return ""
			}
		}
		return fmt.Sprintf("listener %s does not select namespace %s (allowedRoutes.namespaces.selector)", l.Name, ns)
	}
	return fmt.Sprintf("listener %s allows routes from no namespace", l.Name)
}

// undecidedNamespace reports, once per listener and namespace, a selector
// that needs labels of a Namespace the input does not hold.
func (g *Graph) undecidedNamespace(l *Listener, ns string, sel labels.Selector) {
	k := undecidedKey{l, ns}
	if g.undecided[k] {
		return
	}
	if g.undecided == nil {
		g.undecided = map[undecidedKey]bool{}
	}
	g.undecided[k] = true
	src, path := l.Gateway.Src, fmt.Sprintf("spec.listeners[%d].allowedRoutes.namespaces.selector", l.Index)
	if l.Set != nil {
		src = l.Set.Src
	}
	g.Diagnostics = append(g.Diagnostics, diag.Diagnostic{Code: LintNamespaceLabelsUnknown.Code, Severity: diag.Warning,
		Object: diag.ObjectRef{Group: src.Group, Kind: src.Kind, Namespace: src.Namespace, Name: src.Name}, Field: path, Pos: src.KeyPos(path),
		Message: fmt.Sprintf("Namespace %s is not in the input, so its labels are unknown and listener %s's selector %q cannot be evaluated; routes from %s are assumed allowed — add the Namespace manifest to decide it", ns, l.Name, sel.String(), ns)})
}

// needsUnknownLabels reports whether a selector that failed on a missing
// Namespace's known labels (only its name label) could still match: it
// fails on no requirement of the name label, and it has requirements on
// labels only the Namespace manifest would give.
func needsUnknownLabels(sel labels.Selector, known labels.Set) bool {
	reqs, _ := sel.Requirements()
	unknown := false
	for _, r := range reqs {
		if r.Key() != model.NamespaceNameLabel {
			unknown = true
			continue
		}
		if !r.Matches(known) {
			return false
		}
	}
	return unknown
}

type undecidedKey struct {
	l  *Listener
	ns string
}

// kindAllowed applies the listener protocol and allowedRoutes.kinds. A
// kind the protocol cannot carry is refused whatever the list says.
func kindAllowed(l *Listener, kind string) bool {
	if !protocolCarries(l, kind) {
		return false
	}
	if ar := l.AllowedRoutes; ar != nil && len(ar.Kinds) > 0 {
		for _, k := range ar.Kinds {
			grp := model.GatewayGroup
			if k.Group != nil {
				grp = string(*k.Group)
			}
			if grp == model.GatewayGroup && string(k.Kind) == kind {
				return true
			}
		}
		return false
	}
	return true
}

// protocolCarries: HTTP and HTTPS listeners serve HTTPRoutes and
// GRPCRoutes, TCP listeners TCPRoutes, UDP listeners UDPRoutes, TLS
// listeners TLSRoutes and, when they terminate TLS (the default mode),
// TCPRoutes too.
func protocolCarries(l *Listener, kind string) bool {
	switch l.Protocol {
	case gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType:
		return kind == "HTTPRoute" || kind == "GRPCRoute"
	case gwv1.TCPProtocolType:
		return kind == "TCPRoute"
	case gwv1.UDPProtocolType:
		return kind == "UDPRoute"
	case gwv1.TLSProtocolType:
		terminates := l.TLS == nil || l.TLS.Mode == nil || *l.TLS.Mode == gwv1.TLSModeTerminate
		return kind == "TLSRoute" || (kind == "TCPRoute" && terminates)
	}
	return false
}

// intersect computes the hostnames a route serves on a listener. nil with
// ok means any host.
func intersect(listener *gwv1.Hostname, route []gwv1.Hostname) ([]string, bool) {
	lh := hostOf(listener)
	if len(route) == 0 {
		if lh == "" {
			return nil, true
		}
		return []string{lh}, true
	}
	var out []string
	for _, h := range route {
		rh := string(h)
		switch {
		case lh == "":
			out = append(out, rh)
		case hostMatches(lh, rh):
			out = append(out, rh)
		case hostMatches(rh, lh):
			out = append(out, lh)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return out, len(out) > 0
}

// listenerHostsByPort counts gw's listeners (its ListenerSets' too) per
// port and hostname.
func listenerHostsByPort(gw *Gateway) map[gwv1.PortNumber]map[string]int {
	out := map[gwv1.PortNumber]map[string]int{}
	for _, l := range gw.Listeners {
		if l.Hostname == nil {
			continue
		}
		if out[l.Port] == nil {
			out[l.Port] = map[string]int{}
		}
		out[l.Port][string(*l.Hostname)]++
	}
	return out
}

// othersExcluded is hosts, the route hostnames l serves, without those
// another listener of l's port has as its own hostname
// (Controller.ExclusiveListenerHostnames).
func othersExcluded(l *Listener, hosts []string) []string {
	counts := l.Gateway.portHosts[l.Port]
	return slices.DeleteFunc(slices.Clone(hosts), func(h string) bool {
		n := counts[h]
		if l.Hostname != nil && string(*l.Hostname) == h {
			n--
		}
		return n > 0
	})
}

// hostMatches reports whether pattern (possibly *.suffix) covers host.
func hostMatches(pattern, host string) bool {
	if pattern == host {
		return true
	}
	if suffix, ok := strings.CutPrefix(pattern, "*"); ok {
		return strings.HasSuffix(host, suffix) && len(host) > len(suffix) && !strings.HasPrefix(host, "*"+suffix)
	}
	return false
}
