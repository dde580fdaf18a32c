package lint

import "github.com/gwpol/gwpol/internal/diag"

// lint's own rules: it finds their findings in the IR (ownRules), each
// built with its rule's Code.
var (
	ReferenceNotPermitted = diag.Rule{Code: "GWP203", Name: "reference-not-permitted", Severity: diag.Error,
		Title: "reference across namespaces not allowed (no ReferenceGrant / policy rules)",
		Doc:   "A backendRef, certificateRef or policy reference points into another namespace and no ReferenceGrant there allows it."}
	RouteNotAttached = diag.Rule{Code: "GWP204", Name: "route-not-attached", Severity: diag.Warning,
		Title: "route attached to no listener (with the reason)",
		Doc:   "A route parentRef was not accepted by any listener; the reason is the Gateway API's (NotAllowedByListeners, NoMatchingListenerHostname, NoMatchingParent), or Unwatched when the parent's controller does not read routes of that kind at all (a kind it has no support for, or one a deployment switch turns off: the experimental route kinds, say)."}
	BackendNotFound = diag.Rule{Code: "GWP217", Name: "backend-not-found", Severity: diag.Warning,
		Title: "backendRef to an object, or a Service port, not in the input",
		Doc:   "A backendRef of an attached route names a Service (or Backend) the input does not hold, or a port the Service does not expose. The route's ResolvedRefs is False (BackendNotFound) and render answers 500 for that backendRef's share of requests, as the controller does. When the object is deployed outside the repository (a Service an application pipeline creates), declare its kind with config assumeExist: [Service] or --assume-exist Service: references to absent objects of that kind are then resolved."}
	TooManyAncestors = diag.Rule{Code: "GWP208", Name: "too-many-ancestors", Severity: diag.Warning,
		Title: "more than 16 ancestors",
		Doc:   "Policy status holds at most 16 ancestors; the rest are not reported by the controller."}
	PolicyOverridden = diag.Rule{Code: "GWP301", Name: "policy-overridden", Severity: diag.Warning,
		Title: "policy Overridden: it sets fields, none of which take effect on some target",
		Doc:   "At a target the policy attaches to, every field it sets is won by a higher-priority policy, so it has no effect there (status Attached=False/Overridden)."}
	PolicyMerged = diag.Rule{Code: "GWP302", Name: "policy-merged", Severity: diag.Info,
		Title: "policy Merged: some of its fields lose on some target (names them)",
		Doc:   "Some of the policy's fields are won by other policies at a target; the rest take effect (status Merged)."}
	PrecedenceByName = diag.Rule{Code: "GWP303", Name: "precedence-by-name", Severity: diag.Warning,
		Title: "precedence between two policies decided only by name",
		Doc:   "Two policies with the same weight and no creationTimestamp set the same field at a target; the controller leaves their order undefined, gwpol orders by namespace/name. In a cluster the API server's creationTimestamp decides, which a repository cannot control: set the kind's weight annotation on the policy instead, where the kind has one."}
	GatewayFieldShadowed = diag.Rule{Code: "GWP304", Name: "gateway-field-shadowed", Severity: diag.Info,
		Title: "a gateway-level field is shadowed on these routes by a route-level policy",
		Doc:   "A field set by a Gateway or listener policy is replaced on some routes by a route policy (Envoy's most specific per-filter config wins)."}
	FieldOverriddenByRouteRule = diag.Rule{Code: "GWP305", Name: "field-overridden-by-route-rule", Severity: diag.Warning,
		Title: "a policy field has no effect on a route rule that sets the field itself",
		Doc:   "The route rule sets the same thing in its own Gateway API spec (HTTPRoute timeouts, retry, a URLRewrite filter's hostname or path), which the controller applies ahead of every policy; the policy's value is lost there, although the controller still reports the policy Attached and lists it in its merge metadata."}
	FieldNotForBackendProtocol = diag.Rule{Code: "GWP306", Name: "field-not-for-backend-protocol", Severity: diag.Warning,
		Title: "a backend policy field for one upstream protocol on a backend that speaks the other",
		Doc:   "A backend policy sets a field its controller applies only to a backend of one upstream protocol (HTTP/1 or HTTP/2 protocol options) on a backend that speaks the other, as the controller decides it from the backend before any policy: a Service port's appProtocol (or its name, where the controller reads port names), a backend object's own app protocol. The controller leaves the field out of that backend's cluster and keeps the policy accepted, so status shows nothing. Target only backends of the field's protocol, set the backend's appProtocol, or use the other protocol's options."}
	FieldOverriddenAcrossFamilies = diag.Rule{Code: "GWP307", Name: "field-overridden-across-families", Severity: diag.Warning,
		Title: "a policy field loses its Envoy path to another controller family's policy on a Gateway that takes both",
		Doc:   "On a Gateway that takes every kind (its GatewayClass absent, or naming no controller gwpol knows), policies of two controller families' kinds reach one route or listener, and a field of each writes the same Envoy setting (one family's request timeout and another's both set route.timeout; one family's listener policy and another's client traffic policy both set the connection manager's stream_idle_timeout). One value can be in the route or the listener's resources: gwpol keeps the field whose policy attached at the more specific level, then the older one, then the one whose namespace/name sorts first, and leaves the other field out whole (out of the route, or out of the listener's connection manager, filter chain, TLS and virtual hosts and so of every route it serves); explain shows it overridden, naming the path, in the listener's view and the views of its routes. A route's policy setting its backends' clusters (connect timeout, circuit breakers) loses those settings on the cluster of a backend whose own policy of the other family sets them: the backend is the more specific level; the field stays on the route and on the other backends' clusters. No controller would serve both kinds on one Gateway: give the Gateway a GatewayClass of the controller meant to serve it, or keep one family's policies on its routes and listeners."}
	ClusterFromFirstListener = diag.Rule{Code: "GWP308", Name: "cluster-from-first-listener", Severity: diag.Warning,
		Title: "a policy's cluster settings do not reach a route rule's cluster on a later listener",
		Doc:   "The controller builds a route rule's cluster once per Gateway, from the rule's route on the first listener serving it (it names the cluster after the rule and adds no later cluster of that name), and the rule's routes on every other listener send to that cluster. A policy on a later listener (or one merging there) that sets cluster settings — timeouts on the connection, load balancing, circuit breakers, health checks — has none of them on that rule's traffic, although its status says Accepted and its route settings (a request timeout) apply; explain shows whose settings the cluster has. Set the cluster settings where the first listener's route takes them (a policy on that listener, the Gateway or the route), or attach the route through one listener."}
	StatusReplacedByOneWriter = diag.Rule{Code: "GWP309", Name: "status-replaced-by-one-writer", Severity: diag.Warning,
		Title: "a policy's status holds several controllers' entries, and one of them replaces the whole status when it writes",
		Doc:   "Several controllers report one policy — a Gateway API BackendTLSPolicy on a Service that Gateways of different controllers route to — each writing its ancestors into the same status, and one of them writes the status whole: it replaces every entry with its own, dropping the ancestors the others wrote, which come back only when they write again. gwpol's status shows every controller's entries, as the cluster holds them after a controller that keeps the others' entries wrote last; after the replacing controller's write the cluster shows its entries alone. Which one a reader sees depends on which controller wrote last, so a check of the policy's status on the cluster (kubectl wait, a CI gate) can miss the verdict of a controller that refuses it. Read each controller's verdict with gwpol status, or route the Service through one controller's Gateways."}
	PolicyNoEffect = diag.Rule{Code: "GWP405", Name: "policy-no-effect", Severity: diag.Warning,
		Title: "policy attaches but sets no field that takes effect",
		Doc:   "The policy is accepted and attached, but sets no field (only targetRefs, or only misspelled keys) or only empty ones (rateLimit: {}): it changes nothing where it attaches, though status says Attached. Also: a policy whose mergeType finds no Gateway or listener policy of its kind to merge into on some route: the mergeType changes nothing there."}
)

// ownRules are lint's own rules with the functions that find them.
func ownRules() []Rule {
	return []Rule{
		{ReferenceNotPermitted, crossNamespace},
		{RouteNotAttached, unattachedRoutes},
		{BackendNotFound, missingBackends},
		{TooManyAncestors, tooManyAncestors},
		{PolicyOverridden, overridden},
		{PolicyMerged, merged},
		{PrecedenceByName, tiesByName},
		{GatewayFieldShadowed, shadowed},
		{FieldOverriddenByRouteRule, lostToRule},
		{FieldNotForBackendProtocol, protocolMismatches},
		{FieldOverriddenAcrossFamilies, overriddenAcrossFamilies},
		{ClusterFromFirstListener, clusterFromFirst},
		{StatusReplacedByOneWriter, statusReplaced},
		{PolicyNoEffect, noEffect},
	}
}
