package topology

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/parallel"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Route delegation: a parent HTTPRoute rule whose backendRef selects other
// HTTPRoutes hands the requests its match selects to those child routes'
// rules. Children take the parent's hostnames and listeners. Which
// backendRefs delegate, which routes they select, which child rules a
// parent match keeps and what a refused delegation reports are the
// controller's (DelegationRules); topology walks the trees by them.

// DelegationRules are a controller's route delegation, which its family
// declares (policy.Family.Delegation) and topology applies to every
// HTTPRoute (Options.Delegation): it links each delegating backendRef to
// the routes it selects, flattens the tree under every route attached to
// a listener (Route.Flat: a delegating rule's children, depth first, in
// place of the rule's own entry) and reports what is not served. A family
// that sets Select sets every function; unset (Select nil), no backendRef
// delegates.
type DelegationRules struct {
	// Select reports whether a route rule's backendRef delegates, and
	// which HTTPRoutes it selects (only an HTTPRoute's are followed).
	Select func(b *Backend) (ChildSelector, bool)
	// Accepts reports whether a selected child takes parent as its
	// delegating parent (its parentRefs may name the parents it takes).
	Accepts func(child, parent *Route) bool
	// Keep are the rules of child that a parent match keeps, each with
	// the matches it is served with under it (its own, or combined with
	// the parent's); none: the child is not served under that match.
	Keep func(child *Route, parent gwv1.HTTPRouteMatch) []KeptRule
	// Refuse says why a child some of whose rules a parent match keeps
	// cannot be delegated to at all: the reason and message of its
	// Accepted False condition for that parent, and why in gwpol's words,
	// completing "<routes> …" (plural); message "" when it can.
	Refuse func(child *Route) (reason, message, why string)
	// Unresolved are the reason and message of the ResolvedRefs condition
	// of a delegating backendRef that hands traffic to no child: cycle is
	// the selected route already above it in the chain, nil when it
	// selects or keeps no route.
	Unresolved func(parent *Route, b *Backend, cycle *Route) (reason, message string)
	// Widen completes "narrow its match or …": what has a child rule whose
	// matches fall outside its parent's served ("" when nothing does).
	Widen string
	// Inherits are the Gateway API filters (and rule fields) a delegated
	// child rule of route rt takes from the delegating rules above it
	// (via, nearest first; their routes are found up rt's DelegatedBy),
	// which the controller applies after the rule's own, a later one
	// replacing what an earlier one set (FlatMatch.Inherited); nil: none.
	Inherits func(rt *Route, rule *Rule, via []*Rule) []InheritedFilter
}

// InheritedFilter is a Gateway API filter a delegated child rule takes
// from a delegating parent rule (DelegationRules.Inherits), as it applies
// to the child: From is the parent rule that wrote it, Mirror the backend
// that rule resolved for a RequestMirror (its Rule.Mirrors). Session,
// when set, is instead the parent rule's sessionPersistence, which the
// child's route takes in place of its own (Filter is then empty).
type InheritedFilter struct {
	Filter  gwv1.HTTPRouteFilter
	From    *Rule
	Mirror  *Backend
	Session *gwv1.SessionPersistence
}

// DelegatingRoute is the route of the delegating rule that hands rt
// traffic (one of rt's DelegatedBy); nil when none of them is rule.
func (rt *Route) DelegatingRoute(rule *Rule) *Route {
	for _, d := range rt.DelegatedBy {
		if d.Rule == rule {
			return d.Parent
		}
	}
	return nil
}

// ChildSelector is which HTTPRoutes of a namespace a delegating backendRef
// selects: the one named Name, every one (All), or, with Label, those whose
// label Label has the value Name.
type ChildSelector struct {
	Namespace, Name string
	All             bool
	Label           string
}

// KeptRule is a child rule a parent match keeps, with the matches it is
// served with there (DelegationRules.Keep).
type KeptRule struct {
	Rule    *Rule
	Matches []gwv1.HTTPRouteMatch
}

// Delegation is one parent rule handing traffic to one child route it
// selects (and the child accepting the parent). Whether the child is
// served under that parent is decided when the parent's tree is
// flattened (see flatten.go): only the child rules the controller keeps
// under the parent rule's match (DelegationRules.Keep).
type Delegation struct {
	Parent  *Route
	Rule    *Rule    // the parent's delegating rule
	Backend *Backend // the delegating backendRef that selected the child
	Child   *Route
	// Kept reports that some flattening kept at least one child rule under
	// this parent: the child is served there and reports the parent in its
	// status.
	Kept bool
	// Invalid says why the child cannot be a delegatee at all
	// (DelegationRules.Refuse), and InvalidReason is the reason of its
	// Accepted False condition for that parent.
	Invalid, InvalidReason string
	invalidWhy             string // DelegationRules.Refuse's why
}

// DelegatesToNothing reports whether a delegating rule has no delegation
// that resolved: it answers 500 instead of routing anywhere, as a rule
// none of whose backendRefs resolves does.
func (r *Rule) DelegatesToNothing() bool {
	if !r.IsDelegating() {
		return false
	}
	for _, b := range r.Backends {
		if b.selector != nil && b.Resolved {
			return false
		}
	}
	return true
}

// delegates reports whether a rule of r delegates.
func delegates(r *Route) bool { return slices.ContainsFunc(r.Rules, (*Rule).IsDelegating) }

// IsDelegating reports whether a rule delegates to child routes; such a rule
// produces no Envoy route of its own.
func (r *Rule) IsDelegating() bool {
	for _, b := range r.Backends {
		if b.selector != nil {
			return true
		}
	}
	return false
}

// Delegates reports whether a backendRef selects child HTTPRoutes.
func (b *Backend) Delegates() bool { return b.selector != nil }

// classify records whether a backendRef delegates, and what it selects
// (DelegationRules.Select).
func (g *Graph) classify(b *Backend) {
	if g.delegation.Select == nil {
		return
	}
	if sel, ok := g.delegation.Select(b); ok {
		b.selector = &sel
	}
}

// resolveDelegation links parents and children after every route's own
// parentRefs are resolved, flattens the tree under each route attached to
// a listener, then gives each child its parents' listeners, level by
// level, refusing cycles.
func (g *Graph) resolveDelegation() {
	g.link()
	nested := slices.ContainsFunc(g.Routes, delegates)
	if nested {
		for _, r := range g.Routes {
			if r.Kind == "HTTPRoute" && attachedToGateway(r) {
				g.flatten(r)
				g.judgeServed(r)
			}
		}
	} else {
		// No rule delegates: each route is a tree of its own, whose
		// flattening and judging change that route alone: in parallel.
		parallel.Chunks(len(g.Routes), 64, func(lo, hi int) {
			for _, r := range g.Routes[lo:hi] {
				if r.Kind == "HTTPRoute" && attachedToGateway(r) {
					g.flatten(r)
					g.judgeServed(r)
				}
			}
		})
	}
	g.wordDelegationFindings()
	if !nested {
		return // no child reached: nothing unserved, no delegated status to settle
	}
	g.reportUnserved()
	state := map[*Route]int{} // 0 unvisited, 1 in progress, 2 done
	for _, r := range g.Routes {
		g.settle(r, state)
	}
}

// link gives every delegating backendRef the children it selects that
// accept its route, and reports one that selects none.
func (g *Graph) link() {
	if g.delegation.Select == nil {
		return // no backendRef delegates
	}
	for _, parent := range g.Routes {
		if parent.Kind != "HTTPRoute" {
			continue
		}
		for _, rule := range parent.Rules {
			for _, b := range rule.Backends {
				if b.selector == nil {
					continue
				}
				if g.httpRoutes.byName == nil {
					// at the first backendRef that delegates: an input
					// without one indexes nothing
					g.httpRoutes = indexHTTPRoutes(g.Routes)
				}
				children := g.childrenOf(parent, b)
				for _, child := range children {
					d := &Delegation{Parent: parent, Rule: rule, Backend: b, Child: child}
					rule.Children = append(rule.Children, d)
					child.DelegatedBy = append(child.DelegatedBy, d)
				}
				if len(children) == 0 {
					g.delegationToNothing(parent, rule, b)
					continue
				}
				b.Resolved, b.Reason, b.Message = true, "", ""
			}
		}
	}
}

// childrenOf lists the routes a delegating backendRef selects that accept
// the parent (DelegationRules.Accepts). The parent itself may be
// selected: that is a cycle, refused when the tree is flattened.
func (g *Graph) childrenOf(parent *Route, b *Backend) []*Route {
	var out []*Route
	for _, c := range g.httpRoutes.selected(*b.selector) {
		if g.delegation.Accepts(c, parent) {
			out = append(out, c)
		}
	}
	return out
}

// routeIndex finds the HTTPRoutes a delegating backendRef may select
// without scanning every route for every reference: by namespace (All),
// by namespace and name, and by label, namespace and value (each label
// indexed the first time a selector names it). Lists keep the graph's
// route order.
type routeIndex struct {
	routes      []*Route
	byNamespace map[string][]*Route
	byName      map[string][]*Route
	byLabel     map[string]map[string][]*Route
}

func indexHTTPRoutes(routes []*Route) routeIndex {
	ix := routeIndex{byNamespace: map[string][]*Route{}, byName: map[string][]*Route{}, byLabel: map[string]map[string][]*Route{}}
	for _, r := range routes {
		if r.Kind != "HTTPRoute" {
			continue
		}
		ns := r.Meta.Namespace
		ix.routes = append(ix.routes, r)
		ix.byNamespace[ns] = append(ix.byNamespace[ns], r)
		ix.byName[ns+"/"+r.Meta.Name] = append(ix.byName[ns+"/"+r.Meta.Name], r)
	}
	return ix
}

// selected lists the routes a selector names, whether or not they accept
// the parent: HTTPRoutes of its namespace only.
func (ix routeIndex) selected(sel ChildSelector) []*Route {
	switch {
	case sel.Label != "":
		return ix.labelled(sel.Label)[sel.Namespace+"/"+sel.Name]
	case sel.All:
		return ix.byNamespace[sel.Namespace]
	}
	return ix.byName[sel.Namespace+"/"+sel.Name]
}

// labelled indexes the routes by their value of one label, by namespace.
func (ix routeIndex) labelled(label string) map[string][]*Route {
	if m, ok := ix.byLabel[label]; ok {
		return m
	}
	m := map[string][]*Route{}
	for _, r := range ix.routes {
		if v, ok := r.Meta.Labels[label]; ok {
			k := r.Meta.Namespace + "/" + v
			m[k] = append(m[k], r)
		}
	}
	ix.byLabel[label] = m
	return m
}

// delegationToNothing marks a delegating backendRef that selects no child
// route unresolved, with the controller's reason (DelegationRules.
// Unresolved; the rule answers 500 when nothing else resolves), and says
// why: the traffic must not fall through to a broader route unnoticed.
func (g *Graph) delegationToNothing(parent *Route, rule *Rule, b *Backend) {
	b.Resolved = false
	b.Reason, b.Message = g.delegation.Unresolved(parent, b, nil)
	b.Why = g.whyNoChildren(parent, b)
	g.reportDelegation(rule, diag.Diagnostic{Code: LintDelegationToNothing.Code, Severity: diag.Error, Object: parent.Key().Ref(), Field: b.Path, Pos: parent.Src.FieldPos(b.Path),
		Message: "backendRef delegates to no route: " + b.Why})
}

// whyNoChildren explains an empty selection: nothing matches, only the
// parent itself does (it names Gateways in its parentRefs, so it does not
// accept itself), or the routes that match do not accept the parent.
func (g *Graph) whyNoChildren(parent *Route, b *Backend) string {
	sel := *b.selector
	what := fmt.Sprintf("HTTPRoute %s/%s", sel.Namespace, sel.Name)
	if sel.Label != "" {
		what = fmt.Sprintf("HTTPRoute in namespace %s labelled %s=%s", sel.Namespace, sel.Label, sel.Name)
	} else if sel.All {
		what = "HTTPRoute in namespace " + sel.Namespace
	}
	var self bool
	var refusing []string
	for _, c := range g.httpRoutes.selected(sel) {
		if c == parent {
			self = true
			continue
		}
		refusing = append(refusing, c.Key().Ref().String())
	}
	switch {
	case len(refusing) > 0:
		return fmt.Sprintf("%s does not accept %s as a parent (its parentRefs name other parents)", strings.Join(refusing, ", "), parent.Key().Ref().String())
	case self:
		return fmt.Sprintf("it selects only the parent %s itself", parent.Key().Ref())
	}
	return "no " + what + " in the input"
}

// settle gives a child route one Parent entry per delegating parent route
// that kept it (or refused it as a delegatee), with the listeners that
// parent is served on; parents are settled first. Cycles were refused when
// flattening; here they are only not followed.
func (g *Graph) settle(r *Route, state map[*Route]int) {
	if state[r] != 0 {
		return
	}
	state[r] = 1
	byParent := map[*Route]*Parent{}
	for _, d := range r.DelegatedBy {
		if !d.Kept && d.Invalid == "" {
			continue // not served there: no status for that parent
		}
		if state[d.Parent] == 1 {
			continue
		}
		g.settle(d.Parent, state)
		p := byParent[d.Parent]
		if p == nil {
			p = newDelegatedParent(r, d)
			byParent[d.Parent] = p
			r.Parents = append(r.Parents, p)
		}
		if d.Kept {
			p.Delegation, p.Reason, p.Message = d, "", ""
		}
	}
	for _, p := range byParent {
		p.settle()
	}
	state[r] = 2
}

// newDelegatedParent is the status entry of a child for its delegating
// parent route, with the listeners that parent is served on.
func newDelegatedParent(child *Route, d *Delegation) *Parent {
	grp, kind, ns := gwv1.Group(model.GatewayGroup), gwv1.Kind("HTTPRoute"), gwv1.Namespace(d.Parent.Meta.Namespace)
	p := &Parent{Index: len(child.Parents), Ref: gwv1.ParentReference{Group: &grp, Kind: &kind, Namespace: &ns, Name: gwv1.ObjectName(d.Parent.Meta.Name)}, Delegation: d}
	for _, pp := range d.Parent.Parents {
		if pp.Accepted {
			p.Listeners = append(p.Listeners, pp.Listeners...)
			p.Hostnames = append(p.Hostnames, pp.Hostnames...)
			if p.Gateway == nil {
				p.Gateway = pp.Gateway
			}
		}
	}
	if !d.Kept {
		p.Reason, p.Message = d.InvalidReason, d.Invalid
	}
	return p
}

// settle accepts a delegated parent entry that kept the child and is
// served somewhere.
func (p *Parent) settle() {
	switch {
	case p.Reason != "":
	case len(p.Listeners) == 0:
		p.reject("NoMatchingParent", fmt.Sprintf("parent %s is not attached to any listener", p.Delegation.Parent.Key().Ref()))
	default:
		p.Accepted = true
	}
}

// Served reports whether a rule of a route is served: a route delegated to
// serves only the rules some parent kept (their matches fall within the
// parent's).
func (r *Route) Served(rule *Rule) bool {
	return !r.reachedAsChild || rule.kept
}
