package policy

// This file is the policy-kind contract: the one interface a kind must
// implement (Kind) and every optional hook the stages find on a Kind by a
// comma-ok type assertion. A kind package asserts each hook it implements
// with a `var _ policy.X = …` line, so that a changed signature fails to
// compile instead of silently turning the hook off; internal/families's
// tests fail on a registered kind that implements a hook without that
// line, has a hook's method with another signature, or on a hook missing
// from the list below.
//
// Who calls which hook:
//
//	Kind              every stage: GroupKind, Spec (attachment, fields, merge), Decode
//	Auxiliary         the registry: other objects of the kind's API group it reads
//	Untranslator      the registry (Decode): objects and fields its family reads but does not translate, reported (GWP406)
//	BackendProvider   the registry, topology: backendRef kinds the API group defines
//	BackendClusterer  render/envoy: the Envoy cluster of such a backend object
//	BackendDescriber  explain: the cluster settings such an object's own spec sets
//	PortlessBackends  the registry, topology: backendRef kinds a ref must name without a port
//	BackendAppProtocoler  render/envoy (Registry.BackendProtocol): the protocol such a backend object speaks (WebSocket upgrade, protocol options)
//	RuleChecker       attach: may a policy be used on this rule (route kind)?
//	NamespaceSelecting  attach: may a targetSelector select an object in another namespace (so the policy applies where its status accepts it)?
//	DeepConflicter    merge: does a deep merge of a field conflict (then shallow)?
//	Inheritor         merge: how a parent route's policies combine with a child's
//	RuleFielder       merge: a route rule's own Gateway API values of the kind's fields
//	TargetRuleFielder  merge: … read as the render target serving the route reads them (Target.RuleTimeout)
//	Instancer         merge, explain: which named data-plane instance a value configures
//	DeepResetter      merge, explain: a value a deep merge records alone as the field's origin, dropping those merged before it
//	WholeOverrider    merge, render: a more specific policy replaces a less specific one whole, or merges into it
//	InvalidKeeper     merge (Routed): the fields of an invalid policy its controller keeps on the rules it fails
//	PortScoper        merge (mergeLevel, Effective), explain: fields that apply on one listener port only, and the parts of a port's entry
//	Renderer          render/envoy: Envoy fragments for one merged field
//	StreamListenerConfigurer  render/envoy: policies on a TCP or TLS listener configure its TCP proxy chains
//	Answerer          merge (FixedStatus), explain: a field that answers the rule itself
//	BackendCaller     status: the backends a policy calls, which report a backend policy against it
//	BackendReferrer   decode, route validation (Env.BackendPolicies): what the policy governing a backend port references, which a controller resolves while it builds a destination
//	ConditionWriter   status: policy conditions other than Accepted/Attached
//	ObjectStatuser    status: conditions on the object itself (APIs, not attached policies)
//	RouteStatuser     status: a route parent's conditions as a controller gwpol reports no Controller for writes them (the WSO2 gateway operator), in place of the Gateway API's
//	GraphRefiner      the pipeline (after decode and topology): findings its controller makes only where a target reaches a Gateway
//	Identifier        explain: runtime names of rules and policies in the data plane
//	LintRuleOwner     lint: the lint rules of findings only the kind makes
//	RuleNoter         explain: notes of the kind's own on a route rule (a policy chain it runs)
//	ObjectExplainer   cli's explain command: a view of its own of one object of the kind
//	Standalone        cli's render command: what serves the kind's objects when there is no Gateway
//	Disabler          guardrail: a value of a field that switches its feature off (a route clearing its Gateway's)
//	Enabler           lint, status, explain (Policy.NoEffect): an empty value of a field that switches its feature on with its defaults
//	ValueTyper        guardrail: the Go type of a field's value, whose JSON names its sub-fields
//	ClusterSetter     lint: whether a field's values set anything on the cluster a route sends to (its declared cluster paths written by some values only)

import (
	"reflect"
	"slices"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/topology"
	"google.golang.org/protobuf/proto"
)

// Kind is one supported policy kind.
type Kind interface {
	// GroupKind of the policy objects.
	GroupKind() model.GroupKind
	// Spec describes attachment, fields and status behaviour.
	Spec() KindSpec
	// Decode reads and validates one policy object. It never fails: a
	// policy that cannot be used is returned with Invalid diagnostics.
	Decode(obj *manifest.Object, env *Env) *Policy
}

// LintRuleOwner is implemented by kinds that make findings no other kind
// or stage makes; lint's registry lists their rules (Registry.LintRules).
// Rules several kinds share are declared in this package (LintRules).
type LintRuleOwner interface {
	LintRules() []diag.Rule
}

// NamespaceSelecting is implemented by kinds whose targetSelectors may
// select targets outside the policy's namespace by a rule of the policy's
// own (a selector's namespaces field, with a ReferenceGrant): attach asks
// it about each object a selector matches
// elsewhere, so that the policy applies where its status says it is
// accepted.
type NamespaceSelecting interface {
	// SelectsIn reports whether p's selector t may select the object
	// ns/name of t's kind, ns being another namespace than p's.
	SelectsIn(p *Policy, t TargetRef, m *model.Model, ns, name string) bool
}

// Untranslator is implemented by kinds whose family reads objects, or
// parts of objects, it does not translate offline (a whole kind, such as
// Envoy Gateway's EnvoyPatchPolicy; the settings of its EnvoyProxy it
// does not model): each is reported where it is set (GWP406), with the
// reason, rather than dropped silently. The kinds named must be in the
// model (Auxiliary).
type Untranslator interface {
	UntranslatedFields() []UntranslatedField
}

// UntranslatedField is one declaration of Untranslator.
type UntranslatedField struct {
	Kind model.GroupKind
	// Path is the field ("" the whole object); with Except, each key
	// under it but the paths Except names is reported on its own.
	Path   string
	Except []string
	// Reason says why it has no effect offline, for the finding.
	Reason string
}

// Auxiliary is implemented by kinds that read other objects of their API
// group (kgateway's GatewayExtension, WSO2's RestApi…).
type Auxiliary interface {
	AuxiliaryKinds() []model.GroupKind
}

// BackendProvider is implemented by kinds whose API group defines backendRef
// kinds (kgateway's Backend).
type BackendProvider interface {
	BackendKinds() []model.GroupKind
}

// BackendClusterer is implemented by BackendProviders that know the
// Envoy cluster of their backend objects (kgateway's Backend: static
// hosts, dynamic forward proxy, AWS, GCP).
type BackendClusterer interface {
	// BackendCluster builds the cluster of that name for the backend
	// object (a go-control-plane Cluster, built in the kind's render
	// files) and what routing to it needs. A backend type gwpol does not
	// render is a diag.Unsupported error; the renderer then keeps a plain
	// EDS cluster and reports it (GWP404). A nil build without error: the
	// object's cluster is the plain EDS cluster. env is the pass's (nil
	// outside one): its Config the deployment's settings that shape every
	// backend's cluster, its Model the objects a backend reads (the
	// Secrets that hold its credentials).
	BackendCluster(obj *manifest.Object, name string, env *Env) (*BackendBuild, error)
}

// BackendBuild is a backend object's cluster and what routing to it needs.
type BackendBuild struct {
	Cluster proto.Message
	// Filter is the HTTP filter a chain routing to it needs enabled (nil
	// when none).
	Filter *HTTPFilter
	// Clusters are the other clusters the filter calls (go-control-plane
	// Clusters), e.g. GCP's metadata server.
	Clusters []proto.Message
	// Route holds the route action settings of a route sending to the
	// backend alone (a go-control-plane RouteAction): they replace the
	// action's defaults (a GCP backend rewrites the host to its own and
	// sets no cluster-not-found code).
	Route proto.Message
	// PerRoute, when set, gives the typed_per_filter_config entries (by
	// filter name; go-control-plane messages) a route sending to the
	// backend needs, from the route's final RouteAction (e.g. what its
	// host rewrite lets a client choose). nil entries: none.
	PerRoute func(action proto.Message) map[string]proto.Message
}

// PortlessBackends is implemented by BackendProviders whose backend
// objects define their own ports (kgateway's Backend): a backendRef that
// names one with a port is refused (ResolvedRefs=False, BackendNotFound).
type PortlessBackends interface {
	PortlessBackendKinds() []model.GroupKind
}

// BackendDescriber is implemented by BackendProviders whose backend
// objects' own spec sets cluster settings a backend policy could also
// set (an AWS Lambda Backend's TLS and HTTP/2): explain names the object
// as their owner where no policy sets them.
type BackendDescriber interface {
	// BackendSettings are the FieldSpec.Cluster names the object's spec
	// sets, with the spec field that sets each.
	BackendSettings(obj *manifest.Object) map[string]string
}

// BackendAppProtocoler is implemented by BackendProviders whose backend
// objects name the application protocol they speak (kgateway's Backend
// static.appProtocol), e.g. kubernetes.io/ws, for which a route upgrades
// to WebSocket.
type BackendAppProtocoler interface {
	BackendAppProtocol(obj *manifest.Object) string
}

// RuleChecker is implemented by kinds whose policies are valid or not
// depending on the route whose rule references them (HAProxyRoutePolicy
// rejects response caching on a GRPCRoute, and any use on a route that
// also passes TLS through). attach calls it for every ExtensionRef that
// resolves to a policy of the kind; diagnostics it returns break that rule
// (it fails closed), not the policy.
type RuleChecker interface {
	// CheckRule returns the problems of using p on a rule of route rt
	// (an HTTPRoute or GRPCRoute); nil when p may be used there.
	CheckRule(p *Policy, rt *model.Route) []diag.Diagnostic
}

// StreamListenerConfigurer is implemented by kinds whose policies on a
// TCP or TLS listener (sectionName) configure that listener's filter
// chains (Envoy Gateway's ClientTrafficPolicy: TLS, connection, keepalive,
// PROXY protocol, TCP idle timeout). The renderer merges other kinds'
// policies on such a listener into nothing: their controllers program no
// listener-level configuration there.
type StreamListenerConfigurer interface {
	ConfiguresStreamListeners() bool
}

// DeepConflicter is implemented by kinds whose deep merge of a field can
// conflict (kgateway ACLs with different default actions); on conflict the
// field falls back to shallow merging.
type DeepConflicter interface {
	DeepConflict(key string, a, b any) bool
}

// Inheritor is implemented by kinds whose parent routes say how their
// policies combine with delegated children's (kgateway's
// kgateway.dev/inherited-policy-priority annotation on the parent route).
type Inheritor interface {
	InheritStrategy(parentAnnotations map[string]string) Strategy
}

// RuleFielder is implemented by kinds some of whose fields a route rule
// also sets in its own Gateway API spec, where the rule's value takes
// precedence over every policy's in the data plane: kgateway applies an
// HTTPRoute rule's timeouts and retry first, and a TrafficPolicy only
// fills what they leave unset, while still reporting the policy as
// attached. merge makes such a rule a candidate ahead of all policies.
type RuleFielder interface {
	// RuleFields returns the rule's own values of the kind's fields, in
	// the kind's value types (what its renderer takes), in field order,
	// as the controller reads them under the deployment cfg (kgateway
	// ignores a rule's experimental fields with its experimental switch
	// off); nil when the rule sets none.
	RuleFields(rt *model.Route, rule *model.Rule, cfg Config) []RuleField
	// Overlay lays a value of a field over a less specific one (a rule's
	// own over a policy's; for FillsUnset fields, a route's over its
	// Gateway's): the value in effect, and whether any part of the less
	// specific value remains in it (kgateway keeps a policy's stream-idle
	// timeout when the rule sets its own request timeout).
	Overlay(key string, over, under any) (effective any, underRemains bool)
}

// TargetRuleFielder is implemented by RuleFielders whose reading of a
// rule's own values depends on the render target serving the route (a
// target's RuleTimeout). merge calls RuleFieldsOn instead of RuleFields,
// with the target of the one controller serving every Gateway of the
// route; nil when there is none, or more than one.
type TargetRuleFielder interface {
	RuleFieldsOn(rt *model.Route, rule *model.Rule, cfg Config, t *Target) []RuleField
}

// Instancer is implemented by kinds some of whose fields each configure
// one of several named instances of a data-plane feature (kgateway's
// ext_authz, ext_proc and oauth2 providers, each an Envoy filter of its
// own). A field decided at a more specific level hides a less specific
// level's only for the same instance, or when it names none (a disable):
// a Gateway's provider stays in effect beside a route's other provider. A
// deep merge takes each instance from the first value merged for it.
type Instancer interface {
	// Instance names the instance a value of the field configures, ""
	// when it names none; ns is the namespace of the policy that set it.
	Instance(key string, v any, ns string) string
}

// DeepResetter is implemented by kinds some of whose values, merged by a
// deep merge after other values of the field, replace them as the field's
// origin: the values merged before it lose the field, those merged after
// it still merge, and an instance a lost value configured is still taken
// (Instancer) — a disable of a family of named instances, which switches
// the family off and which the controller's merge records as the field's
// only origin so far.
type DeepResetter interface {
	// ResetsDeepMerge reports whether v, a value of the field key, does.
	ResetsDeepMerge(key string, v any) bool
}

// PortScoper is implemented by kinds some of whose fields apply on the
// listeners of one port only (kgateway's ListenerPolicy perPort): there
// such fields replace all the kind's fields for every port.
//
// A port's fields are its entry (perPortPolicy[80]), which the first
// policy to set the port brings whole, and the entry's parts
// (perPortPolicy[80].httpSettings.serverName), each a field of its own
// through which a later policy fills what the entry leaves unset. merge
// keeps a part only where a policy other than the entry's owns it: the
// owner's own parts are already in its entry (kgateway's mergePerPort
// records a later policy's settings under the part's key only).
type PortScoper interface {
	// FieldPort is the port a field applies on, 0 for every port.
	FieldPort(key string) int32
	// PortEntry is, for a part of a port's entry, the entry's key; ""
	// for any other field.
	PortEntry(key string) string
}

// WholeOverrider is implemented by kinds whose policy at a more specific
// level replaces the less specific levels' policy of the kind whole —
// every field, set or not — unless it says it merges into it (Envoy
// Gateway: a route's BackendTrafficPolicy hides its Gateway's entirely;
// with spec.mergeType it is merged over it). At one level the first
// policy in the kind's processing order takes the target and the others
// conflict. merge.Result.Routed combines the levels this way, per route
// rule and listener, and render places such a kind's configuration on
// each route.
type WholeOverrider interface {
	// OverridesWhole reports whether the kind behaves so (a package whose
	// kinds share one type may have kinds that do not).
	OverridesWhole() bool
	// ProcessingOrder compares two policies of the kind at one target:
	// negative when a comes first (takes the target).
	ProcessingOrder(a, b *Policy) int
	// MergesInto is the strategy with which p merges into the less
	// specific level's policy (StrategicMerge, JSONMerge), "" when p
	// replaces it.
	MergesInto(p *Policy) Strategy
	// ReplacedOnMerge reports whether a merging policy's value of the
	// field replaces the less specific level's rather than merging into
	// it (a list the API gives no patch strategy, under either merge):
	// the more specific value is then the field's only contributor.
	ReplacedOnMerge(key string) bool
}

// InvalidKeeper is implemented by whole-overriding kinds whose
// controller keeps, on the routes an invalid policy fails (500), the
// configuration of the fields of it that translated: Envoy Gateway keeps
// a SecurityPolicy's features beside the 500, so their filters stay in
// the chain.
type InvalidKeeper interface {
	// KeptWhenInvalid are the fields of the invalid policy p whose
	// configuration the controller keeps.
	KeptWhenInvalid(p *Policy) []string
}

// Answerer is implemented by kinds a field of which answers a route rule
// itself instead of forwarding it (kgateway's DirectResponse), so that
// views report the status the renderer's direct response carries.
type Answerer interface {
	// Answer is the status a merged value of the field answers with;
	// false when the field does not answer.
	Answer(key string, v any) (status int, ok bool)
}

// Renderer is implemented by kinds that render to Envoy.
type Renderer interface {
	// RenderField returns the fragments for one merged field, or an error
	// when the value cannot be expressed (the resource then fails closed).
	RenderField(in FieldInput, env *Env) ([]Fragment, error)
}

// ConditionWriter is implemented by kinds whose controller writes policy
// conditions other than kgateway's Accepted/Attached (Gateway API
// BackendTLSPolicy: ResolvedRefs, and Accepted False/Conflicted for the
// policy that loses a backend to an older one). lost is true when another
// policy took every field the policy sets at some point under the
// ancestor.
type ConditionWriter interface {
	PolicyConditions(p *Policy, lost bool) []Condition
}

// ObjectStatuser is implemented by kinds whose objects are APIs of their
// own (WSO2 RestApi and the like) rather than attached policies: the
// controller writes conditions on the object itself, which status reports
// beside (not instead of) the ancestor statuses.
type ObjectStatuser interface {
	ObjectConditions(p *Policy) []ObjectCondition
}

// RouteStatuser is implemented by kinds whose family's controller writes
// the status of the routes it serves by rules of its own, and which gwpol
// reports as no policy.Controller (the WSO2 gateway operator: ResolvedRefs
// False when it cannot build its API from the route, Accepted False when
// the gateway-controller refuses that API, each leaving the other
// condition as it was). The verdict is the family's Finish step's; status
// writes the conditions returned for a parent in place of the Gateway
// API's and the broken rules'. ok false leaves the parent to those.
type RouteStatuser interface {
	RouteConditions(rt *topology.Route, p *topology.Parent) (conds []Condition, ok bool)
}

// GraphRefiner is implemented by kinds whose controller judges some parts
// of a policy only where its target reaches a Gateway (a route policy's
// per-parent builders run only for a parentRef with allowed listeners).
// The pipeline calls it once per policy of the kind, after decode and
// topology and before attach, so that every view reads the one verdict.
type GraphRefiner interface {
	RefineWithGraph(p *Policy, g *topology.Graph)
}

// Identifier is implemented by kinds whose data plane names rules and
// policies at runtime (stick tables, counters, rate-limit budgets), so that
// explain can show those names.
type Identifier interface {
	// RuleIdentity is the runtime name of rule (its index) of the route
	// routeKind ns/name.
	RuleIdentity(routeKind, ns, name string, rule int) string
	// PolicyIdentity is the runtime name of the policy itself; rules that
	// share a policy share what is keyed by it (a rate-limit budget).
	PolicyIdentity(p *Policy) string
	// SharedState names what the rules using p share through its identity
	// (e.g. "one rate-limit budget"), "" when p keys nothing shared.
	SharedState(p *Policy) string
}

// RuleNoter is implemented by kinds that add notes of their own to
// explain's view of a route rule (WSO2: the policy chain the engine runs
// there, system policies and the operator's generated ones included).
// explain calls it for every rule it explains.
type RuleNoter interface {
	// RuleNotes are the notes for rule; own returns the values merged into
	// the rule's own point for one of the kind's field keys (nil when no
	// policy of the kind set it there).
	RuleNotes(rule *topology.Rule, own func(key string) []any) []string
}

// ObjectExplainer is implemented by kinds whose objects explain shows in a
// view of their own rather than as attached policies (WSO2 RestApi: per
// operation, the chain the policy engine runs). cli's explain command
// calls it for a TARGET KIND/NAMESPACE/NAME naming one object of the kind,
// and writes the view as JSON (-o json: the value itself, through
// encoding/json) or as its Text.
type ObjectExplainer interface {
	// ExplainObject is the view of p; with showValues it carries the
	// values as written (params), which it otherwise leaves out. An object
	// that cannot be read is an error (diag.Invalid).
	ExplainObject(p *Policy, showValues bool) (ObjectView, error)
}

// ObjectView is an ObjectExplainer's view of one object.
type ObjectView interface {
	// Text lays the view out for a terminal width columns wide (0: not a
	// terminal, no limit), drawing its tables with table.
	Text(width int, table TableLayout) string
}

// TableLayout draws rows under headers for a terminal width columns wide
// (0: no limit), without a trailing newline. cli provides it, the one
// package that draws with lipgloss: a bordered table, or, where that is
// wider than width, a list with one entry per row, titled by its first two
// cells as "1. name" (the first column is the row's position, the second
// its name), each further cell on a line of its own as "header: cell", so
// that nothing is cut.
type TableLayout func(headers []string, rows [][]string, width int) string

// Standalone is implemented by kinds whose objects are APIs a gateway of
// their own serves, outside Gateway API (WSO2 RestApi and the other API
// kinds of its gateway-controller). cli's render command, finding no
// Gateway in the input, counts such objects and adds what ServedBy says,
// so that an empty render is not a surprise.
type Standalone interface {
	// ServedBy says what serves the kind's objects instead and how to
	// look at them.
	ServedBy() string
}

// RouteVerdict is a controller's validation of one route.
type RouteVerdict struct {
	// Dropped are the rules the controller leaves out, in rule order; a
	// rule dropped for several problems has one entry per problem.
	Dropped []DroppedRule
	// RefsUnjudged: the controller refuses the whole route before it
	// resolves any reference, and writes no ResolvedRefs condition.
	RefsUnjudged bool
	// Unresolved are the references that did not resolve (ResolvedRefs
	// False with the first one's reason), in rule order. With JoinReasons
	// a reference collected in a group of problems carries the group's
	// reason (Envoy Gateway: a rule's filter problems, their distinct
	// reasons sorted and joined), which the condition counts as one.
	Unresolved []Condition
	// Conditions are further conditions the controller writes (e.g.
	// BackendsAvailable False).
	Conditions []Condition
	// Diagnostics are the findings, one per problem.
	Diagnostics []diag.Diagnostic
	// Unreported are the parents (parentRef indexes) the controller
	// writes no status for.
	Unreported []int
	// SharedStatus is, for a parent (parentRef index) whose status entry
	// holds the conditions the controller decides for another parent, that
	// other's index (Envoy Gateway: one entry for the parentRefs it counts
	// equal, named by the first, the later ones Unreported).
	SharedStatus map[int]int
	// NotAccepted is, per parent the route does not attach to (parentRef
	// index), the Accepted condition the controller writes there: False in
	// its own words, with the Gateway API's reason topology decided, or
	// True where the controller's verdict on the rules replaces it (Envoy
	// Gateway: some rules dropped). A parent missing here keeps
	// topology's condition.
	NotAccepted map[int]Condition
	// ParentConditions are further conditions the controller writes on
	// one parent only (parentRef index), after Conditions (Envoy Gateway:
	// RouteRulesOverlap, judged per listener).
	ParentConditions map[int][]Condition
	// Answered are the rules the controller keeps (Accepted) but answers
	// with a direct response instead of forwarding (Envoy Gateway: a
	// filter reference that does not resolve), in rule order.
	Answered []AnsweredRule
	// Refused are the backendRefs the controller will not send traffic
	// to (not found, not permitted, a kind, filter or address it does not
	// take), in rule and backendRef order: the share of the rule's
	// requests their weight would get is answered 500, and a rule with
	// no other backend to take traffic answers 500 altogether.
	Refused []RefusedBackend
	// JoinReasons: a condition several problems turn False carries their
	// distinct reasons, sorted and joined by commas (Envoy Gateway's
	// MultiStatusError.Reason), not the first problem's; a group's joined
	// reason is one of those, distinct from its parts (so a reason can
	// appear twice: BackendNotFound,BackendNotFound,UnsupportedValue).
	JoinReasons bool
	// UnservedOn are the listeners the route attaches to where the
	// controller nevertheless serves none of it, and why (Envoy Gateway:
	// a TLSRoute to a dynamic resolver on a listener that terminates TLS);
	// the condition it writes there is among ParentConditions. Render
	// builds nothing for the route there, explain says why.
	UnservedOn map[*topology.Listener]Condition
	// Unmirrored are the RequestMirror filters the controller configures
	// no mirror for, though topology resolved their backendRef (Envoy
	// Gateway: a mirror whose backend it refuses, or whose Service has no
	// endpoint: BackendsAvailable False while the rule is still served):
	// render copies no request there.
	Unmirrored []FilterRef
}

// FilterRef names one filter of a route: Filter is its index in the
// filters of rule index Rule.
type FilterRef struct {
	Rule, Filter int
}

// Mirrors reports whether the controller configures the mirror of
// filter index filter of rule index rule (true for a nil verdict).
func (v *RouteVerdict) Mirrors(rule, filter int) bool {
	return v == nil || !slices.Contains(v.Unmirrored, FilterRef{Rule: rule, Filter: filter})
}

// Unserved is why the controller serves none of the route on listener
// l although it attaches there; false when it serves it (or the verdict
// is nil).
func (v *RouteVerdict) Unserved(l *topology.Listener) (Condition, bool) {
	if v == nil {
		return Condition{}, false
	}
	c, ok := v.UnservedOn[l]
	return c, ok
}

// DroppedRule is a rule a controller leaves out, and why.
type DroppedRule struct {
	Index           int
	Reason, Message string
	// Status is what the controller still answers the rule's requests
	// with: a direct response (Envoy Gateway answers 500 for an HTTPRoute
	// rule whose filters it refuses), or 0 when the rule has no route in
	// the configuration at all, so that its requests go to the next route
	// that matches them.
	Status int
	// Collected, when set, is the reason the route's Accepted or
	// PartiallyInvalid condition counts the problem under (JoinReasons),
	// in place of Reason: that of the group the controller collects it in
	// (Envoy Gateway: a rule's filter problems, their reasons joined).
	Collected string
	// RouteWide: the problem is the route's own (Envoy Gateway: a
	// TCPRoute or UDPRoute with more than one rule), dropping each of its
	// rules; the condition says it once. Otherwise a problem is said
	// once for each rule it drops.
	RouteWide bool
}

// AnsweredRule is a rule a controller keeps but answers with Status.
type AnsweredRule struct {
	Index           int
	Status          int
	Reason, Message string
}

// RefusedBackend is a backendRef (Ref, its index in rule Rule) a
// controller refuses, and why.
type RefusedBackend struct {
	Rule, Ref       int
	Reason, Message string
}

// RuleFate is what a controller makes of one rule it does not serve as
// written: left out (Dropped with Status 0: no route), or answered with
// the direct response Status.
type RuleFate struct {
	// Dropped: the rule counts as not accepted (Accepted False, or
	// PartiallyInvalid beside other rules).
	Dropped         bool
	Status          int
	Reason, Message string
}

// Fate is what the controller makes of rule index i in place of serving
// it; false when it serves the rule as written (its backendRefs aside:
// see Refusal). A nil verdict serves every rule.
func (v *RouteVerdict) Fate(i int) (RuleFate, bool) {
	if v == nil {
		return RuleFate{}, false
	}
	for _, d := range v.Dropped {
		if d.Index == i {
			return RuleFate{Dropped: true, Status: d.Status, Reason: d.Reason, Message: d.Message}, true
		}
	}
	for _, a := range v.Answered {
		if a.Index == i {
			return RuleFate{Status: a.Status, Reason: a.Reason, Message: a.Message}, true
		}
	}
	return RuleFate{}, false
}

// Refusal is why the controller refuses backendRef ref of rule index
// rule; false when it does not (or the verdict is nil).
func (v *RouteVerdict) Refusal(rule, ref int) (RefusedBackend, bool) {
	if v == nil {
		return RefusedBackend{}, false
	}
	for _, b := range v.Refused {
		if b.Rule == rule && b.Ref == ref {
			return b, true
		}
	}
	return RefusedBackend{}, false
}

// BackendCaller is implemented by kinds whose policies call backends of
// their own (Envoy Gateway's ext-auth, ext-proc, OIDC and remote JWKS
// services): a policy on such a backend (BackendTLSPolicy) is reported
// against each calling policy too, as Envoy Gateway reports it.
type BackendCaller interface {
	// CalledBackends are the backend objects p calls, in spec order.
	CalledBackends(p *Policy) []model.Key
}

// BackendReferrer is implemented by kinds whose policy on a backend port
// references objects a controller resolves while it builds a destination
// to that port (Gateway API BackendTLSPolicy: its CA certificates). The
// kind says which of its policies governs the port and what it
// references; the controller judges the references by its own rules (an
// Envoy Gateway route or ext-proc service is refused when they hold no
// CA). Ask through Env.BackendPolicies, which Registry.Decode fills
// before it decodes any policy.
type BackendReferrer interface {
	// BackendPolicy reads the kind's objects in m once and returns, for
	// a backend port, the kind's policy governing it (nil when none).
	BackendPolicy(m *model.Model) func(backend model.Key, port int32) *BackendPolicy
}

// BackendPolicy is the policy governing a backend port, as a controller
// that builds a destination to the port reads it.
type BackendPolicy struct {
	// Policy is the governing policy.
	Policy model.Key
	// Refs are the objects it references, in spec order: group and kind
	// as written, the policy's namespace.
	Refs []model.Key
	// WellKnown: it names a well-known CA set instead of references.
	WellKnown bool
}

// Disabler is implemented by kinds some of whose field values switch the
// field's feature off where they apply rather than configure it
// (kgateway's extAuth disable: {}, an empty rateLimit.local): a route
// policy with such a value clears what its Gateway's policy set, and a
// view asking "is the feature in effect here" must not count it.
type Disabler interface {
	// Disables reports whether v, a value of the field key, switches the
	// feature off.
	Disables(key string, v any) bool
}

// Enabler is implemented by kinds for which an empty value of some field
// switches its feature on with its defaults rather than setting nothing
// (HAPTIC's cache: {}, a response cache by the origin's Cache-Control): a
// policy with such a value changes something where it applies, which
// Policy.NoEffect must count.
type Enabler interface {
	// Enables reports whether v, a value of the field key, switches the
	// feature on.
	Enables(key string, v any) bool
}

// ClusterSetter is implemented by kinds with a field that declares paths
// of the cluster a route sends to (FieldSpec.Writes, cluster.…) but sets
// them with some values only (a timeout field whose request timeout is on
// the route, its connect timeout on the cluster).
type ClusterSetter interface {
	// SetsCluster reports whether values, a field's values (as merged),
	// set anything on the route's cluster.
	SetsCluster(key string, values []any) bool
}

// ValueTyper is implemented by kinds whose field values are Go types with
// JSON tags in the shape of the spec (what explain's --show-values
// prints): the guardrail config names sub-fields of a field
// (timeouts.request) by those tags, and a name no tag has is refused.
type ValueTyper interface {
	// FieldType is the type of the value of the field key; nil when the
	// kind does not know it (its sub-fields are then not checked).
	FieldType(key string) reflect.Type
}
