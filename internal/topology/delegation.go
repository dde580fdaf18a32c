package topology

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Route delegation (kgateway): a parent HTTPRoute rule whose backendRef is
// an HTTPRoute (by name, "*" for every route of a namespace, or by label
// with group delegation.kgateway.dev and kind label) hands the requests its
// match selects to the child routes' rules. Children take the parent's
// hostnames and listeners; their matches must fall within the parent's.
const (
	DelegationLabel      = "delegation.kgateway.dev/label"
	DelegationLabelGroup = "delegation.kgateway.dev"
	InheritParentMatcher = "delegation.kgateway.dev/inherit-parent-matcher"
)

// Delegation is one parent rule handing traffic to one child route.
type Delegation struct {
	Parent *Route
	Rule   *Rule // the parent's delegating rule
	Child  *Route
	// Prefix is the parent rule's path prefix the child must stay within
	// ("" when the parent rule matches every path).
	Prefix string
	// Outside lists the child rules whose matches fall outside the parent's.
	Outside []int
}

// DelegatesToNothing reports whether a delegating rule selected no child
// route at all: it answers 500 (kgateway) instead of routing anywhere.
func (r *Rule) DelegatesToNothing() bool {
	return r.IsDelegating() && len(r.Children) == 0
}

// IsDelegating reports whether a rule delegates to child routes; such a rule
// produces no Envoy route of its own.
func (r *Rule) IsDelegating() bool {
	for _, b := range r.Backends {
		if isDelegationRef(b) {
			return true
		}
	}
	return false
}

func isDelegationRef(b *Backend) bool {
	return (b.Group == model.GatewayGroup && b.Kind == "HTTPRoute") || (b.Group == DelegationLabelGroup && strings.EqualFold(b.Kind, "label"))
}

// resolveDelegation links parents and children after every route's own
// parentRefs are resolved, then gives each child its parents' listeners,
// level by level, refusing cycles.
func (g *Graph) resolveDelegation() {
	g.httpRoutes = indexHTTPRoutes(g.Routes)
	for _, parent := range g.Routes {
		if parent.Kind != "HTTPRoute" {
			continue
		}
		for _, rule := range parent.Rules {
			for _, b := range rule.Backends {
				if !isDelegationRef(b) {
					continue
				}
				children := g.childrenOf(parent, b)
				for _, child := range children {
					d := &Delegation{Parent: parent, Rule: rule, Child: child, Prefix: rulePrefix(rule)}
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
	state := map[*Route]int{} // 0 unvisited, 1 in progress, 2 done
	for _, r := range g.Routes {
		g.settle(r, state)
	}
}

// childrenOf lists the routes a delegating backendRef selects. A child that
// names parents in its parentRefs accepts only those.
func (g *Graph) childrenOf(parent *Route, b *Backend) []*Route {
	var out []*Route
	for _, c := range g.httpRoutes.selected(b) {
		if c != parent && acceptsParent(c, parent) {
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

func indexHTTPRoutes(routes []*Route) routeIndex {
	ix := routeIndex{byNamespace: map[string][]*Route{}, byName: map[string][]*Route{}, byLabel: map[string][]*Route{}}
	for _, r := range routes {
		if r.Kind != "HTTPRoute" {
			continue
		}
		ns := r.Meta.Namespace
		ix.byNamespace[ns] = append(ix.byNamespace[ns], r)
		ix.byName[ns+"/"+r.Meta.Name] = append(ix.byName[ns+"/"+r.Meta.Name], r)
		if v, ok := r.Meta.Labels[DelegationLabel]; ok {
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
	case b.Group == DelegationLabelGroup:
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
// parent itself does, or the routes that match do not accept the parent.
func (g *Graph) whyNoChildren(parent *Route, b *Backend) string {
	what := fmt.Sprintf("HTTPRoute %s/%s", b.Namespace, b.Name)
	if b.Group == DelegationLabelGroup {
		what = fmt.Sprintf("HTTPRoute in namespace %s labelled %s=%s", b.Namespace, DelegationLabel, b.Name)
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

// settle gives a child route a Parent entry per delegating parent, with the
// listeners the parent is served on. Cycles are reported and cut.
func (g *Graph) settle(r *Route, state map[*Route]int) {
	switch state[r] {
	case 2:
		return
	case 1:
		g.Diagnostics = append(g.Diagnostics, diag.Diagnostic{Code: LintDelegationCycle.Code, Severity: diag.Error, Object: r.Key().Ref(), Field: "spec", Pos: r.Src.FieldPos("spec"),
			Message: fmt.Sprintf("%s is part of a delegation cycle; the cycle is ignored — remove one of the HTTPRoute backendRefs", r.Key().Ref())})
		return
	}
	state[r] = 1
	for _, d := range r.DelegatedBy {
		if state[d.Parent] == 1 {
			g.Diagnostics = append(g.Diagnostics, diag.Diagnostic{Code: LintDelegationCycle.Code, Severity: diag.Error, Object: d.Parent.Key().Ref(), Field: d.Rule.Path, Pos: d.Parent.Src.FieldPos(d.Rule.Path + ".backendRefs"),
				Message: fmt.Sprintf("delegation cycle: %s delegates to %s, which leads back to it; this delegation is ignored", d.Parent.Key().Ref(), r.Key().Ref())})
			continue
		}
		g.settle(d.Parent, state)
		g.delegate(d)
	}
	state[r] = 2
}

// delegate records the child's parent status and checks match narrowing.
func (g *Graph) delegate(d *Delegation) {
	child := d.Child
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
	if len(p.Listeners) == 0 {
		p.reject("NoMatchingParent", fmt.Sprintf("parent %s is not attached to any listener", d.Parent.Key().Ref()))
	} else {
		p.Accepted = true
	}
	child.Parents = append(child.Parents, p)
	if inheritsMatcher(child) || d.Prefix == "" {
		return
	}
	for _, rule := range child.Rules {
		if rule.HTTP == nil {
			continue
		}
		matches := rule.HTTP.Matches
		if len(matches) == 0 {
			matches = []gwv1.HTTPRouteMatch{{}}
		}
		for _, m := range matches {
			if !within(m, d.Prefix) {
				d.Outside = append(d.Outside, rule.Index)
				g.Diagnostics = append(g.Diagnostics, diag.Diagnostic{Code: LintDelegatedRouteOutsideParent.Code, Severity: diag.Warning, Object: child.Key().Ref(), Field: rule.Path + ".matches", Pos: child.Src.FieldPos(rule.Path + ".matches"),
					Message: fmt.Sprintf("rule %s of %s matches outside its parent %s (prefix %s); that rule is not served — narrow its path or set %s: \"true\"", rule.Section(), child.Key().Ref(), d.Parent.Key().Ref(), d.Prefix, InheritParentMatcher)})
				break
			}
		}
	}
}

func inheritsMatcher(r *Route) bool {
	return strings.EqualFold(r.Meta.Annotations[InheritParentMatcher], "true")
}

// rulePrefix is the path prefix of a delegating rule's first match.
func rulePrefix(r *Rule) string {
	if r.HTTP == nil || len(r.HTTP.Matches) == 0 || r.HTTP.Matches[0].Path == nil || r.HTTP.Matches[0].Path.Value == nil {
		return ""
	}
	v := *r.HTTP.Matches[0].Path.Value
	if v == "/" {
		return ""
	}
	return v
}

// within reports whether a child match stays under the parent's prefix.
func within(m gwv1.HTTPRouteMatch, prefix string) bool {
	if m.Path == nil || m.Path.Value == nil {
		return false
	}
	v := *m.Path.Value
	t := gwv1.PathMatchPathPrefix
	if m.Path.Type != nil {
		t = *m.Path.Type
	}
	if t == gwv1.PathMatchRegularExpression {
		return strings.HasPrefix(v, prefix) || strings.HasPrefix(v, "^"+prefix)
	}
	return v == prefix || strings.HasPrefix(v, strings.TrimSuffix(prefix, "/")+"/")
}

// Served reports whether a rule of a route is served (not dropped for
// falling outside its delegating parent).
func (r *Route) Served(rule *Rule) bool {
	for _, d := range r.DelegatedBy {
		if slices.Contains(d.Outside, rule.Index) {
			return false
		}
	}
	return true
}
