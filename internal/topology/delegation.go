package topology

import (
	"fmt"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Route delegation (kgateway): a parent HTTPRoute rule whose backendRef is
// an HTTPRoute (by name, "*" for every route of a namespace, or by label:
// group Keys.DelegationLabelGroup, kind label) hands the requests its
// match selects to the child routes' rules. Children take the parent's
// hostnames and listeners; their matches must fall within the parent's.

// Delegation is one parent rule handing traffic to one child route it
// selects (by name, "*" or label, and the child accepting the parent).
// Whether the child is served under that parent is decided when the
// parent's tree is flattened (see flatten.go): kgateway keeps only the
// child rules whose matches fall within the parent rule's match.
type Delegation struct {
	Parent  *Route
	Rule    *Rule    // the parent's delegating rule
	Backend *Backend // the delegating backendRef that selected the child
	Child   *Route
	// Kept reports that some flattening kept at least one child rule under
	// this parent: the child is served there and reports the parent in its
	// status.
	Kept bool
	// Invalid says why the child cannot be a delegatee at all (it sets
	// hostnames, which a delegatee inherits): Accepted False,
	// UnsupportedValue, for that parent.
	Invalid string
}

// DelegatesToNothing reports whether a delegating rule has no delegation
// that resolved: it answers 500 (kgateway) instead of routing anywhere.
func (r *Rule) DelegatesToNothing() bool {
	if !r.IsDelegating() {
		return false
	}
	for _, b := range r.Backends {
		if b.delegates && b.Resolved {
			return false
		}
	}
	return true
}

// IsDelegating reports whether a rule delegates to child routes; such a rule
// produces no Envoy route of its own.
func (r *Rule) IsDelegating() bool {
	for _, b := range r.Backends {
		if b.delegates {
			return true
		}
	}
	return false
}

// Delegates reports whether a backendRef names child HTTPRoutes.
func (b *Backend) Delegates() bool { return b.delegates }

// delegation classifies a backendRef: it names child HTTPRoutes (by name
// or "*"), or selects them by the family's delegation label.
func (g *Graph) delegation(b *Backend) (delegates, byLabel bool) {
	byLabel = g.keys.DelegationLabelGroup != "" && b.Group == g.keys.DelegationLabelGroup && strings.EqualFold(b.Kind, "label")
	return byLabel || (b.Group == model.GatewayGroup && b.Kind == "HTTPRoute"), byLabel
}

// resolveDelegation links parents and children after every route's own
// parentRefs are resolved, then gives each child its parents' listeners,
// level by level, refusing cycles.
func (g *Graph) resolveDelegation() {
	g.httpRoutes = indexHTTPRoutes(g.Routes, g.keys.DelegationLabel)
	for _, parent := range g.Routes {
		if parent.Kind != "HTTPRoute" {
			continue
		}
		for _, rule := range parent.Rules {
			for _, b := range rule.Backends {
				if !b.delegates {
					continue
				}
				children := g.childrenOf(parent, b)
				for _, child := range children {
					d := &Delegation{Parent: parent, Rule: rule, Backend: b, Child: child}
					rule.Children = append(rule.Children, d)
					child.DelegatedBy = append(child.DelegatedBy, d)
				}
				if len(children) == 0 {
					g.delegationToNothing(parent, b)
					continue
				}
				b.Resolved, b.Reason, b.Message = true, "", ""
			}
		}
	}
	for _, r := range g.Routes {
		if r.Kind == "HTTPRoute" && attachedToGateway(r) {
			g.flatten(r)
		}
	}
	g.reportUnserved()
	state := map[*Route]int{} // 0 unvisited, 1 in progress, 2 done
	for _, r := range g.Routes {
		g.settle(r, state)
	}
}

// childrenOf lists the routes a delegating backendRef selects. A child that
// names parents in its parentRefs accepts only those. The parent itself
// may be selected: that is a cycle, refused when the tree is flattened.
func (g *Graph) childrenOf(parent *Route, b *Backend) []*Route {
	var out []*Route
	for _, c := range g.httpRoutes.selected(b) {
		if acceptsParent(c, parent) {
			out = append(out, c)
		}
	}
	return out
}

// routeIndex finds the HTTPRoutes a delegating backendRef may select
// without scanning every route for every reference: by namespace (for
// "*"), by namespace and name, and by namespace and delegation label.
// Lists keep the graph's route order.
type routeIndex struct {
	byNamespace map[string][]*Route
	byName      map[string][]*Route
	byLabel     map[string][]*Route
}

func indexHTTPRoutes(routes []*Route, label string) routeIndex {
	ix := routeIndex{byNamespace: map[string][]*Route{}, byName: map[string][]*Route{}, byLabel: map[string][]*Route{}}
	for _, r := range routes {
		if r.Kind != "HTTPRoute" {
			continue
		}
		ns := r.Meta.Namespace
		ix.byNamespace[ns] = append(ix.byNamespace[ns], r)
		ix.byName[ns+"/"+r.Meta.Name] = append(ix.byName[ns+"/"+r.Meta.Name], r)
		if v, ok := r.Meta.Labels[label]; ok && label != "" {
			ix.byLabel[ns+"/"+v] = append(ix.byLabel[ns+"/"+v], r)
		}
	}
	return ix
}

// selected lists the routes a delegating backendRef names (by name, "*"
// or label), whether or not they accept the parent: HTTPRoutes of its
// namespace only.
func (ix routeIndex) selected(b *Backend) []*Route {
	switch {
	case b.byLabel:
		return ix.byLabel[b.Namespace+"/"+b.Name]
	case b.Name == "*":
		return ix.byNamespace[b.Namespace]
	}
	return ix.byName[b.Namespace+"/"+b.Name]
}

// delegationToNothing marks a delegating backendRef that selects no child
// route unresolved, as kgateway does (ResolvedRefs=False, BackendNotFound,
// and the rule answers 500 when nothing else resolves), and says why: the
// traffic must not fall through to a broader route unnoticed.
func (g *Graph) delegationToNothing(parent *Route, b *Backend) {
	b.Resolved, b.Reason = false, "BackendNotFound"
	b.Message = fmt.Sprintf("%s/%s/%s/%s: unresolved reference", b.Group, b.Kind, b.Namespace, b.Name)
	b.Why = g.whyNoChildren(parent, b)
	g.Diagnostics = append(g.Diagnostics, diag.Diagnostic{Code: LintDelegationToNothing.Code, Severity: diag.Error, Object: parent.Key().Ref(), Field: b.Path, Pos: parent.Src.FieldPos(b.Path),
		Message: fmt.Sprintf("backendRef delegates to no route: %s; the rule answers 500", b.Why)})
}

// whyNoChildren explains an empty selection: nothing matches, only the
// parent itself does (it names Gateways in its parentRefs, so it does not
// accept itself), or the routes that match do not accept the parent.
func (g *Graph) whyNoChildren(parent *Route, b *Backend) string {
	what := fmt.Sprintf("HTTPRoute %s/%s", b.Namespace, b.Name)
	if b.byLabel {
		what = fmt.Sprintf("HTTPRoute in namespace %s labelled %s=%s", b.Namespace, g.keys.DelegationLabel, b.Name)
	} else if b.Name == "*" {
		what = "HTTPRoute in namespace " + b.Namespace
	}
	var self bool
	var refusing []string
	for _, c := range g.httpRoutes.selected(b) {
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

func acceptsParent(child, parent *Route) bool {
	if len(child.ParentRefs) == 0 {
		return true
	}
	for _, p := range child.ParentRefs {
		ns := child.Meta.Namespace
		if p.Namespace != nil && *p.Namespace != "" {
			ns = string(*p.Namespace)
		}
		if p.Kind != nil && *p.Kind == "HTTPRoute" && string(p.Name) == parent.Meta.Name && ns == parent.Meta.Namespace {
			return true
		}
	}
	return false
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
			continue // filtered out: kgateway reports nothing for it
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
		p.Reason, p.Message = "UnsupportedValue", d.Invalid
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

func (g *Graph) inheritsMatcher(r *Route) bool {
	if g.keys.InheritParentMatcher == "" {
		return false
	}
	switch strings.ToLower(r.Meta.Annotations[g.keys.InheritParentMatcher]) {
	case "true", "yes", "enabled":
		return true
	}
	return false
}

// Served reports whether a rule of a route is served: a route delegated to
// serves only the rules some parent kept (their matches fall within the
// parent's).
func (r *Route) Served(rule *Rule) bool {
	return !r.reachedAsChild || rule.kept
}
