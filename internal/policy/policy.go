package policy

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
)

// Env is what decoding may consult.
type Env struct {
	Model  *model.Model
	Config Config
	// Target is the render target a renderer builds for ("envoy",
	// "kgateway"; "" outside render), for the few fields a target
	// expresses with its own filters.
	Target string
	// Traits are the render target's (nil outside render): what a
	// renderer shapes as the target's controller does where the same
	// field renders for several targets.
	Traits *Target

	// backendPolicies are the registered BackendReferrers' (Registry.Decode).
	backendPolicies []func(model.Key, int32) *BackendPolicy

	// memo holds what a family derives once per pass (Memo).
	memo sync.Map
}

// Memo returns what build derives from the Env's model and a pass's
// policies under key, building it on first use: an answer a family needs
// for every route or policy but that depends only on the whole input (an
// index, a question about every policy) is then computed once per pass,
// not once per route. Safe for concurrent use: one caller builds a new
// key's value and those racing on it wait for it (routes are validated in
// parallel, and an index built twice is work done twice), so build must
// not ask Memo for its own key. key must be comparable and name what
// build depends on beyond the Env (e.g. the *Set).
func (e *Env) Memo(key any, build func() any) any {
	v, ok := e.memo.Load(key)
	if !ok {
		v, _ = e.memo.LoadOrStore(key, &memoEntry{})
	}
	m, _ := v.(*memoEntry)
	m.once.Do(func() { m.v = build() })
	return m.v
}

// memoEntry is one key's value, built once.
type memoEntry struct {
	once sync.Once
	v    any
}

// BackendPolicies are the policies of other kinds governing a backend
// port (BackendReferrer), one per kind that has one; nil when none, and
// before Registry.PrepareBackendPolicies.
func (e *Env) BackendPolicies(backend model.Key, port int32) []*BackendPolicy {
	var out []*BackendPolicy
	for _, governing := range e.backendPolicies {
		if bp := governing(backend, port); bp != nil {
			out = append(out, bp)
		}
	}
	return out
}

// Config are the settings policy kinds read (from .gwpol.yaml).
type Config struct {
	// Values holds the families' deployment settings by key
	// (policy.Setting: "wso2.systemPolicies"), read through their
	// declarations.
	Values map[string]any
	// LenientFields reports unknown fields as warnings (config
	// strictFields: false); by default they are errors.
	LenientFields bool
}

// Strategy is how one field merges among the policies at a target.
type Strategy string

// The strategies, with kgateway's names.
const (
	AugmentedShallow   Strategy = "AugmentedShallow"
	OverridableShallow Strategy = "OverridableShallow"
	AugmentedDeep      Strategy = "AugmentedDeep"
	OverridableDeep    Strategy = "OverridableDeep"
	// Additive concatenates every contributor, parent first, and never
	// overrides (chains of versioned policies).
	Additive Strategy = "Additive"
	// Exclusive: at most one policy may attach; nothing to merge.
	Exclusive Strategy = "Exclusive"
	// StrategicMerge and JSONMerge are Envoy Gateway's mergeType: a
	// route's policy merged over its Gateway's (Kubernetes strategic merge
	// patch, RFC 7386 JSON merge patch). Values are route first.
	StrategicMerge Strategy = "StrategicMerge"
	JSONMerge      Strategy = "JSONMerge"
)

// FieldSpec describes one mergeable field of a kind.
type FieldSpec struct {
	Key      string   // MergeOrigins key, e.g. rateLimit.local
	SpecPath string   // where it is in the object, e.g. spec.rateLimit.local
	Deep     bool     // may deep-merge (lists concatenated) when configured
	Default  Strategy // strategy within one level when not configured
	// ConfigName is the field's name in its family's per-field deployment
	// settings (DeploymentTraits.FieldStrategy) when it differs from Key
	// (kgateway: "acl" for httpACL).
	ConfigName string
	// FillsUnset: a less specific level's value still sets the parts a
	// more specific one leaves unset (kgateway applies Gateway and listener
	// timeouts per route as defaults: the timeout and the idle timeout each
	// where the route has none). The kind's RuleFielder.Overlay combines
	// the values.
	FillsUnset bool
	// NotOnGRPCRoutes: a Gateway's or listener's value does not reach the
	// rules of GRPCRoutes; only a policy on the route itself sets the field
	// there (kgateway's Gateway-level timeouts are defaults for the routes
	// whose timeouts the Gateway API defines, and it defines none for
	// GRPCRoutes).
	NotOnGRPCRoutes bool
	// ForwardingOnly: the field's route settings reach only a route that
	// forwards (one with a route action): a redirect's route takes none
	// of them (kgateway applies a TrafficPolicy's route tracing in the
	// step that sets its route action fields, which skips a route without
	// one, while its stat prefix reaches every route).
	ForwardingOnly bool
	// Cluster names the Envoy cluster setting a field on a backend
	// configures (transport_socket, load_balancing_policy…): where two
	// kinds' fields share one, the later kind's replaces the earlier's on
	// the cluster, and a backend object's own spec may set it too
	// (BackendDescriber). explain reads it; render merges by message.
	Cluster string
	// Family: Key is the start of a family of keys that policies write
	// with a suffix of their own (kgateway's ListenerPolicy perPortPolicy[80]),
	// each merged as a field of its own. KindSpec.FieldsFor expands it.
	Family bool
	// PortWide: the field configures the Envoy Listener that all the
	// listeners on a port share, so only policies on the whole Gateway set
	// it (kgateway); a listener's own value is recorded in MergeOrigins
	// but not applied.
	PortWide bool
	// ChainWide: the field configures a filter chain (its HTTP connection
	// manager, its TLS): an HTTPS listener's own chain takes a value set
	// on the listener, while the chain the HTTP listeners on a port share
	// takes only the whole Gateway's.
	ChainWide bool
	// PerBackend: where a backendRef's filter references the policy
	// (KindSpec.BackendRefFilter), the controller applies the field to
	// that backend's share of the rule — its per-filter configuration on
	// the backend's weighted cluster. A field without it is left out
	// there (route-level settings: timeouts, retries, rewrites): GWP218.
	PerBackend bool
	// PerBackendNote, for a PerBackend field the controller applies some
	// other way than by per-filter configuration, says how (explain).
	PerBackendNote string
	// BackendRefUntranslated, when set, says why gwpol does not render a
	// field the controller does apply on a backendRef (GWP406 there
	// instead of GWP218).
	BackendRefUntranslated string
	// Protocol, when set, limits the field to a backend that speaks that
	// upstream protocol (ClusterHTTP1 or ClusterHTTP2, as
	// Registry.BackendProtocol decides it before any policy): on a backend
	// of the other the controller leaves the field out and keeps the
	// policy accepted (kgateway's HTTP/1 and HTTP/2 protocol options of a
	// BackendConfigPolicy). render leaves it out there and lint reports it.
	Protocol string
	// Writes are the Envoy paths the field's configuration sets, each
	// rooted at the resource it configures (the notation of
	// EnvoyPath): "route.timeout" (a RouteAction field), "stat_prefix" (a
	// Route field), "typed_per_filter_config.envoy.filters.http.cors",
	// "vhost.…", "http_filter.<name>", "hcm.…", "listener.…", "chain.…",
	// "tls.…", "tcp_proxy.…", "cluster.…" (the targeted backend's),
	// "backend_cluster.…" (a backendRef's own), "clusters.<name>" (a
	// cluster of the field's own), "network_filter.<name>". A name ending
	// in "/*" is one the field's own instance takes (ext_auth/<provider>),
	// which no other kind's field takes; one ending in "[]" a list the
	// field appends to beside others (request_headers_to_remove[]). One path of two kinds of
	// different families on one target is a conflict merge decides
	// (merge.PathOverride); WritesNothing marks a field that sets no Envoy
	// configuration. A test walks every registered kind and fails on a
	// field without Writes, and the explain/render ownership test fails on
	// a rendered path its field does not declare.
	Writes []string
}

// WritesNothing is FieldSpec.Writes of a field that sets no Envoy
// configuration gwpol renders (a setting gwpol reports as untranslated,
// or one that only shapes how other fields render).
var WritesNothing = []string{"-"}

// EnvoyPath is one entry of FieldSpec.Writes.
type EnvoyPath string

// Own reports whether the path is named after the field's own instance
// ("…/*"): no other kind's field writes it.
func (p EnvoyPath) Own() bool { return strings.HasSuffix(string(p), "/*") }

// Matches reports whether a concrete rendered path (a filter named after
// its instance: ext_auth/infra/authz) is the declared path p; a declared
// name ending in "*" stands for every name it starts.
func (p EnvoyPath) Matches(rendered string) bool {
	if prefix, ok := strings.CutSuffix(string(p), "*"); ok {
		return strings.HasPrefix(rendered, prefix)
	}
	return strings.TrimSuffix(string(p), "[]") == rendered
}

// Overlaps reports whether two declared paths can name one rendered
// path (a name ending in "*" stands for every name it starts).
func (p EnvoyPath) Overlaps(q EnvoyPath) bool {
	ps, qs := strings.TrimSuffix(string(p), "[]"), strings.TrimSuffix(string(q), "[]")
	pp, pw := strings.CutSuffix(ps, "*")
	qp, qw := strings.CutSuffix(qs, "*")
	switch {
	case pw && qw:
		return strings.HasPrefix(pp, qp) || strings.HasPrefix(qp, pp)
	case pw:
		return strings.HasPrefix(qs, pp)
	case qw:
		return strings.HasPrefix(ps, qp)
	}
	return ps == qs
}

// Exclusive reports whether one value of the path is in effect on a
// resource, so that two kinds writing it conflict: its own instances'
// names, lists each appends to, the filters and clusters shared by every route of a chain and
// WritesNothing are not.
func (p EnvoyPath) Exclusive() bool {
	s := string(p)
	return s != "-" && !p.Own() && !strings.HasSuffix(s, "[]") && !strings.HasPrefix(s, "http_filter.") && !strings.HasPrefix(s, "clusters.") && !strings.HasPrefix(s, "network_filter.")
}

// OnRoute reports whether the path is one of an Envoy Route's own: its
// route action (route.…), its per-filter configuration
// (typed_per_filter_config.…) or another Route field (stat_prefix,
// tracing, metadata.…) — what a route's view decides per route; the
// other resources' paths (vhost., http_filter., hcm., listener., chain.,
// tls., tcp_proxy., cluster., backend_cluster., clusters.,
// network_filter.) are shared by the routes of a listener or backend.
func (p EnvoyPath) OnRoute() bool {
	s := string(p)
	for _, other := range []string{"vhost.", "http_filter.", "hcm.", "listener.", "chain.", "tls.", "tcp_proxy.", "cluster.", "backend_cluster.", "clusters.", "network_filter."} {
		if strings.HasPrefix(s, other) {
			return false
		}
	}
	return s != "-"
}

// OnCluster reports whether the path is a field of the cluster a route
// sends to (cluster.…), as opposed to a backend's shared cluster
// (backend_cluster.…) or clusters of the field's own (clusters.…).
func (p EnvoyPath) OnCluster() bool { return strings.HasPrefix(string(p), "cluster.") }

// OnListener reports whether the path is one of the resources built per
// listener that its routes share: its connection manager (hcm.…), the
// Envoy listener (listener.…), its filter chain (chain.…) and TLS
// (tls.…), a TCP proxy (tcp_proxy.…) and its virtual hosts (vhost.…) —
// what a listener's view decides, once for every route it serves. The
// backend clusters (cluster.…, backend_cluster.…) are a backend's, and
// route paths a route's (OnRoute).
func (p EnvoyPath) OnListener() bool {
	s := string(p)
	for _, part := range []string{"hcm.", "listener.", "chain.", "tls.", "tcp_proxy.", "vhost."} {
		if strings.HasPrefix(s, part) {
			return true
		}
	}
	return false
}

// FieldWrites are the Envoy paths a field of the kind declares
// (FieldSpec.Writes; a family's key, perPortPolicy[80], its family's).
func (s KindSpec) FieldWrites(key string) []EnvoyPath {
	for _, f := range s.Fields {
		if f.Key == key || f.Family && strings.HasPrefix(key, f.Key) {
			out := make([]EnvoyPath, len(f.Writes))
			for i, w := range f.Writes {
				out[i] = EnvoyPath(w)
			}
			return out
		}
	}
	return nil
}

// FieldProtocol is the upstream protocol a field of the kind is limited
// to (FieldSpec.Protocol); "" for any.
func (s KindSpec) FieldProtocol(key string) string {
	for _, f := range s.Fields {
		if f.Key == key {
			return f.Protocol
		}
	}
	return ""
}

// TargetKind is a kind of attachment point.
type TargetKind string

// Attachment points.
const (
	TargetGateway     TargetKind = "Gateway"
	TargetListenerSet TargetKind = "ListenerSet"
	TargetHTTPRoute   TargetKind = "HTTPRoute"
	TargetGRPCRoute   TargetKind = "GRPCRoute"
	// TargetService is a core Service: kinds that configure the clusters
	// built for a backend name it (and the backendRef kinds a
	// BackendProvider registers) as their target.
	TargetService TargetKind = "Service"
)

// KindSpec is the static description of a kind.
type KindSpec struct {
	// ConfigKey names the kind in its family's per-kind deployment
	// settings (DeploymentTraits.FieldStrategy).
	ConfigKey string
	// MetadataKey is the filter_metadata key written by render; the
	// kgateway-compatible form is MetadataKeyCompat.
	MetadataKey, MetadataKeyCompat string
	Fields                         []FieldSpec
	// TargetKinds are the kinds targetRefs/selectors may name.
	TargetKinds []TargetKind
	// ExtensionRef: a rule filter may reference the policy.
	ExtensionRef bool
	// OnePerRule: at most one such filter per rule (GWP206), and none in
	// backendRefs[].filters (GWP207). Violations fail the rule closed.
	OnePerRule bool
	// BackendRefFilter: a backendRef's ExtensionRef filter may reference
	// the policy too; its PerBackend fields then configure that backend's
	// share of the rule only, and the controller leaves its other fields
	// out there (kgateway's TrafficPolicy).
	BackendRefFilter bool
	// SkipsUnresolvedBackendRef: the kind's controller skips a backendRef
	// ExtensionRef filter naming a policy of the kind that does not exist
	// — that backend gets no policy, and no status says so — where the
	// Gateway API has an unresolved filter answer with an error (attach
	// warns, GWP218). Unset: the controller does not skip it, which gwpol
	// does not translate (GWP406, the rule renders without the policy).
	SkipsUnresolvedBackendRef bool
	// BackendRefNote says, for findings, what the kind's controller takes
	// from a backendRef's reference to the kind ("kgateway applies a
	// TrafficPolicy named from a backendRef per backend, with its
	// per-filter settings only").
	BackendRefNote string
	// SingleAnswer: a rule answers with at most one policy of the kind
	// (kgateway's DirectResponse); several break the rule (GWP206, 500)
	// while each still attaches, as kgateway reports them.
	SingleAnswer bool
	// FailClosed: a rule whose policy is invalid or unresolved must not
	// forward traffic (render emits a 503 direct response).
	FailClosed bool
	// Attached: the kind reports the Attached condition (kgateway-style).
	Attached bool
	// MaxAncestors caps the ancestors in status (kgateway: 16).
	MaxAncestors int
	// Precedence: order policies by weight, creation time, then name.
	Precedence bool
	// WeightAnnotation is the annotation that sets a policy's weight, named
	// in fix hints.
	WeightAnnotation string
	// GatewayAncestors: a policy on a backend reports status against the
	// Gateways whose routes use the backend (Gateway API BackendTLSPolicy),
	// not against the backend object itself.
	GatewayAncestors bool
	// OneWins: on a backend target (the object, or one of its ports) one
	// policy of the kind applies whole; another there that its fields
	// all lose to is Conflicted (the Gateway API's BackendTLSPolicy
	// conflict rule). merge records the verdict (policy.Rejection), which
	// every view reads.
	OneWins bool
	// WholeTargetFirst: on a backend port a policy names by sectionName,
	// the controller lists the policies on the whole object ahead of the
	// port's own, so a whole-object policy's field beats a port's and a
	// port's policy fills only the fields none of them sets (kgateway's
	// BackendIndex.AddBackends appends the port lookup to the whole one,
	// each in age order, and its merge keeps the first setter). Unset: a
	// port's own policies come first, as a more specific attachment.
	WholeTargetFirst bool
	// InvalidKeepsValidFields: an invalid policy still applies the fields
	// it sets validly. The kind's Decode reports each setting that fails
	// (Policy.Invalid: Accepted=False, reason Invalid) and leaves it out of
	// Values, so it neither merges nor renders, while the policy's other
	// fields merge and render as a valid policy's would and nothing is
	// replaced by a direct response (kgateway's ListenerPolicy: the
	// controller reports the errors on the policy and builds the listener
	// without those settings, keeping its routes).
	InvalidKeepsValidFields bool
	// NoCompatMetadata: kgateway writes no merge metadata for the kind,
	// so none is written under --merge-key=kgateway (gwpol's own key
	// still is).
	NoCompatMetadata bool
}

// Condition is a policy status condition a kind writes itself.
type Condition struct {
	Type, Status, Reason, Message string
}

// TargetRef is one targetRef or targetSelector of a policy.
type TargetRef struct {
	Group, Kind, Name string
	Section           string
	// Selector: when set, this is a targetSelector (Name is empty).
	Selector map[string]string
	// Expressions are the selector's matchExpressions, ANDed with its
	// labels (LabelSelector).
	Expressions []metav1.LabelSelectorRequirement
	// EmptySelectsAll: a selector with neither labels nor expressions
	// selects every object of its kind, as the API machinery reads an
	// empty LabelSelector; false: it selects nothing.
	EmptySelectsAll bool
	Path            string // field path in the policy, for positions
}

// LabelSelector is the targetSelector's labels and expressions as one
// selector, as the API machinery reads a LabelSelector. One it cannot
// read (an unknown operator, a value list the operator forbids) selects
// nothing: the controllers skip it rather than select everything. An
// empty one selects everything only where the kind says so
// (EmptySelectsAll).
func (t TargetRef) LabelSelector() labels.Selector {
	if len(t.Selector) == 0 && len(t.Expressions) == 0 && !t.EmptySelectsAll {
		return labels.Nothing()
	}
	if len(t.Expressions) == 0 {
		return labels.SelectorFromSet(t.Selector)
	}
	sel, err := metav1.LabelSelectorAsSelector(&metav1.LabelSelector{MatchLabels: t.Selector, MatchExpressions: t.Expressions})
	if err != nil {
		return labels.Nothing()
	}
	return sel
}

// Policy is one decoded policy object.
type Policy struct {
	Kind   Kind
	Obj    *manifest.Object
	Weight int32
	// Created is metadata.creationTimestamp; zero when absent.
	Created time.Time
	Targets []TargetRef
	// Values holds the typed value of each set field by key.
	Values map[string]any
	// Invalid are errors that make the policy unusable (Accepted=False,
	// reason Invalid). Warnings make it PartiallyValid.
	Invalid  []diag.Diagnostic
	Warnings []diag.Diagnostic
	// FailOpen: every problem in Invalid is in a part of the policy its
	// controller leaves out while it applies the rest (Envoy Gateway's
	// extensions set to failOpen). The policy is not accepted, yet it
	// takes effect without those parts (Applies).
	FailOpen bool
	// OutOfEffect are fields the policy sets that its controller ignores
	// by its own rule (Envoy Gateway's deprecated BackendTrafficPolicy
	// compression beside compressor), with the reason: left out of Values,
	// so they neither merge nor render, and shown by explain as not in
	// effect. Set by the kind at decode; nil when there are none.
	OutOfEffect map[string]string
	// Findings are other diagnostics (unknown fields, deprecations).
	Findings []diag.Diagnostic
	// Data is kind-private decoded state (e.g. the typed spec).
	Data any
	// Judgements are, by controller name, the verdicts of the controllers
	// that judge this kind by their own rules (Family.ForeignJudges); nil
	// when none does. attach settles Invalid from the verdicts of the
	// controllers that use the policy.
	Judgements map[string]Judgement
	// BuiltIn is set when this is not a policy object but a route rule's
	// own Gateway API fields (see NewBuiltIn).
	BuiltIn *BuiltIn
	// FilterWeights are, per field key, the weight another object carries
	// for the Envoy filter the field's value enables (kgateway: the
	// GatewayExtension an extAuth, extProc or oauth2 value calls). Set by
	// the kind at decode; nil when no field has one.
	FilterWeights map[string]FilterWeight
}

// Judgement is a controller's own verdict on a policy of a kind it does
// not own (Family.ForeignJudges).
type Judgement struct {
	// Conditions are what the controller writes on the ancestors it
	// reports; nil when it has no verdict of its own (the policy does
	// not decode: the kind's decode reports it).
	Conditions []Condition
	// Invalid are the controller's reasons to refuse the policy, as
	// findings; none when it accepts it.
	Invalid []diag.Diagnostic
	// Notes are findings about the policy that do not refuse it, where the
	// controller's data plane differs from what its Conditions say (a
	// status that refuses a policy its backends still apply: Invalid is
	// then empty, as what is built decides render). attach reports the
	// notes of the controllers that use the policy.
	Notes []diag.Diagnostic
	// Conflicted, when set, is what the controller writes on an
	// ancestor where the policy lost its target to winner, an earlier
	// policy of its kind on the same target, and is not used otherwise
	// (it never built anything there); nil keeps the generic conditions.
	Conflicted func(winner *Policy) []Condition
	// Unreached are the backends the policy targets that the controller
	// never reaches it on, each with the error that stops it first:
	// building a destination to one fails on the backend's own settings
	// before the controller looks for a policy of the kind. No use of
	// such a backend is the controller's use of the policy: it writes no
	// ancestor for it, and attach does not count the controller among
	// the policy's judges through it. Nil when there are none.
	Unreached map[model.Key]string
}

// Reaches: the controller that judged j looks for the policy on backend
// k when it builds a destination to it (k is not Unreached).
func (j Judgement) Reaches(k model.Key) bool {
	_, no := j.Unreached[k]
	return !no
}

// FilterWeight is a weight that orders one Envoy filter among the filters
// of its stage (higher first, then by filter name). It is not the
// policy's Weight: kgateway reads it only when it sorts the HTTP filter
// chain, and never when it orders the policies at a merge point, so it
// decides in which order two extensions run, never which policy wins a
// field.
type FilterWeight struct {
	// Object carries the weight, e.g. "GatewayExtension infra/authz".
	Object string
	// Source is where on the object, e.g. "annotation kgateway.dev/policy-weight".
	Source string
	Weight int32
	// Stage is the filter's stage when the object chooses it (kgateway's
	// ext_proc filterStage); weights order filters of one stage only.
	Stage string
}

// String names the weight and where to change it.
func (w FilterWeight) String() string {
	return fmt.Sprintf("weight %d (%s on %s)", w.Weight, w.Source, w.Object)
}

// ID is the policy ID used in MergeOrigins: group/kind/namespace/name.
func (p *Policy) ID() string {
	gk := p.Kind.GroupKind()
	if p.BuiltIn != nil {
		gk = p.BuiltIn.Route
	}
	return gk.Group + "/" + gk.Kind + "/" + p.Obj.Namespace + "/" + p.Obj.Name
}

// AppendID appends the policy's ID to b: for keys built per route, where
// making the string each time would be an allocation.
func (p *Policy) AppendID(b []byte) []byte {
	gk := p.Kind.GroupKind()
	if p.BuiltIn != nil {
		gk = p.BuiltIn.Route
	}
	b = append(append(b, gk.Group...), '/')
	b = append(append(b, gk.Kind...), '/')
	b = append(append(b, p.Obj.Namespace...), '/')
	return append(b, p.Obj.Name...)
}

// Key is the policy's object key.
func (p *Policy) Key() model.Key { return model.KeyOf(p.Obj) }

// Ref for findings.
func (p *Policy) Ref() diag.ObjectRef { return p.Obj.Ref() }

// IsValid reports whether the policy may take effect.
func (p *Policy) IsValid() bool { return len(p.Invalid) == 0 }

// Applies reports whether the policy takes effect where it attaches: it
// is valid, or invalid only in parts that fail open (FailOpen).
func (p *Policy) Applies() bool { return p.IsValid() || p.FailOpen }

// SetFields lists the keys of the fields the policy sets, in the kind's order.
func (p *Policy) SetFields() []string {
	var out []string
	for _, f := range p.Kind.Spec().FieldsFor(p.Values) {
		if _, ok := p.Values[f.Key]; ok {
			out = append(out, f.Key)
		}
	}
	return out
}

// FieldPath is the spec path of a field key, for positions.
func (p *Policy) FieldPath(key string) string {
	if p.BuiltIn != nil {
		if path, ok := p.BuiltIn.Paths[key]; ok {
			return path
		}
		return "spec"
	}
	for _, f := range p.Kind.Spec().Fields {
		if f.Key == key || (f.Family && strings.HasPrefix(key, f.Key)) {
			return f.SpecPath
		}
	}
	return "spec"
}

// CRDDefaults says which part of a field's value is its CRD's default
// rather than anything the policy's object writes: the API server writes
// the defaults of a field the object leaves out, so a controller reads
// them as set, and the model decodes them too (docs/crds.md); the views
// say which values no user wrote. whole: the object does not write the
// field at all, its value is the default; given: the defaults at the
// field's path or below it (each path from the object's root). A route
// rule's own fields (BuiltIn) are judged at their path in the route.
func (p *Policy) CRDDefaults(key string) (whole bool, given []manifest.Default) {
	if p == nil || p.Obj == nil || p.Obj.Defaults().Len() == 0 {
		return false, nil
	}
	path := p.FieldPath(key)
	if path == "spec" {
		return false, nil // a key no field of the kind names
	}
	return p.Obj.Defaulted(path), p.Obj.DefaultsAt(path)
}

// Precedes orders two policies at one target: higher weight first, then
// older creationTimestamp, then namespace/name. byName reports that only
// the name decided, which lint flags (GWP303).
func Precedes(a, b *Policy) (before bool, byName bool) {
	if a.Weight != b.Weight {
		return a.Weight > b.Weight, false
	}
	if !a.Created.Equal(b.Created) {
		if a.Created.IsZero() != b.Created.IsZero() {
			return !a.Created.IsZero(), false // a dated policy is older than an undated one
		}
		return a.Created.Before(b.Created), false
	}
	ka, kb := a.Obj.Namespace+"/"+a.Obj.Name, b.Obj.Namespace+"/"+b.Obj.Name
	return ka < kb, true
}

// ComparePrecedence is Precedes as a sort function.
func ComparePrecedence(a, b *Policy) int {
	if a == b {
		return 0
	}
	if before, _ := Precedes(a, b); before {
		return -1
	}
	return 1
}

// Registry holds the supported kinds.
type Registry struct {
	kinds []Kind
	byGK  map[model.GroupKind]Kind
	// controllers are the families' controllers (AddControllers).
	controllers []Controller
	// settings are the families' deployment settings (AddSettings).
	settings []Setting
	// targets are the families' render targets (AddTargets).
	targets []Target
	// families are the registered families (AddFamilies).
	families []Family
	// familyOfGroup is, per API group a family's controller defines, its
	// index in families (FamilyOf).
	familyOfGroup map[string]int
}

// NewRegistry builds a registry from kinds; the order is kept for output.
func NewRegistry(kinds ...Kind) *Registry {
	r := &Registry{byGK: map[model.GroupKind]Kind{}}
	for _, k := range kinds {
		r.kinds = append(r.kinds, k)
		r.byGK[k.GroupKind()] = k
	}
	return r
}

// Kinds lists the registered kinds.
func (r *Registry) Kinds() []Kind { return r.kinds }

// Lookup finds a kind.
func (r *Registry) Lookup(gk model.GroupKind) (Kind, bool) {
	k, ok := r.byGK[gk]
	return k, ok
}

// GroupKinds are the registered kinds plus the auxiliary kinds they read,
// for model.Options.Extra.
func (r *Registry) GroupKinds() map[model.GroupKind]bool {
	out := map[model.GroupKind]bool{}
	for _, k := range r.kinds {
		out[k.GroupKind()] = true
		if a, ok := k.(Auxiliary); ok {
			for _, gk := range a.AuxiliaryKinds() {
				out[gk] = true
			}
		}
	}
	return out
}

// BackendKinds are backendRef kinds the registered kinds provide.
func (r *Registry) BackendKinds() map[model.GroupKind]bool {
	out := map[model.GroupKind]bool{}
	for _, k := range r.kinds {
		if b, ok := k.(BackendProvider); ok {
			for _, gk := range b.BackendKinds() {
				out[gk] = true
			}
		}
	}
	return out
}

// PortlessBackendKinds are the backendRef kinds whose objects define
// their own ports (PortlessBackends): a backendRef naming one with a
// port does not resolve.
func (r *Registry) PortlessBackendKinds() map[model.GroupKind]bool {
	out := map[model.GroupKind]bool{}
	for _, k := range r.kinds {
		if b, ok := k.(PortlessBackends); ok {
			for _, gk := range b.PortlessBackendKinds() {
				out[gk] = true
			}
		}
	}
	return out
}

// LintRules are the lint rules the registered kinds own (LintRuleOwner),
// in registry order, each listed once.
func (r *Registry) LintRules() []diag.Rule {
	var out []diag.Rule
	for _, k := range r.kinds {
		if o, ok := k.(LintRuleOwner); ok {
			for _, rule := range o.LintRules() {
				if !slices.Contains(out, rule) {
					out = append(out, rule)
				}
			}
		}
	}
	return out
}

// ObjectCondition is one condition a controller writes on an object's own
// status (not per ancestor).
type ObjectCondition struct {
	Type, Status, Reason, Message string
}

// ObjectVerdict is a controller's verdict on one object that is neither a
// policy nor a route (Family.ObjectVerdicts): the conditions it writes on
// the object's own status (an object of its API group), the findings of
// those that refuse it, and what it builds nothing for without saying so
// (Dropped).
type ObjectVerdict struct {
	Object      model.Key
	Conditions  []ObjectCondition
	Diagnostics []diag.Diagnostic
	// Dropped says why the controller builds no cluster for the backend
	// object though none of its conditions says so: the object is of an
	// API group it writes no status on (a Service), or its conditions
	// accept it (kgateway adds an annotation it cannot parse to the
	// backend's errors, which leave the cluster out, but not to the
	// Backend's status). "" when it builds the object's clusters or
	// refuses it with a condition (Refused). Render builds no cluster for
	// it on that controller's Gateways (Untranslated), explain says why
	// and lint reports Diagnostics; status writes only Conditions.
	Dropped string
	// Controller is the controllerName of the controller whose verdict it
	// is (set by attach).
	Controller string
}

// Untranslated is whether the controller builds no cluster for the
// object: it refuses it (Refused) or drops it silently (Dropped).
func (v ObjectVerdict) Untranslated() bool { return v.Refused() || v.Dropped != "" }

// Refused is whether the controller does not accept the object: it writes
// Accepted False on it. Every view reads this one decision: status writes
// the condition, lint the findings, and render builds no cluster for a
// backend object so refused (its controller translates none).
func (v ObjectVerdict) Refused() bool {
	for _, c := range v.Conditions {
		if c.Type == "Accepted" && c.Status == "False" {
			return true
		}
	}
	return false
}

// Set is every decoded policy, sorted by kind, namespace, name.
type Set struct {
	Policies []*Policy
	// Untranslated are the findings about objects and fields of the input
	// that a family reads but does not translate (Untranslator), so that
	// nothing set is dropped silently.
	Untranslated []diag.Diagnostic
	byKey        map[model.Key]*Policy
}

// Get finds a policy by key.
func (s *Set) Get(k model.Key) *Policy { return s.byKey[k] }

// PrepareBackendPolicies makes env answer BackendPolicies from the
// registered BackendReferrers over env's model: Decode does it first, and
// a controller's route validation needs it too (a backend a route
// forwards to is judged as one a policy calls).
func (r *Registry) PrepareBackendPolicies(env *Env) {
	env.backendPolicies = nil
	for _, k := range r.kinds {
		if br, ok := k.(BackendReferrer); ok {
			env.backendPolicies = append(env.backendPolicies, br.BackendPolicy(env.Model))
		}
	}
}

// Decode decodes every object of every registered kind.
func (r *Registry) Decode(env *Env) *Set {
	s := &Set{byKey: map[model.Key]*Policy{}}
	r.PrepareBackendPolicies(env)
	for _, k := range r.kinds {
		for _, o := range env.Model.OfKind(k.GroupKind()) {
			p := k.Decode(o, env)
			s.Policies = append(s.Policies, p)
			s.byKey[model.KeyOf(o)] = p
		}
	}
	slices.SortFunc(s.Policies, func(a, b *Policy) int { return model.KeyOf(a.Obj).Compare(model.KeyOf(b.Obj)) })
	s.Untranslated = r.untranslated(env.Model)
	r.judgeForeign(s, env)
	return s
}

// judgeForeign keeps on each policy the verdicts of the controllers that
// judge its kind by their own rules (Family.ForeignJudges), once.
func (r *Registry) judgeForeign(s *Set, env *Env) {
	for _, f := range r.families {
		if f.Controller == nil || len(f.ForeignJudges) == 0 {
			continue
		}
		for _, p := range s.Policies {
			judge, ok := f.ForeignJudges[p.Kind.GroupKind()]
			if !ok {
				continue
			}
			if p.Judgements == nil {
				p.Judgements = map[string]Judgement{}
			}
			p.Judgements[f.Controller.Name] = judge(p, env)
		}
	}
}

// untranslated reports each object field the kinds' families declare
// untranslated (Untranslator), once per declaration.
func (r *Registry) untranslated(m *model.Model) []diag.Diagnostic {
	var out []diag.Diagnostic
	seen := map[string]bool{}
	for _, k := range r.kinds {
		u, ok := k.(Untranslator)
		if !ok {
			continue
		}
		for _, f := range u.UntranslatedFields() {
			id := f.Kind.Group + "/" + f.Kind.Kind + " " + f.Path
			if seen[id] {
				continue
			}
			seen[id] = true
			for _, o := range m.OfKind(f.Kind) {
				out = append(out, f.findings(o)...)
			}
		}
	}
	return out
}

// findings are the diagnostics about one object: the field at Path when
// it is set (a whole kind when Path is ""), or, with Except, each key set
// under Path but those.
func (f UntranslatedField) findings(o *manifest.Object) []diag.Diagnostic {
	ref := diag.ObjectRef{Group: o.Group, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
	at := func(path string) diag.Diagnostic {
		pos := o.Pos
		if path != "" {
			pos = o.KeyPos(path)
		}
		what := o.Kind + " field " + path
		if path == "" {
			what = o.Kind
		}
		return diag.Diagnostic{Code: LintNotTranslated.Code, Severity: LintNotTranslated.Severity, Object: ref, Field: path, Pos: pos,
			Message: what + " is not translated offline: " + f.Reason}
	}
	if f.Path == "" {
		return []diag.Diagnostic{at("")}
	}
	if !o.Has(f.Path) {
		return nil
	}
	if len(f.Except) == 0 {
		return []diag.Diagnostic{at(f.Path)}
	}
	var out []diag.Diagnostic
	for _, key := range o.Keys(f.Path) {
		p := f.Path + "." + key
		if !slices.Contains(f.Except, p) {
			out = append(out, at(p))
		}
	}
	return out
}

// Diag builds a diagnostic about a field of the policy. code is a rule
// value's Code (LintPolicyInvalid.Code, …), never a literal.
func (p *Policy) Diag(code string, sev diag.Severity, path, format string, args ...any) diag.Diagnostic {
	return diag.Diagnostic{Code: code, Severity: sev, Object: p.Ref(), Field: path, Pos: p.pos(path), Message: fmt.Sprintf(format, args...)}
}

// pos is the position of a field path: a rule's own fields were placed
// when read (BuiltIn.Pos), since their route's tree may be released.
func (p *Policy) pos(path string) diag.Position {
	if p.BuiltIn != nil {
		if at, ok := p.BuiltIn.Pos[path]; ok {
			return at
		}
	}
	return p.Obj.FieldPos(path)
}

// SortIDs sorts policy IDs, the order MergeOrigins lists use.
func SortIDs(ids []string) []string {
	slices.Sort(ids)
	return slices.Compact(ids)
}
