package topology

import "github.com/gwpol/gwpol/internal/diag"

// The lint rules of the findings topology makes resolving listeners and
// route delegation (by the controller's DelegationRules, whose family's
// RuleNotes say its own rules). A finding takes its Code from its rule;
// lint's registry lists every rule (lint.Rules).
var (
	LintNamespaceLabelsUnknown = diag.Rule{Code: "GWP106", Name: "namespace-labels-unknown", Severity: diag.Warning,
		Title: "namespace selector needs labels of a Namespace not in the input",
		Doc:   "A listener's allowedRoutes selector needs labels beyond the automatic kubernetes.io/metadata.name of a namespace whose Namespace manifest is not in the input. gwpol assumes the routes from it are allowed, so they stay analysed, and reports the listener once per namespace; add the Namespace manifest to decide it."}
	LintDelegatedRouteOutsideParent = diag.Rule{Code: "GWP209", Name: "delegated-route-outside-parent", Severity: diag.Warning,
		Title: "delegated child route attached to no parent or matching outside it",
		Doc:   "A child HTTPRoute rule's matches fall outside every delegating parent's match (that rule is not served): the controller keeps under a parent match only the child matches its delegation rules place within it, unless the child inherits the parent's matcher."}
	LintDelegationCycle = diag.Rule{Code: "GWP210", Name: "delegation-cycle", Severity: diag.Error,
		Title: "route delegation cycle",
		Doc:   "HTTPRoutes delegate to each other in a loop: flattening a parent's tree reaches a backendRef that selects a route already above it. That backendRef is refused: its match answers 500 (or, when the match itself is one the controller leaves out, GWP212, its requests go to the next route; the finding says which) and the route's ResolvedRefs is False (with the controller's reason); the rest of the tree is served."}
	LintDelegationToNothing = diag.Rule{Code: "GWP211", Name: "delegation-to-nothing", Severity: diag.Error,
		Title: "delegating backendRef selects no child route",
		Doc:   "A delegating HTTPRoute backendRef selects no route it can serve: none exists, it names the parent itself, the routes it selects do not accept the parent, no rule of theirs is kept under the parent's match, or the controller refuses them as delegatees. The rule answers 500 (or, when its own match is one the controller leaves out, GWP212, its requests go to the next route; the finding says which) and the route's ResolvedRefs is False (with the controller's reason)."}
	LintRuleNotProgrammed = diag.Rule{Code: "GWP212", Name: "rule-not-programmed", Severity: diag.Error,
		Title: "route rule the controller cannot translate as written",
		Doc:   "A route rule Envoy's validation, as the controller runs it, refuses: a rewrite or redirect path with a dot segment, an invalid character or a line break, a header value with NUL, CR or LF, or, under Strict validation, one that is not a valid Envoy substitution format (a % that starts no %COMMAND% and is not doubled) (the rule is replaced: it answers 500), or a regular expression that is empty, or does not compile as RE2 under Strict validation (the rule is dropped: its requests go to the next matching route). Status reports it (Programmed False, RouteRuleReplaced or RouteRuleDropped), render writes it so, and explain notes it. Each controller judges the rule on its own Gateways by its own checks, and the finding is its: a controller that accepts a value but writes config Envoy refuses (an empty regular expression, a line break in a header name to remove or a path, a value that is no substitution format) has it left out, with what the controller then does; one that skips a header operation it cannot apply (a name that is not an HTTP token, a value with a line break) serves the rest of the rule, and the finding is a warning."}
	LintStreamRouteNotProgrammed = diag.Rule{Code: "GWP213", Name: "stream-route-not-programmed", Severity: diag.Warning,
		Title: "TCPRoute or TLSRoute accepted but given no filter chain",
		Doc:   "A TCPRoute or TLSRoute a TCP or TLS listener accepts, for which the controller programs no tcp_proxy filter chain, so it carries no connection: a TCP listener serves only one route (the oldest, or the first of one rule, as its controller picks it), a controller may program only routes of exactly one rule, with backendRefs, and it may refuse a route on one listener it attaches to (a TLSRoute whose backend forwards by SNI, on a listener that terminates TLS). Its status says Accepted, unless the controller refuses the route (a route with other than one rule: Accepted False, with the controller's reason; on one listener: ResolvedRefs False); the finding says which, as status does. Render leaves it out, as the controller does; when no route on the port is programmed, the listener is not Programmed either. A UDP listener its controller serves is judged the same way: a controller may proxy the datagrams of one UDPRoute per UDP listener (the oldest of one rule, say)."}
	LintStreamChainsOverlap = diag.Rule{Code: "GWP214", Name: "stream-chains-overlap", Severity: diag.Error,
		Title: "two filter chains on one port match the same TLS server name",
		Doc:   "A TLSRoute's filter chain matches a server name (SNI) that another route's, or an HTTPS listener's, on the same port matches already — or two chains match every connection (TCPRoutes on one terminating TLS listener, a TLSRoute without hostnames beside an HTTPS listener without one). The controller programs both and Envoy rejects the whole listener, so nothing on the port is served. The later route is reported."}
	LintListenerNotServed = diag.Rule{Code: "GWP216", Name: "listener-not-served", Severity: diag.Error,
		Title: "listener the controller builds no filter chain for",
		Doc:   "The listener's controller leaves it out of the Envoy config when none of its certificates resolves, its Gateway's frontend validation names a CA that is missing, of another kind or not granted, a tls.option is unusable (an unknown TLS version; verify-subject-alt-names without a CA), or it allows only route kinds its protocol cannot carry; a controller may refuse more listeners by rules of its own, or not serve their protocol at all (UDP, say). Status reports it (Accepted or ResolvedRefs False), render leaves it out, and its routes are not served through it. A listener refused for sharing its port — another listener on the port uses a protocol that cannot share it (ProtocolConflict) or the same hostname (HostnameConflict) — is reported too, at its port, under every controller: status says Conflicted True (with the controller's own message), and the controller builds no filter chain for it. A listener set of a kind the Gateway's controller does not read (the experimental XListenerSet, which a controller may read only under a setting of its deployment, or not at all) is reported at its parentRef, as a warning: none of its listeners is served, the routes and policies naming it attach to nothing, and it gets no status."}
)

// LintRouteWeightInvalid is the rule for a route-weight annotation that
// is not an int32.
var LintRouteWeightInvalid = diag.Rule{Code: "GWP215", Name: "route-weight-invalid", Severity: diag.Warning,
	Title: "route weight annotation is not an int32",
	Doc:   "With the controller's weighted route precedence on (weightedRoutePrecedence), it orders a route's Envoy routes by the route's weight annotation first (higher first). A value that is not an int32 counts as 0."}

// LintGatewayClassNotAccepted is the rule for a GatewayClass its
// controller refuses (ClassVerdict), and for each Gateway of it.
var LintGatewayClassNotAccepted = diag.Rule{Code: "GWP225", Name: "gatewayclass-not-accepted", Severity: diag.Error,
	Title: "GatewayClass its controller does not accept; its Gateways are served by nothing",
	Doc:   "A GatewayClass names a controller that refuses it by a rule of its own (a controller that manages only the class names it is configured with writes Accepted False/Unsupported on any other class naming it: policy.Family.GatewayClass). No other controller reconciles a class that names another, so nothing serves the class's Gateways: status writes the class's conditions as the controller does and leaves its Gateways Pending with none of their routes' parents, render leaves them out, and explain notes it on each. Reported at the class's name and at each Gateway's gatewayClassName."}

// LintRules are the rules above, for lint's registry.
func LintRules() []diag.Rule {
	return []diag.Rule{LintNamespaceLabelsUnknown, LintDelegatedRouteOutsideParent, LintDelegationCycle, LintDelegationToNothing, LintRuleNotProgrammed,
		LintStreamRouteNotProgrammed, LintStreamChainsOverlap, LintRouteWeightInvalid, LintListenerNotServed, LintGatewayClassNotAccepted}
}
