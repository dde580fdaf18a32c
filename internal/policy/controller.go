package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/topology"
)

// Controller is what a controller family declares about the controller it
// emulates, for the generic stages that must behave as that controller
// does without naming it: status reads which conditions it writes,
// explain how it words what it does. A family package exports its
// Controller and internal/families registers it (Registry.AddControllers);
// no generic package holds a controllerName.
type Controller struct {
	// Name is the controllerName of the controller's GatewayClasses.
	Name string
	// Title is how messages name the controller ("kgateway").
	Title string
	// RenderTarget is the render target whose data plane the controller
	// programs (render/envoy's Targets): the target render infers for its
	// Gateways.
	RenderTarget string
	// Default: the controller status reports for when the configuration
	// names none (config controllerName).
	Default bool
	// ExtraConditions: it adds conditions of its own to the Gateway API's —
	// a Gateway's ResolvedRefs (and InsecureFrontendValidationMode), its
	// GatewayReplaced and ListenerReplaced, a route's Programmed and its
	// rules' conditions (kgateway).
	ExtraConditions bool
	// ParentRefsAsWritten: a route's status names each parent by the
	// route's parentRef as written, without a namespace where the route
	// gives none (Envoy Gateway copies the spec's ParentReference into
	// RouteParentStatus). False: the namespace is filled in with the
	// route's.
	ParentRefsAsWritten bool
	// ReplacesInvalidWhole: a route rule an invalid policy merges into is
	// replaced whole by a direct response (500), none of what the route
	// configures kept (kgateway); otherwise the controller answers 500
	// and keeps what its kinds say (InvalidKeeper).
	ReplacesInvalidWhole bool
	// NoActionReason is why the controller replaces a route rule that
	// nothing gives an action — no backendRefs, no redirect, no policy
	// answering it — with a 500 (its own route condition says so:
	// ProgrammedCondition). "": it answers such a rule 500 as one with no
	// backend to forward to, and says nothing of its own.
	NoActionReason string
	// LoneBackendIgnoresWeight: a route rule with exactly one backendRef
	// forwards to it whatever its weight, a weight of 0 included, as the
	// controller writes a lone backend as the route's cluster without its
	// weight. Unset: a backendRef of weight 0 takes no traffic, as the
	// Gateway API says, so a rule with no other answers 500.
	LoneBackendIgnoresWeight bool
	// Groups are the API groups of the policy kinds the controller's
	// family defines. On the routes it serves, a rule's own Gateway API
	// value of a field (RuleFielder) stands for its kinds' field, not for
	// another family's: it is translated the way this controller does.
	Groups []string
	// ProgrammedCondition is the route condition type it adds beside the
	// Gateway API's, saying whether every rule was translated as written
	// (kgateway.dev/Programmed); "" for none.
	ProgrammedCondition string
	// SummaryGroup is the API group of the synthetic StatusSummary
	// ancestor it reports a policy that attaches nowhere against.
	SummaryGroup string
	// RouteSourceKey is the filter metadata key under which the
	// controller's routes name the route object, rule and match they come
	// from, when its deployment asks for it (kgateway's
	// dev.kgateway.route_source); "" for none.
	RouteSourceKey string
	// RouteSourceFields are the fields of that metadata for one Envoy
	// route, by what the controller names each part.
	RouteSourceFields func(o RouteOrigin) map[string]string
	// RouteSource is the deployment setting that turns the route source
	// metadata on (kgateway's enableRouteSourceMetadata); nil: always on
	// when RouteSourceKey is set.
	RouteSource *Setting
	// WeightedRoutePrecedence is the deployment setting that orders a
	// Gateway's routes by their weight first (topology.Options,
	// kgateway's weightedRoutePrecedence); nil: the controller has none.
	WeightedRoutePrecedence *Setting
	// ExtensionBackends is the deployment setting listing the backends
	// the controller's extension plugins register (extbackends.go);
	// nil: the controller has none.
	ExtensionBackends *Setting
	// Topology are the annotation, label and option keys the controller
	// reads on Gateway API objects (topology.Keys).
	Topology topology.Keys
	// TLSOptions reads the tls.options of an HTTPS listener as the
	// controller does (topology.TLSOptionParser): the settings it writes
	// into the listener's TLS context, and the options it rejects. Nil:
	// the default controller's (Registry.TLSOptionParser).
	TLSOptions topology.TLSOptionParser
	// OwnFilter reports whether a route rule's ExtensionRef filter is one
	// the controller implements itself rather than a policy kind (HAPTIC's
	// SSL passthrough): on the routes of its Gateways such a filter
	// neither attaches a policy nor breaks the rule as an unknown kind,
	// and gwpol does not render what it does (GWP406). Nil: none.
	OwnFilter func(group, kind, name string) bool
	// UnknownFilterReasons are the route condition reasons the controller
	// gives a rule whose ExtensionRef names a kind it neither knows nor
	// implements: reason for Accepted False and PartiallyInvalid, and
	// resolvedRefs for ResolvedRefs False ("": the controller leaves
	// ResolvedRefs to the backends). Nil: UnsupportedValue and InvalidKind.
	UnknownFilterReasons func() (reason, resolvedRefs string)
	// BrokenRank orders the problems that break one rule of a route the
	// controller serves as it checks them: the route conditions it writes
	// (reason, ResolvedRefs, message) are those of the first problem of
	// the lowest rank. A problem is b's kind (nil: an ExtensionRef kind
	// gwpol does not know) and its diagnostic code. HAPTIC checks a rule's
	// ExtensionRefs before the policy they name, and never looks the
	// policy up when a reference is wrong. Nil: the first problem found.
	BrokenRank func(b BrokenRule) int
	// RuleConditionsOverTrue: the conditions the controller writes for
	// the rules a policy reference breaks (Accepted, ResolvedRefs) replace
	// only a route condition that is True; one the route has False on its
	// own (a backendRef not found, no listener accepting it) keeps its
	// reason (HAPTIC's ApplyGatewayPolicyConditions). False: the broken
	// rules' reason replaces it.
	RuleConditionsOverTrue bool
	// ReplacesPolicyStatus: when the controller writes a policy's
	// status it replaces the whole status with its own entries, dropping
	// the ancestors other controllers wrote (Envoy Gateway clears the
	// status it reads and sets the one it computed). Where several
	// controllers report one policy (a Gateway API BackendTLSPolicy on a
	// Service each one's routes send to), the status holds the others'
	// entries only until this controller writes again (GWP309). False:
	// it keeps the entries whose controllerName is not its own.
	ReplacesPolicyStatus bool
	// ClearsPartiallyInvalid: on a route whose status as written in the
	// input already has a PartiallyInvalid condition (on any parent), the
	// controller writes PartiallyInvalid False when no rule is partially
	// invalid now — AllRulesValid, or AllRulesInvalid beside Accepted
	// False when every rule fails — so that the earlier condition does not
	// linger (HAPTIC's ApplyGatewayPolicyConditions). False: it writes
	// PartiallyInvalid only while some rules fail.
	ClearsPartiallyInvalid bool
	// OwnKindsOnly: in a rule's ExtensionRef filters the controller
	// resolves only its own family's policy kinds (Groups); another
	// family's kind is one it does not know, so the rule fails as for an
	// unknown kind (UnknownFilterReasons) and that policy does not attach
	// there. On a route Gateways of other controllers serve too, each
	// judges the rule under its own parentRefs: the rule is broken, and
	// the policy left out, on this controller's Gateways only
	// (attach.Broken.Under). False: every registered kind attaches.
	OwnKindsOnly bool
	// UnknownFilterReplaces: to the controller an ExtensionRef naming a
	// kind it does not resolve (one no family defines, or another
	// family's under OwnKindsOnly) is a policy not found, as one of its
	// own kinds that does not exist is: the rule is replaced by a direct
	// response, which its ProgrammedCondition reports (RouteRuleReplaced),
	// and no Gateway API route condition says so (kgateway resolves every
	// ExtensionRef against its plugins' policies alone). False: such a
	// rule gets route conditions (UnknownFilterReasons).
	UnknownFilterReplaces bool
	// SkipsUnresolvedBackendRefs: the controller skips a backendRef's
	// ExtensionRef filter it cannot resolve — a kind it does not resolve
	// (OwnKindsOnly) as much as a policy that does not exist: that
	// backend gets no policy and no status says so (kgateway: getBackends
	// ignores getExtensionRefs' errors). The kind's own rules for such a
	// filter (OnePerRule: the rule fails closed; BackendRefFilter: the
	// policy's status) are not this controller's.
	SkipsUnresolvedBackendRefs bool
	// BackendRefFilters are the Gateway API filter types the controller
	// applies on a backendRef (an ExtensionRef there is the referenced
	// kind's to decide: KindSpec.BackendRefFilter). nil: it declares
	// nothing, and no finding second-guesses it.
	BackendRefFilters []string
	// BackendRefFiltersRefused: the controller refuses a backendRef
	// carrying another type, and its route validation says so (Envoy
	// Gateway: ResolvedRefs False, UnsupportedRefValue); otherwise it
	// ignores such a filter (GWP218).
	BackendRefFiltersRefused bool
	// GatewayMergeProtocols are the protocols of the listeners whose own
	// policies the controller merges with its Gateway's whole-Gateway
	// policies as one group, the listener's first: a listener of such a
	// protocol has a resource of its own that both configure (an HTTPS
	// listener's RouteConfiguration), so a listener policy overrides a
	// Gateway policy there field by field. On the other listeners the
	// Gateway's policies configure a resource the listeners share (one
	// RouteConfiguration per port for HTTP) and a listener's its own parts
	// (its virtual hosts). Nil: the default controller's
	// (Registry.GatewayMergeProtocols).
	GatewayMergeProtocols []string
	// BackendRank, when it returns a function for kind k, is how the
	// controller ranks k's policies on one backend target (the whole
	// object's cluster, or a port's): by the BackendRankKey it gives each
	// (an earlier time first, the zero time the earliest of all; then the
	// reference, as a string), the whole object's and a port's own
	// (sectionName) alike — the attachment form does not count. merge
	// orders the backend's points by it where every Gateway using the
	// backend is this controller's (and, for a Gateway of it beside
	// others', again when the backend's clusters are built for that
	// Gateway: merge.Result.BackendOn). Nil, or nil for k: the port's own
	// policies first, then the whole object's, each by policy.Precedes.
	BackendRank func(k Kind) func(p *Policy, section string) BackendRankKey
	// RuleClusterOnce, when set, says whether the controller builds a
	// route rule's cluster once per Gateway, under the rule's one name,
	// keeping the first it translates: the rule's route on the first of
	// the Gateway's listeners sending to that cluster (in ListenerOrder)
	// shapes it — its policies' cluster settings, or none — and the
	// rule's routes on the other listeners send to it, their own
	// policies' cluster settings unwritten (merge.Result.RuleClusterFrom).
	// RuleClusterBelowGateway: only the routes whose policies below the
	// Gateway (listener, ListenerSet, route, rule) write clusters send to
	// it, the others to their backends' shared clusters. Nil, or
	// RuleClusterPerRoute: each route's cluster carries its own policies'
	// settings.
	RuleClusterOnce func(gw *topology.Gateway, m *model.Model) RuleClusterMode
	// ListenerOrder lists a Gateway's listeners in the order the
	// controller translates them; nil: gw.Listeners' order.
	ListenerOrder func(gw *topology.Gateway) []*topology.Listener
}

// RuleClusterMode is how a controller builds a route rule's clusters on
// one Gateway (Controller.RuleClusterOnce).
type RuleClusterMode int

// The modes.
const (
	// RuleClusterPerRoute: each route's cluster carries its own
	// policies' settings.
	RuleClusterPerRoute RuleClusterMode = iota
	// RuleClusterFirst: one cluster per rule, the first route's.
	RuleClusterFirst
	// RuleClusterBelowGateway: one cluster per rule, the first route's
	// among the routes whose policies below the Gateway write clusters;
	// the others send to their backends' shared clusters.
	RuleClusterBelowGateway
)

// BackendRankKey is what a controller's BackendRank orders one policy
// on a backend target by: At first (earlier first; the zero time, a
// policy without creationTimestamp, is the earliest — the latest of all
// under UndatedLast), then Ref.
type BackendRankKey struct {
	At  time.Time
	Ref string
	// UndatedLast: the controller ranks a policy without
	// creationTimestamp after every dated one (it compares the
	// timestamps only when the other has one).
	UndatedLast bool
}

// Compare orders two keys as BackendRank says.
func (k BackendRankKey) Compare(o BackendRankKey) int {
	if k.UndatedLast && k.At.IsZero() != o.At.IsZero() {
		if k.At.IsZero() {
			return 1
		}
		return -1
	}
	if c := k.At.Compare(o.At); c != 0 {
		return c
	}
	return strings.Compare(k.Ref, o.Ref)
}

// BackendRank is the controller named controller's ranking of kind k's
// policies on a backend target (Controller.BackendRank); nil when it has
// none, or the registry holds no such controller.
func (r *Registry) BackendRank(controller string, k Kind) func(p *Policy, section string) BackendRankKey {
	c, ok := r.Controller(controller)
	if !ok || c.BackendRank == nil {
		return nil
	}
	return c.BackendRank(k)
}

// BackendRanks reports whether some registered controller ranks some kind's
// backend policies itself (Controller.BackendRank).
func (r *Registry) BackendRanks() bool {
	return slices.ContainsFunc(r.controllers, func(c Controller) bool { return c.BackendRank != nil })
}

// GatewayMergeProtocols are the listener protocols on which the controller
// named controller merges a listener's policies with its Gateway's as one
// group (Controller.GatewayMergeProtocols): its own, else the default
// controller's — also for a controller the registry does not hold.
func (r *Registry) GatewayMergeProtocols(controller string) []string {
	if c, ok := r.Controller(controller); ok && c.GatewayMergeProtocols != nil {
		return c.GatewayMergeProtocols
	}
	return r.DefaultController().GatewayMergeProtocols
}

// TopologyKeys are the keys topology reads (topology.Options.Keys): the
// default controller's, else the first registered controller's that
// declares any.
func (r *Registry) TopologyKeys() topology.Keys {
	if k := r.DefaultController().Topology; k != (topology.Keys{}) {
		return k
	}
	for _, c := range r.controllers {
		if c.Topology != (topology.Keys{}) {
			return c.Topology
		}
	}
	return topology.Keys{}
}

// TLSOptionParser is the tls.options reading topology applies
// (topology.Options.TLSOptions): the default controller's, else the first
// registered controller's that declares one, as TopologyKeys; nil when
// none does.
func (r *Registry) TLSOptionParser() topology.TLSOptionParser {
	if p := r.DefaultController().TLSOptions; p != nil {
		return p
	}
	for _, c := range r.controllers {
		if c.TLSOptions != nil {
			return c.TLSOptions
		}
	}
	return nil
}

// RouteOrigin is the route object, rule and match an Envoy route comes
// from (Controller.RouteSourceFields).
type RouteOrigin struct {
	// Kind, Namespace and Name are the route object's.
	Kind, Namespace, Name string
	// Rule is the rule's index in the route, RuleName its name ("" when
	// unnamed), and Match the index of the match in the rule.
	Rule     int
	RuleName string
	Match    int
}

// RouteSource is the route source metadata key (Controller.RouteSourceKey)
// and its fields (Controller.RouteSourceFields) of the first registered
// controller that declares a key, when cfg turns it on
// (Controller.RouteSource); "" and nil when none does.
func (r *Registry) RouteSource(cfg Config) (string, func(RouteOrigin) map[string]string) {
	if r == nil {
		return "", nil
	}
	for _, c := range r.controllers {
		if c.RouteSourceKey != "" {
			if c.RouteSource != nil && !c.RouteSource.Bool(cfg) || c.RouteSourceFields == nil {
				return "", nil
			}
			return c.RouteSourceKey, c.RouteSourceFields
		}
	}
	return "", nil
}

// WeightedRoutePrecedence reports whether a registered controller's
// setting (Controller.WeightedRoutePrecedence) orders routes by their
// weight first under cfg.
func (r *Registry) WeightedRoutePrecedence(cfg Config) bool {
	for _, c := range r.controllers {
		if c.WeightedRoutePrecedence != nil && c.WeightedRoutePrecedence.Bool(cfg) {
			return true
		}
	}
	return false
}

// Controllers are the registered controllers, in registration order.
func (r *Registry) Controllers() []Controller { return r.controllers }

// Owns reports whether the controller's family defines kind k.
func (c Controller) Owns(k Kind) bool {
	return slices.Contains(c.Groups, k.GroupKind().Group)
}

// KindTarget is the render target of the controller whose family
// defines kind k (Controller.RenderTarget): the data plane a policy of
// the kind programs. false when no registered controller owns it.
func (r *Registry) KindTarget(k Kind) (Target, bool) {
	for _, c := range r.controllers {
		if c.Owns(k) && c.RenderTarget != "" {
			return r.Target(c.RenderTarget)
		}
	}
	return Target{}, false
}

// AddControllers registers the controllers of the families the pipeline
// lists.
func (r *Registry) AddControllers(cs ...Controller) { r.controllers = append(r.controllers, cs...) }

// Controller is the registered controller of a controllerName.
func (r *Registry) Controller(name string) (Controller, bool) {
	for _, c := range r.controllers {
		if c.Name == name {
			return c, true
		}
	}
	return Controller{}, false
}

// DefaultController is the controller to report for when the
// configuration names none: the one registered as Default (the zero
// Controller when none is).
func (r *Registry) DefaultController() Controller {
	for _, c := range r.controllers {
		if c.Default {
			return c
		}
	}
	return Controller{}
}

// Stranger is why a Gateway does not take a policy of some kind: its
// GatewayClass names a registered controller (Gateway) other than the one
// whose family defines the kind (Kind). Each controller translates only
// the Gateways of its own GatewayClasses, and reads only its own family's
// policy kinds (and the Gateway API's): the kind's controller never sees
// that Gateway, and the Gateway's controller never reads the kind.
type Stranger struct {
	Gateway, Kind Controller
}

// StrangerTo is the one decision of whether a Gateway whose GatewayClass
// names controller takes a policy of kind k: ok true when it does not
// (Stranger). It does when k is no registered controller's (the Gateway
// API's BackendTLSPolicy, WSO2's kinds, whose family reports no status
// of its own), when controller is k's, and when no registered family
// holds controller ("", a GatewayClass not in the input or naming another
// controller): gwpol then applies every kind, as it always has. Attach
// asks it for every target and every route parent a policy of k reaches;
// render, status, explain and lint read what attach made of it.
func (r *Registry) StrangerTo(controller string, k Kind) (Stranger, bool) {
	if r == nil || controller == "" {
		return Stranger{}, false
	}
	gc, ok := r.Controller(controller)
	if !ok || gc.Owns(k) {
		return Stranger{}, false
	}
	for _, c := range r.controllers {
		if c.Owns(k) {
			return Stranger{Gateway: gc, Kind: c}, true
		}
	}
	return Stranger{}, false
}

// StrangerOn is StrangerTo for a Gateway of the graph: the controller its
// GatewayClass in the input names ("" when the class is not in the input,
// so a Gateway without one keeps every kind).
func (r *Registry) StrangerOn(g *topology.Graph, gw *topology.Gateway, k Kind) (Stranger, bool) {
	if gw == nil {
		return Stranger{}, false
	}
	name, _ := g.Controller(gw, "")
	return r.StrangerTo(name, k)
}

// Why says, for a message about a policy of kind (its Kind) on the
// Gateway named gw, why it does not apply there.
func (s Stranger) Why(kind, gw string) string {
	return fmt.Sprintf("%s is %s's kind and %s is %s's (its GatewayClass names %s): %s translates only its own GatewayClasses' Gateways and %s does not read %s, so the policy does not apply there",
		kind, s.Kind.Title, gw, s.Gateway.Title, s.Gateway.Name, s.Kind.Title, s.Gateway.Title, kind)
}
