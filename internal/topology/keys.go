package topology

// Keys are the annotation, label and option keys of the controller family
// whose behaviour topology applies to Gateway API objects: route weights.
// The family declares them (policy.Controller.Topology) and
// internal/pipeline passes them in (Options.Keys): topology names no
// family's key itself. A key left empty is never read. (Route delegation's
// keys are read by the family's DelegationRules.)
type Keys struct {
	// RouteWeight is the route annotation that orders a route's Envoy
	// routes first (Options.WeightedRoutePrecedence).
	RouteWeight string
}
