package kgateway

import (
	"strconv"
	"time"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// ControllerName is kgateway's controllerName.
const ControllerName = "kgateway.dev/kgateway"

// Controller is kgateway, the controller of this family's kinds: the
// default one, with conditions of its own beside the Gateway API's, and
// replacing whole a rule an invalid policy merges into.
var Controller = policy.Controller{Name: ControllerName, Title: "kgateway", RenderTarget: Target.Name, Default: true, ExtraConditions: true, ReplacesInvalidWhole: true, Groups: []string{Group},
	// a rule's only backend is the route's cluster, its weight unread
	// (irtranslator/route.go: translateRouteAction), so a lone weight 0
	// still forwards
	LoneBackendIgnoresWeight: true,
	// a rule with no backendRefs (and nothing answering it) is "no action
	// specified" to kgateway's route translation: RouteRuleReplaced, 500
	NoActionReason:      "no action specified: the rule has no backendRefs and no filter that answers",
	ProgrammedCondition: "kgateway.dev/Programmed", SummaryGroup: Group, RouteSourceKey: RouteSourceKey, RouteSourceFields: routeSourceFields, RouteSource: &EnableRouteSourceMetadata,
	Topology: TopologyKeys, TLSOptions: tlsOptions, WeightedRoutePrecedence: &WeightedRoutePrecedence, ExtensionBackends: &ExtensionBackends,
	// On a backendRef kgateway applies the header modifiers (per
	// weighted cluster) and logs any other Gateway API filter type as
	// not supported there, leaving it out.
	BackendRefFilters: []string{"RequestHeaderModifier", "ResponseHeaderModifier"},
	// kgateway merges per Envoy resource it writes: an HTTPS listener has
	// a RouteConfiguration of its own (xdsnames.go: httpsChainName), where
	// the listener's policies and the whole Gateway's merge as one group;
	// HTTP listeners on a port share one, the Gateway's.
	GatewayMergeProtocols: []string{"HTTPS"},
	// A rule's ExtensionRef is looked up among the policies of kgateway's
	// own plugins (krtcollections/policy.go@6026ee98:
	// RoutesIndex.resolveExtension → PolicyIndex.fetchPolicy): another
	// family's kind, like a kind nobody defines, is ErrPolicyNotFound, the
	// rule's RouteAcceptanceError, so the rule is replaced
	// (irtranslator/route.go: RouteRuleReplaced) as for a missing
	// TrafficPolicy, and the policy it names applies to nothing there.
	OwnKindsOnly: true, UnknownFilterReplaces: true,
	// On a backendRef the same lookup's error is ignored
	// (krtcollections/policy.go@6026ee98: getBackends, "invalid/missing
	// policy for backendRef filters is undefined"): another family's kind
	// there configures nothing, silently.
	SkipsUnresolvedBackendRefs: true,
	// One BackendTLSPolicy wins a backend's cluster, the oldest of the
	// whole Service's and its port's alike (backendrank.go).
	BackendRank: backendRank}

// RouteSourceKey is the filter metadata naming the route object, rule and
// match an Envoy route comes from (kgateway's enableRouteSourceMetadata),
// for access logs to read (%METADATA(ROUTE:dev.kgateway.route_source:name)%).
const RouteSourceKey = "dev.kgateway.route_source"

// routeSourceFields are the fields of RouteSourceKey kgateway writes on a
// route: the route object's group, kind, namespace and name, its rule's
// name (an unnamed rule is _rule-N, N its index) and its match (_match-N).
func routeSourceFields(o policy.RouteOrigin) map[string]string {
	rule := o.RuleName
	if rule == "" {
		rule = "_rule-" + strconv.Itoa(o.Rule)
	}
	return map[string]string{"group": gwv1.GroupName, "kind": o.Kind, "namespace": o.Namespace, "name": o.Name,
		"rule": rule, "match": "_match-" + strconv.Itoa(o.Match)}
}

// Target is the render target of kgateway's Envoy build, which adds its
// dynamic-module filters (transformation, http-acl) to upstream Envoy's,
// with the xDS structure kgateway's translator writes.
var Target = policy.Target{Name: "kgateway", Capabilities: policy.UpstreamCapabilities("transformation", "acl"), Blackhole: true, HTTPSRedirect: true,
	HTTP2AppProtocols: HTTP2AppProtocols, PortNameIsAppProtocol: true, BlackholesInvalidBackendPolicy: true, UnroutedBackendClusters: true, MirrorBackendObjects: true, Names: XDSNames,
	SessionPersistence: sessionPersistence, BindIPv6: &ListenerBindIPv6, GatewayListener: gatewayListener, ExperimentalRuleFields: &EnableExperimentalGatewayAPIFeatures,
	MirrorFraction: mirrorFraction, BackendTransportMatches: istioTransportMatches,
	// kgateway's EDS clusters connect within 5s (irtranslator's
	// ClusterConnectionTimeout), a route to a kubernetes.io/ws backend
	// upgrades to WebSocket, and a health check naming its host leaves a
	// static Backend's endpoints without a health_check_config hostname.
	ConnectTimeout: 5 * time.Second, WebSocketAppProtocols: []string{"kubernetes.io/ws"}, CheckHostClearsEndpointHosts: true,
	// kgateway lower-cases an appProtocol (or the port name it reads
	// instead) before it names HTTP/2 or WebSocket (pluginsdk/ir/backend.go:
	// ParseAppProtocol, at every stored revision from before XListenerSets
	// gave way to v1 ListenerSets to after the pin's Gateway backend client
	// certificates).
	AppProtocolsFoldCase: true,
	// and writes a header modifier's add entries before its set entries
	// (krtcollections/builtin.go: convertHeaderModifierIR).
	HeaderAddsFirst: true,
	// kgateway turns a GRPCRoute match into an HTTPRoute match
	// (krtcollections/grpc_route.go: buildGRPCPathMatch): a service alone
	// is the PathPrefix /<service>.
	GRPCServiceSegments: true,
	// and ranks a PathPrefix by its value without trailing slashes
	// (routeutils/sortable_route.go: ParsePath → NormalizePathMatch)
	PrefixesRankTrimmed: true,
	// and writes the Gateway API filters as its built-in plugin does
	// (krtcollections/builtin.go: translateStatusCode's 302 default,
	// urlRewriteIr.apply, translatePathRewrite)
	PathModifiersAsWritten: true, RedirectFound: true,
	// and fills a TrafficPolicy statPrefix's route variables, then drops
	// the empty "."-separated segments they leave (trafficpolicy/
	// stat_prefix.go: applyStatPrefix → joinNonEmptyStatSegments, Z-row)
	StatPrefixSegments: true,
	// and applies a DirectResponse in the same pass as the rule's other
	// policies, its ApplyForRoute setting only the route's action, so the
	// TrafficPolicies' per-filter configuration stays on the answered
	// route (irtranslator/route.go: runRoutePlugins; directresponse/
	// direct_response_plugin.go: ApplyForRoute, W31)
	AnswersKeepPolicies: true}

// HTTP2AppProtocols are the Service port appProtocols kgateway speaks
// HTTP/2 to (HTTP/1.1 to every other). A port without an appProtocol is
// read by its name (kubernetes plugin, k8s.go: NewPluginFromCollections
// passes OrDefault(port.AppProtocol, port.Name) to ParseAppProtocol), so a
// port named grpc or http2 speaks HTTP/2 as well. The match ignores case
// (Target.AppProtocolsFoldCase).
var HTTP2AppProtocols = []string{"http2", "grpc", "grpc-web", "kubernetes.io/h2c"}

// TopologyKeys are the annotation keys kgateway reads on Gateway API
// objects which topology applies: route weights
// (weightedRoutePrecedence). The delegation keys are its delegation
// rules' (Delegation), the redirect status override
// (AnnotationRedirectStatus) its rule check's (checkRule), the listener
// tls.options its parser's (tlsOptions).
var TopologyKeys = topology.Keys{
	RouteWeight: "kgateway.dev/route-weight",
}

// Family is kgateway's family for internal/families to register: its
// controller, render target, CRDs' list limits, its route delegation, its
// check of route rules,
// its verdict on its Gateways' listeners and the stream routes it programs
// (its kinds are this package's, with the Gateway API's
// BackendTLSPolicy).
var Family = policy.Family{Name: "kgateway", Controller: &Controller, Target: &Target, ListLimits: ListLimits, Enums: Enums, Settings: Settings, Wildcards: wildcards, Delegation: Delegation,
	CheckRule: checkRule, Listeners: judgeListeners, StreamRoutes: StreamRoutes, Conflicts: markConflicts, AdmissionFirst: true, NoListenersNotValid: true, UnwatchedRoutes: unwatchedRoutes, UnreadListenerSets: unreadListenerSets, Grants: Grants, RuleNotes: ruleNotes, Ancestors: &Ancestors, Deployment: deployment,
	ObjectVerdicts: objectVerdicts, GatewayReport: gatewayAddresses}

// Grants is how kgateway matches a ReferenceGrant's groups against a
// reference (policy.Family.Grants): a group written "core", in the grant's
// from or to or in the reference, is the core group "" (RefGrantIndex:
// NewRefGrantIndex and ReferenceAllowed read every group through
// emptyIfCore). Its Gateways', routes' and policies' references are all
// judged by it. A backendRef's grant is checked before the backend is
// looked up (BackendIndex.GetBackendFromRef).
var Grants = model.GrantRule{CoreAlias: true, BeforeLookup: true}

// Ancestors are how kgateway reports a policy's ancestors: against the
// owner of the listener through which each Envoy resource it configures
// is reached (a ListenerSet's listeners: the ListenerSet), with a route
// parentRef's sectionName kept, and a delegated rule's copy — merged apart
// along each parent path — against the parents of that path. Past 16 it
// keeps the first by name (reports/policy.go: BuildPolicyStatus sorts its
// own entries and the other controllers' by ParentString and cuts the
// list).
var Ancestors = policy.AncestorReport{ListenerOwners: true, SectionName: true, PerDelegationPath: true, KeepByName: true}

// ruleNotes are what kgateway does of its own about the findings of
// generic stages (policy.Family.RuleNotes): the keys it reads and the
// listeners it refuses.
var ruleNotes = map[string]string{
	topology.LintDelegatedRouteOutsideParent.Name: "kgateway keeps a child match only when its path starts with the parent's path prefix and it repeats the parent's header and query param matches and method; its inheriting annotation is " + InheritParentMatcher + ".",
	topology.LintDelegationCycle.Name:             "kgateway's reason for the refused backendRef is RefNotPermitted.",
	topology.LintDelegationToNothing.Name:         "kgateway's delegating backendRefs name an HTTPRoute, \"" + RouteWildcard + "\" for every HTTPRoute of the namespace, or a label (group " + DelegationLabelGroup + ", kind label: the routes whose " + DelegationLabel + " has that value); a child with parentRefs accepts only the parent HTTPRoutes they name; kgateway refuses a delegatee that sets spec.hostnames (it inherits the parent's); its reason is BackendNotFound.",
	topology.LintRouteWeightInvalid.Name:          "kgateway's weight annotation is " + TopologyKeys.RouteWeight + ".",
	topology.LintListenerNotServed.Name:           "kgateway also refuses a listener on the port it reserves for itself (9091: its readiness and stats endpoint).",
	"precedence-by-name":                          "kgateway's weight annotation is " + AnnotationWeight + "; for extAuth, extProc and oauth2 the weight on the GatewayExtension does not settle it: kgateway orders only the extensions' filters in the chain by it.",
}
