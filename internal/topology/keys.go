package topology

// Keys are the annotation, label and option keys of the controller family
// whose behaviour topology applies to Gateway API objects: route
// delegation by label, a child route inheriting its parent's matcher and
// route weights.
// The family declares them (policy.Controller.Topology) and
// internal/pipeline passes them in (Options.Keys): topology names no
// family's key itself. A key left empty is never read.
type Keys struct {
	// DelegationLabel is the label of child HTTPRoutes that a parent's
	// backendRef of group DelegationLabelGroup (kind label) selects.
	DelegationLabel, DelegationLabelGroup string
	// InheritParentMatcher is the child route annotation that keeps its
	// matches under the parent's instead of requiring them within it.
	InheritParentMatcher string
	// RouteWeight is the route annotation that orders a route's Envoy
	// routes first (Options.WeightedRoutePrecedence).
	RouteWeight string
}
