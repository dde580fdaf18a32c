package explain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/guardrail"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Ref names a target.
type Ref struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Section   string `json:"section,omitempty"`
}

// Field is one field in effect.
type Field struct {
	PolicyKind   string   `json:"policyKind"`
	Field        string   `json:"field"`
	Owner        string   `json:"owner"`
	Level        string   `json:"level"`
	Strategy     string   `json:"strategy"`
	Contributors []string `json:"contributors"`
	Overridden   []string `json:"overridden"`
	Inherited    bool     `json:"inherited"`
	Shadowed     []string `json:"shadowed,omitempty"`
	// AlsoInEffect are less specific levels' policies whose values of the
	// field configure other instances (another ext_authz provider) and so
	// still apply.
	AlsoInEffect []string `json:"alsoInEffect,omitempty"`
	// Decisions say, for each policy that lost this field (overridden or
	// shadowed), which rule put the owner first.
	Decisions []Decision `json:"decisions,omitempty"`
	// FilterOrder: when the values in effect call several extensions,
	// the order their Envoy filters run in and the weight that decided it
	// (the extension's, not the policy's).
	FilterOrder []FilterStep    `json:"filterOrder,omitempty"`
	Value       json.RawMessage `json:"value,omitempty"`
	// CRDDefault: the owner's object does not write the field; its value
	// is the default the CRD gives it, which the API server writes and
	// the controller reads (policy.Policy.CRDDefaults).
	CRDDefault bool `json:"crdDefault,omitempty"`
	// Defaults (with values shown) are the values inside the owner's
	// value that the CRD's defaults give and its object does not write,
	// each at its path below the field.
	Defaults []Default `json:"defaults,omitempty"`
	// ClusterSetting (a backend's cluster) is the Envoy cluster setting
	// the field configures (policy.FieldSpec.Cluster).
	ClusterSetting string `json:"clusterSetting,omitempty"`
	// NotOnCluster (a backend's cluster): merge's verdict leaves the field
	// out of this cluster (merge.ProtocolVerdict.LeftOut: it applies to
	// backends of another protocol), so render writes neither its setting
	// nor its merge metadata there; a note says why.
	NotOnCluster bool `json:"notOnCluster,omitempty"`
	// NotOnRoute (a route rule): merge's verdict leaves the field off the
	// rule's routes (merge.ForwardingVerdict.NotApplied: the rule answers
	// with a redirect or a direct response, so it has no route action, and
	// the field configures forwarding routes only); render writes none of
	// it there, and a note says why.
	NotOnRoute bool `json:"notOnRoute,omitempty"`
	// ReplacedBy (a backend's cluster): the policies of a later kind
	// whose field sets the same cluster setting and replaces this one.
	ReplacedBy []string `json:"replacedBy,omitempty"`
	// Notes say more about the owner (a backend's cluster: which spec
	// field or other kind's setting it replaces).
	Notes []string `json:"notes,omitempty"`
	// Guardrails are the platform's guardrails (config guardrails:) that
	// apply to the field here, and whether each holds.
	Guardrails []Guard `json:"guardrails,omitempty"`
	// OverriddenBy: a field of a kind of another family writes one of
	// this field's Envoy paths here and wins it (merge.PathOverride), so
	// this field is not in effect at all.
	OverriddenBy *Override `json:"overriddenBy,omitempty"`
	// ClusterFrom: the cluster the route sends to is the one the rule's
	// route on another listener shaped (merge.ClusterShape), so the
	// field's settings on it are that listener's.
	ClusterFrom *ClusterFrom `json:"clusterFrom,omitempty"`
	// OnClusters are the backends of the rule whose cluster takes a
	// setting of this field's from a policy on the backend of another
	// family's kind instead (merge.ClusterOverride): the field stays in
	// effect on the route and the rule's other backends' clusters.
	OnClusters []ClusterOverride `json:"onClusters,omitempty"`
	// DefaultStrategy: Strategy is the field's usual one, so text output
	// leaves it out.
	DefaultStrategy bool `json:"-"`
}

// Default is a value of a field that the CRD's default gives (Field.Defaults).
type Default struct {
	// Path is below the field (maxPendingRequests, backendRefs[0].weight);
	// "" for the field itself.
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

// Override is the field of another family's kind that wins an Envoy
// path from a field (Field.OverriddenBy), and why.
type Override struct {
	PolicyKind string `json:"policyKind"`
	Field      string `json:"field"`
	Owner      string `json:"owner"`
	// Path is the Envoy path both write (policy.FieldSpec.Writes).
	Path string `json:"path"`
	// Rule is level, age or name (merge.PathOverride's order).
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
}

// ClusterFrom names the listener whose route of the rule shaped the one
// cluster the rule's routes send to (Field.ClusterFrom).
type ClusterFrom struct {
	Listener string `json:"listener"`
	// Owner owns the field there, whose settings the cluster has; ""
	// when the field is not set there (the cluster has none of it).
	Owner string `json:"owner,omitempty"`
	// Only: the field is not this route's own: it is in effect on the
	// cluster alone (merge.EffectiveField.ClusterOnly).
	Only bool `json:"only,omitempty"`
}

// ClusterOverride is one backend's cluster where a policy on the backend
// wins a setting of the field's (Field.OnClusters): Backend names it
// (KIND NAMESPACE/NAME port P), Override the winning field.
type ClusterOverride struct {
	Backend string `json:"backend"`
	Override
}

// Decision is why the owner beat one loser.
type Decision struct {
	Loser string `json:"loser"`
	// Rule is level, attachment, weight, age, name or order.
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
}

// FilterStep is one extension filter in run order.
type FilterStep struct {
	// Object carries the weight (e.g. GatewayExtension infra/authz).
	Object string `json:"object"`
	Weight int32  `json:"weight"`
	// Source is where on the object the weight is set.
	Source string `json:"source"`
	// Policies call the object.
	Policies []string `json:"policies"`
	// Rule put it after the step before: weight or name; empty for the first.
	Rule string `json:"rule,omitempty"`
}

// Target is one explained target.
type Target struct {
	Target Ref `json:"target"`
	// Listener the effective view is for (a route can be served by several).
	Listener string `json:"listener,omitempty"`
	// DelegatedBy is the parent path the view is for, when a delegated
	// rule is served through several (omitted when there is one): the
	// delegating rules above it, nearest first, as "NAMESPACE/NAME rule
	// R". Each path's copy of the rule merges with that path's parents'
	// policies (merge.RulePath).
	DelegatedBy []string `json:"delegatedBy,omitempty"`
	EnvoyRoutes []string `json:"envoyRoutes"`
	// Cluster is the Envoy cluster a backend target explains.
	Cluster string `json:"cluster,omitempty"`
	// FixedStatus is the status the rule answers instead of forwarding
	// (500, or 503 failing closed); the notes say why.
	FixedStatus int      `json:"fixedStatus,omitempty"`
	Fields      []Field  `json:"fields"`
	Notes       []string `json:"notes,omitempty"`
	// Guardrails are guardrails about no field in effect here: a
	// required field that is missing, or one a more specific policy
	// hides from a namespace that may set it.
	Guardrails []Guard `json:"guardrails,omitempty"`
	// BackendRefs are, for a rule, its backendRefs whose filters name
	// policies, with the fields those set for that backend.
	BackendRefs []BackendRef `json:"backendRefs,omitempty"`
}

// Report is the explain output.
type Report struct {
	Targets []Target `json:"targets"`
}

// Options narrow the output.
type Options struct {
	Field      string
	ShowValues bool
	// RouteNames returns the Envoy route names a rule produced on a
	// listener, along one parent path when the rule is delegated (nil:
	// through every path).
	RouteNames func(*topology.Rule, *merge.RulePath, *topology.Listener) []string
	// Notes returns kind-specific notes for a rule as served on a Gateway
	// (nil: attached nowhere), e.g. runtime identity;
	// Explain uses Notes(r) when it is nil, Rule adds none then.
	Notes func(*topology.Route, *topology.Rule, *topology.Gateway) []string
	// Answers returns, for the rule's Envoy routes on a listener, the ones
	// render made answer a fixed status for reasons the merge result does
	// not know (a capability the render target lacks, a field that cannot
	// be rendered): route name, status and the response body saying why.
	Answers func(*topology.Rule, *merge.RulePath, *topology.Listener) []Answer
	// ClusterLeftOut returns the Gateways whose config render leaves a
	// backend's cluster out of, for a reason the merge result does not
	// know (a field of a policy on the backend cannot be rendered into
	// it), with why; none when every Gateway keeps it.
	ClusterLeftOut func(cluster string) []LeftOut
	// Guardrails are the platform's rules (config guardrails:) to show
	// per field and target; none: no guardrail is shown.
	Guardrails []guardrail.Rule
}

// Answer is an Envoy route that answers every request with Status.
type Answer struct {
	Route  string
	Status int
	Body   string
}

// LeftOut is a Gateway (NAMESPACE/NAME) whose config leaves a cluster
// out, and why.
type LeftOut struct {
	Gateway string
	Why     string
}

// Listener explains a listener's own effective view.
func Listener(r *merge.Result, l *topology.Listener, opt Options) Target {
	owner := Ref{Group: "gateway.networking.k8s.io", Kind: "Gateway", Namespace: l.Gateway.Namespace, Name: l.Gateway.Name, Section: string(l.Name)}
	if l.Set != nil {
		owner = setRef(l.Set)
		owner.Section = string(l.Name)
	}
	es := r.Effective(nil, l)
	t := Target{Target: owner, EnvoyRoutes: []string{}, Fields: fields(es, opt)}
	guards(r, guardrail.Target{Listener: l}, es, &t, opt)
	if note := unmanagedNote(r, l.Gateway); note != "" {
		t.Notes = append(t.Notes, note)
		return t
	}
	t.Notes = append(t.Notes, reportedNotes(l.Gateway)...)
	if l.Protocol == gwv1.TCPProtocolType || l.Protocol == gwv1.TLSProtocolType {
		t.Notes = append(t.Notes, streamNote(l))
	}
	t.Notes = append(t.Notes, notAppliedNotes(r.NotApplied(nil, l))...)
	for _, e := range es {
		if e.Level() == merge.LevelGateway || !MatchField(e.Key, opt.Field) {
			continue
		}
		fs := fieldSpec(e)
		switch {
		case fs.PortWide:
			t.Notes = append(t.Notes, fmt.Sprintf("%s of %s is recorded here but not applied: it configures the Envoy Listener of port %d, which only policies on the whole Gateway set",
				e.Key, e.Field.Owner.Policy.Describe(), l.Port))
		case fs.ChainWide && l.Protocol == gwv1.HTTPProtocolType:
			t.Notes = append(t.Notes, fmt.Sprintf("%s of %s is recorded here but not applied: it configures the filter chain the HTTP listeners on port %d share, which only policies on the whole Gateway set",
				e.Key, e.Field.Owner.Policy.Describe(), l.Port))
		}
	}
	return t
}

// reportedNotes say, for a Gateway whose controller's status reporter
// writes conditions over its own (topology.Gateway.Reported), what it
// reports and that the listener is translated all the same.
func reportedNotes(gw *topology.Gateway) []string {
	var out []string
	for _, c := range gw.Reported {
		if c.Status == "" {
			continue // a condition it withdraws: it writes none of the type
		}
		out = append(out, fmt.Sprintf("Gateway %s/%s: %s reports it %s=%s (%s: %s); this listener is translated and served all the same",
			gw.Namespace, gw.Name, gw.ControllerTitle(), c.Type, c.Status, c.Reason, c.Message))
	}
	return out
}

// notAppliedNotes say, for each policy that reaches the target but that
// its controller does not apply there, that none of its fields are listed
// and why, in status's words (merge.Candidate.Rejected).
func notAppliedNotes(vs []merge.Verdict) []string {
	var out []string
	for _, v := range vs {
		out = append(out, fmt.Sprintf("not applied: %s reaches this target but none of its fields take effect (%s: %s)",
			v.Policy.Describe(), v.Rejection.Reason, v.Rejection.Message))
	}
	return out
}

// streamRule explains a TCPRoute, TLSRoute or UDPRoute rule: no policy field
// configures its connections (no kind targets these routes, and the
// Gateway's HTTP fields do not reach a tcp_proxy), so it lists none, and
// says whether the listener programs the route at all: by its
// controller's rule of which routes a listener serves, and its verdict
// on the route there.
func streamRule(r *merge.Result, t Target, rt *topology.Route, l *topology.Listener) Target {
	t.Fields = []Field{}
	if l == nil {
		t.Notes = append(t.Notes, "the route is attached to no listener")
		return t
	}
	t.Listener = l.ID()
	if c, ok := r.Verdict(rt, l.Gateway).Unserved(l); ok {
		t.Notes = append(t.Notes, fmt.Sprintf("carries no connection (GWP213): refused on this listener (%s=%s, %s): %s", c.Type, c.Status, c.Reason, c.Message))
		return t
	}
	for _, a := range l.Routes {
		if a.Route != rt {
			continue
		}
		if gap := l.StreamRouteGap(a); gap != "" {
			t.Notes = append(t.Notes, "carries no connection (GWP213): "+gap)
			return t
		}
	}
	if rt.Kind == "UDPRoute" {
		t.Notes = append(t.Notes, fmt.Sprintf("its datagrams on UDP port %d are proxied (udp_proxy) to its backend: no policy field configures them — no policy kind gwpol reads targets a UDPRoute, and the Gateway's HTTP fields do not apply", l.Port))
		return t
	}
	t.Notes = append(t.Notes, fmt.Sprintf("its connections on port %d are proxied as bytes (tcp_proxy) to its backends: no policy field configures them — no policy kind gwpol reads targets a %s, and the Gateway's HTTP fields do not apply", l.Port, rt.Kind))
	return t
}

// streamNote says what a TCP or TLS listener takes from the fields
// listed: its connections go through a tcp_proxy, with no HTTP connection
// manager, virtual host or route for an HTTP field to configure; the
// kinds that configure such listeners (policy.StreamListenerConfigurer)
// reach its chains from the listener as from the Gateway.
func streamNote(l *topology.Listener) string {
	return fmt.Sprintf("%s listener: its connections are proxied as bytes (tcp_proxy), so fields that configure HTTP (connection manager, virtual hosts, routes) do not apply to them; settings of the Envoy listener itself that a policy on the whole Gateway makes (a ListenerPolicy's proxyProtocol, say) reach them, and so do the listener, TLS, connection and TCP proxy settings of the policy kinds that configure TCP and TLS listeners, from a policy on the listener as on the Gateway", l.Protocol)
}

// fieldSpec is the kind's spec of an effective field (the zero
// FieldSpec for a member of a field family).
func fieldSpec(e merge.EffectiveField) policy.FieldSpec {
	for _, fs := range e.Kind.Spec().Fields {
		if fs.Key == e.Key {
			return fs
		}
	}
	return policy.FieldSpec{}
}

// unmanagedNote says why a Gateway no controller in the input manages
// has nothing programmed (status: Pending; topology.Graph.Unmanaged); ""
// when one does.
func unmanagedNote(r *merge.Result, gw *topology.Gateway) string {
	return r.Graph.Unmanaged(gw)
}

// invalidNote says why a rule an invalid policy merges into answers 500,
// in the words of the controller serving it (503 for a kind that fails
// closed, policy.KindSpec.FailClosed): one that replaces the rule
// whole (policy.Controller.ReplacesInvalidWhole) keeps nothing the route
// configures; another answers 500 and keeps, beside that answer, only
// what the policy kind says it keeps (the fields listed).
func invalidNote(r *merge.Result, gw *topology.Gateway, p *policy.Policy) string {
	inv := p.ID()
	if p.Kind.Spec().FailClosed {
		// the kind never lets a rule forward without its policy: the rule
		// answers 503 (merge.FixedStatus), whatever the controller
		// answers for another invalid policy
		return "replaced by a direct response (503): the invalid policy " + inv + " merges here, and its kind fails closed: the rule never forwards without it"
	}
	ctrl, _ := r.Graph.Controller(gw, r.Registry.DefaultController().Name)
	if c, ok := r.Registry.Controller(ctrl); ok && c.ReplacesInvalidWhole {
		return "replaced by a direct response (500): the invalid policy " + inv + " merges here, so none of the fields listed take effect (" + c.Title + " replaces what an invalid policy configures)"
	}
	return "replaced by a direct response (500): the invalid policy " + inv + " merges here, and " + ctrl + " answers 500 on the routes an invalid policy applies to"
}

// Rule explains a route rule as served on one listener (nil: attached nowhere).
func Rule(r *merge.Result, rt *topology.Route, rule *topology.Rule, l *topology.Listener, opt Options) Target {
	return RuleOn(r, rt, rule, nil, l, opt)
}

// RuleOn explains a delegated rule as served on one listener along one
// parent path (path nil: its Own merge, as Rule).
func RuleOn(r *merge.Result, rt *topology.Route, rule *topology.Rule, path *merge.RulePath, l *topology.Listener, opt Options) Target {
	es := r.EffectiveOn(rule, path, l)
	t := Target{Target: Ref{Group: "gateway.networking.k8s.io", Kind: rt.Kind, Namespace: rt.Meta.Namespace, Name: rt.Meta.Name, Section: rule.Section()},
		EnvoyRoutes: []string{}, Fields: fields(es, opt), BackendRefs: backendRefs(r, rule, es, opt)}
	guards(r, guardrail.Target{Route: rt, Rule: rule, Path: path, Listener: l}, es, &t, opt)
	if rp := r.Rule(rule); path != nil && rp != nil && len(rp.Paths) > 1 {
		t.DelegatedBy = viaText(r, path.Via) // named when there is a choice
	}
	forwardingNotes(r, rule, path, es, t.Fields)
	t.Notes = append(t.Notes, notAppliedNotes(r.NotApplied(rule, l))...)
	if rt.Kind == "TCPRoute" || rt.Kind == "TLSRoute" || rt.Kind == "UDPRoute" {
		return streamRule(r, t, rt, l)
	}
	if l != nil {
		t.Listener = l.ID()
		if opt.RouteNames != nil {
			t.EnvoyRoutes = append(t.EnvoyRoutes, opt.RouteNames(rule, path, l)...)
		}
	} else {
		t.Notes = append(t.Notes, "the route is attached to no listener; only its own policies are shown")
	}
	var gw *topology.Gateway
	if l != nil {
		gw = l.Gateway
	}
	if p := r.ProblemOf(rule, path, gw); p != nil && p.Dropped {
		what := "the rule is left out of the Envoy config (RouteRuleDropped), so its requests go to the next route that matches them"
		if p.Outcome != "" {
			what = p.Outcome
		}
		t.Notes = append(t.Notes, "not programmed: "+p.Message+"; "+what)
	}
	if p := r.SkipsOf(rule, path, gw); p != nil {
		t.Notes = append(t.Notes, "not applied: "+p.Message+"; "+p.Outcome)
	}
	if !rt.Served(rule) {
		t.Notes = append(t.Notes, "not served: its match falls outside the delegating parent's (GWP209); no Envoy route carries these fields")
	}
	if l != nil {
		if note := unmanagedNote(r, gw); note != "" {
			t.Notes = append(t.Notes, note)
			return t
		}
	}
	if f, out := r.LeftOut(rt, rule, gw); out {
		ctrl, _ := r.Graph.Controller(gw, "")
		t.Notes = append(t.Notes, fmt.Sprintf("not programmed: %s drops the rule (%s): %s; it is left out of the Envoy config, so its requests go to the next route that matches them",
			ctrl, f.Reason, strings.TrimSuffix(f.Message, ".")))
	}
	for _, inv := range invalidHere(r, rule, path, l) {
		t.Notes = append(t.Notes, invalidNote(r, gw, inv))
	}
	fixed := func() (merge.FixedStatus, bool) {
		return r.FixedStatusAlong(rt, rule, path, gw)
	}
	if fs, ok := fixed(); ok {
		t.FixedStatus = fs.Status
		for _, why := range fs.Reasons {
			t.Notes = append(t.Notes, fmt.Sprintf("answers %d to every request: %s", fs.Status, why))
		}
	}
	if opt.Answers != nil && l != nil && t.FixedStatus == 0 {
		for _, a := range opt.Answers(rule, path, l) {
			t.FixedStatus = a.Status
			note := fmt.Sprintf("envoy route %s answers %d to every request", a.Route, a.Status)
			if a.Body != "" {
				note += ": " + a.Body
			}
			t.Notes = append(t.Notes, note)
		}
	}
	if _, fixed := fixed(); !fixed {
		// Some delegations resolve and the rule forwards to them; the
		// others are named (a rule delegating to nothing answers 500, said
		// above).
		for _, b := range rule.Backends {
			if b.Why != "" {
				t.Notes = append(t.Notes, "a backendRef delegates to no route (GWP211): "+b.Why)
			}
		}
		t.Notes = append(t.Notes, unresolvedShares(r, rt, rule, gw)...)
	}
	if opt.Notes != nil {
		t.Notes = append(t.Notes, opt.Notes(rt, rule, gw)...)
	}
	return t
}

// ids names candidates: policy IDs, and a route rule's own fields as
// "HTTPRoute NS/NAME rule R (built-in)".
func ids(cs []*merge.Candidate) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Policy.Describe())
	}
	return out
}

func fields(es []merge.EffectiveField, opt Options) []Field {
	out := []Field{}
	for _, e := range es {
		if !MatchField(e.Key, opt.Field) {
			continue
		}
		gk := e.Kind.GroupKind()
		level := string(e.Level())
		if e.Field.Owner.Parent != "" {
			level += " " + e.Field.Owner.Parent
		}
		f := Field{PolicyKind: gk.Group + "/" + gk.Kind, Field: e.Key, Owner: e.Field.Owner.Policy.Describe(), Level: level,
			Strategy: string(e.Field.Strategy), Contributors: ids(e.Field.Contributors), Overridden: ids(e.Field.Losers), Inherited: e.Inherited}
		f.DefaultStrategy = e.Field.Strategy == defaultStrategy(e)
		if o := e.OverriddenBy; o != nil {
			ogk := o.Kind.GroupKind()
			f.OverriddenBy = &Override{PolicyKind: ogk.Group + "/" + ogk.Kind, Field: o.Key, Owner: o.Field.Owner.Policy.Describe(),
				Path: string(o.Path), Rule: string(o.Decision.Rule), Reason: o.Decision.Detail}
		}
		if c := e.ClusterFrom; c != nil {
			f.ClusterFrom = &ClusterFrom{Listener: c.Listener.ID(), Only: e.ClusterOnly}
			if c.Field != nil {
				f.ClusterFrom.Owner = c.Field.Owner.Policy.Describe()
			}
		}
		for _, c := range e.OnClusters {
			ogk := c.Kind.GroupKind()
			f.OnClusters = append(f.OnClusters, ClusterOverride{Backend: fmt.Sprintf("%s %s/%s port %d", c.Backend.Kind, c.Backend.Namespace, c.Backend.Name, c.Port),
				Override: Override{PolicyKind: ogk.Group + "/" + ogk.Kind, Field: c.Key, Owner: c.Field.Owner.Policy.Describe(),
					Path: string(c.Path), Rule: string(c.Decision.Rule), Reason: c.Decision.Detail}})
		}
		for _, l := range e.Field.Losers {
			d := merge.DecideField(e.Field, l)
			f.Decisions = append(f.Decisions, Decision{Loser: l.Policy.ID(), Rule: string(d.Rule), Reason: d.Detail})
		}
		by := level
		if e.ShadowedBy != "" {
			by = string(e.ShadowedBy) // the policy that hides them is not this field's owner
		}
		for _, s := range e.Shadowed {
			for _, c := range s.Contributors {
				id := c.Policy.ID()
				if !slices.Contains(f.Shadowed, id) {
					f.Shadowed = append(f.Shadowed, id)
					f.Decisions = append(f.Decisions, Decision{Loser: id, Rule: string(merge.RuleLevel),
						Reason: fmt.Sprintf("%s level is more specific than %s level", by, c.Level)})
				}
			}
		}
		replaced(&f, e)
		for _, b := range e.Beside {
			for _, id := range ids(b.Contributors) {
				if !slices.Contains(f.AlsoInEffect, id) {
					f.AlsoInEffect = append(f.AlsoInEffect, id)
				}
			}
		}
		f.FilterOrder = filterSteps(e.FilterOrder())
		// A rule's own field (a Gateway API filter) stands for a field of
		// several kinds (a CORS filter is the cors field of two families'
		// kinds): one row, with what each kind's value hides.
		if i := slices.IndexFunc(out, func(o Field) bool { return o.Field == f.Field && o.Owner == f.Owner && e.Field.Owner.IsBuiltIn() }); i >= 0 {
			o := &out[i]
			for _, id := range f.Shadowed {
				if !slices.Contains(o.Shadowed, id) {
					o.Shadowed = append(o.Shadowed, id)
				}
			}
			for _, id := range f.Overridden {
				if !slices.Contains(o.Overridden, id) {
					o.Overridden = append(o.Overridden, id)
				}
			}
			for _, d := range f.Decisions {
				if !slices.ContainsFunc(o.Decisions, func(x Decision) bool { return x.Loser == d.Loser }) {
					o.Decisions = append(o.Decisions, d)
				}
			}
			continue
		}
		whole, given := e.Field.Owner.Policy.CRDDefaults(e.Key)
		f.CRDDefault = whole
		if opt.ShowValues {
			f.Defaults = defaultsBelow(e.Field.Owner.Policy.FieldPath(e.Key), given)
			v := any(e.Field.Values[0])
			if len(e.Field.Values) > 1 {
				v = e.Field.Values
			}
			if b, err := json.Marshal(v); err == nil {
				f.Value = b
			} else {
				f.Value = json.RawMessage(fmt.Sprintf("%q", err.Error()))
			}
		}
		out = append(out, f)
	}
	return out
}

// defaultsBelow are the defaults given at a field's path or below it, as
// paths below the field.
func defaultsBelow(field string, given []manifest.Default) []Default {
	var out []Default
	for _, d := range given {
		rel := strings.TrimPrefix(strings.TrimPrefix(manifest.FormatPath(d.Path), field), ".")
		v, err := json.Marshal(d.Value.Interface())
		if err != nil {
			continue
		}
		out = append(out, Default{Path: rel, Value: v})
	}
	return out
}

func filterSteps(steps []merge.FilterStep) []FilterStep {
	var out []FilterStep
	for _, st := range steps {
		fs := FilterStep{Object: st.Weight.Object, Weight: st.Weight.Weight, Source: st.Weight.Source, Rule: string(st.Rule), Policies: []string{}}
		for _, p := range st.Policies {
			fs.Policies = append(fs.Policies, p.ID())
		}
		out = append(out, fs)
	}
	return out
}

// invalidHere lists the invalid policies merging into a rule's route, its
// listener's virtual hosts or its Gateway's RouteConfiguration: render
// replaces that resource with a direct response.
func invalidHere(r *merge.Result, rule *topology.Rule, path *merge.RulePath, l *topology.Listener) []*policy.Policy {
	var pts []merge.Points
	var gw *topology.Gateway
	if l != nil {
		gw = l.Gateway
	}
	if path != nil {
		pts = append(pts, r.OnGateway(path.Own, gw))
	} else if rp := r.Rule(rule); rp != nil {
		pts = append(pts, r.OnGateway(rp.Own, gw))
	}
	if l != nil {
		if lp := r.Listener(l); lp != nil {
			pts = append(pts, lp.Own)
		}
		if gp := r.Gateway(l.Gateway); gp != nil {
			pts = append(pts, gp.Whole)
		}
	}
	var out []*policy.Policy
	has := func(p *policy.Policy) bool {
		return slices.ContainsFunc(out, func(q *policy.Policy) bool { return q.ID() == p.ID() })
	}
	add := func(pt *merge.Point) {
		for _, c := range pt.Invalid {
			if !has(c.Policy) {
				out = append(out, c.Policy)
			}
		}
	}
	for _, ps := range pts {
		for _, pt := range ps {
			// a kind whose policies replace less specific ones whole
			// (policy.WholeOverrider): an invalid one counts only where
			// merge's routed view keeps it, below — a more specific
			// policy of the kind hides a Gateway's, invalid or not, as
			// render reads it
			if wo, ok := pt.Kind.(policy.WholeOverrider); !ok || !wo.OverridesWhole() {
				add(pt)
			}
		}
	}
	for _, pt := range r.RoutedOn(rule, path, l) {
		add(pt)
	}
	if l != nil {
		// a policy its controller finds invalid on the route as served
		// through l only (policy.TargetKey.On): invalid here, as merge's
		// RoutedOn has it
		for _, v := range r.NotApplied(rule, l) {
			if v.Target.On != nil && v.Rejection.Verdict == policy.VerdictInvalid && !has(v.Policy) {
				out = append(out, v.Policy)
			}
		}
	}
	return out
}

// MatchField reports whether a field key is selected by a --field value:
// the key itself or any key under it (rateLimit covers rateLimit.local).
func MatchField(key, want string) bool {
	return want == "" || key == want || strings.HasPrefix(key, want+".") || strings.HasPrefix(key, want+"[")
}

// defaultStrategy is the strategy a field has when nothing is configured.
func defaultStrategy(e merge.EffectiveField) policy.Strategy {
	for _, fs := range e.Kind.Spec().Fields {
		if fs.Key == e.Key && fs.Default != "" {
			return fs.Default
		}
	}
	return policy.AugmentedShallow
}

// unresolvedShares notes, for a rule that forwards, each backendRef that
// does not resolve or that the controller managing gw refuses: the
// requests its weight would get answer 500, as the Gateway API asks
// (render routes them to a cluster no resource defines: the blackhole
// of a target with policy.Target.Blackhole, the one named by
// policy.Target.InvalidShare).
func unresolvedShares(r *merge.Result, rt *topology.Route, rule *topology.Rule, gw *topology.Gateway) []string {
	var out []string
	total := int32(0)
	for _, b := range rule.Backends {
		total += max(b.Weight, 0)
	}
	for i, b := range rule.Backends {
		if b.Why != "" || b.Weight <= 0 || rule.IsDelegating() {
			continue // a delegation to a missing route is said above
		}
		if !b.Resolved {
			out = append(out, fmt.Sprintf("backendRef %s %s/%s does not resolve (%s: %s): the requests its weight would get (%d of %d) answer 500",
				b.Kind, b.Namespace, b.Name, b.Reason, b.Message, b.Weight, total))
			continue
		}
		if rf, refused := r.BackendRefused(rt, rule, i, gw); refused {
			ctrl, _ := r.Graph.Controller(gw, "")
			out = append(out, fmt.Sprintf("backendRef %s %s/%s is refused by %s (%s: %s): the requests its weight would get (%d of %d) answer 500",
				b.Kind, b.Namespace, b.Name, ctrl, rf.Reason, strings.TrimSuffix(rf.Message, "."), b.Weight, total))
			continue
		}
		if why, refused := refusedObject(r, b, gw); refused {
			out = append(out, fmt.Sprintf("backendRef %s %s/%s %s: it has no cluster, so the requests its weight would get (%d of %d) answer 500",
				b.Kind, b.Namespace, b.Name, why, b.Weight, total))
		}
	}
	return out
}

// refusedObject says why a backendRef's object has no cluster when its
// controller does not accept it (attach.Result.RefusedObject), the
// decision render reads.
func refusedObject(r *merge.Result, b *topology.Backend, gw *topology.Gateway) (string, bool) {
	if b.Extension {
		return "", false
	}
	v, refused := r.Attach.RefusedObjectOn(model.Key{Group: b.Group, Kind: b.Kind, Namespace: b.Namespace, Name: b.Name}, r.Graph.ControllerOf(gw))
	if !refused {
		return "", false
	}
	return untranslatedText(v), true
}

// untranslatedText says why a backend object's controller builds no
// cluster for it: the Accepted condition that refuses it, or what it
// drops it for without a condition (policy.ObjectVerdict.Dropped).
func untranslatedText(v policy.ObjectVerdict) string {
	if v.Refused() {
		return "is not accepted by its controller (" + acceptedText(v) + ")"
	}
	return "is left out by its controller, which says so in no status (" + v.Dropped + ")"
}

// acceptedText is a refused object's Accepted condition as Reason: Message.
func acceptedText(v policy.ObjectVerdict) string {
	for _, c := range v.Conditions {
		if c.Type == "Accepted" && c.Status == "False" {
			return "Accepted False, " + c.Reason + ": " + strings.TrimSuffix(c.Message, ".")
		}
	}
	return "Accepted False"
}

// replaced lists the policies whose fields for every port a field for the
// listener's port replaces, each with the keys it loses there.
func replaced(f *Field, e merge.EffectiveField) {
	var order []string
	keys := map[string][]string{}
	for _, r := range e.Replaced {
		for _, c := range r.Contributors {
			id := c.Policy.Describe()
			if _, ok := keys[id]; !ok {
				order = append(order, id)
			}
			keys[id] = append(keys[id], r.Key)
		}
	}
	for _, id := range order {
		f.Shadowed = append(f.Shadowed, id)
		f.Decisions = append(f.Decisions, Decision{Loser: id, Rule: string(merge.RulePort),
			Reason: fmt.Sprintf("on this port %s replaces the settings for every port (%s)", e.Key, strings.Join(keys[id], ", "))})
	}
}

// viaText names the delegating rules of a parent path, nearest first.
func viaText(r *merge.Result, via []*topology.Rule) []string {
	out := make([]string, 0, len(via))
	for _, rule := range via {
		name := "rule " + rule.Section()
		if rp := r.Rule(rule); rp != nil {
			name = rp.Route.Meta.Namespace + "/" + rp.Route.Meta.Name + " " + name
		}
		out = append(out, name)
	}
	return out
}

// forwardingNotes mark the fields listed for a rule that does not forward
// (a redirect, a direct response) with merge's verdict on them
// (merge.Result.FieldForwardingOn, the one render reads): a field that
// configures forwarding routes only is not applied, and one that sets
// route action fields besides other settings has those left out.
func forwardingNotes(r *merge.Result, rule *topology.Rule, path *merge.RulePath, es []merge.EffectiveField, out []Field) {
	for _, e := range es {
		v := r.FieldForwardingOn(e.Kind, e.Key, rule, path)
		if !v.NotApplied() && !v.PartlyApplied() {
			continue
		}
		gk := e.Kind.GroupKind()
		owner := e.Field.Owner.Policy.Describe()
		i := slices.IndexFunc(out, func(f Field) bool {
			return f.PolicyKind == gk.Group+"/"+gk.Kind && f.Field == e.Key && f.Owner == owner
		})
		if i < 0 || out[i].NotOnRoute {
			continue
		}
		if v.NotApplied() {
			out[i].NotOnRoute = true
			out[i].Notes = append(out[i].Notes, fmt.Sprintf("not applied: the rule answers with %s, so it has no route action", v.Answer))
			continue
		}
		paths := make([]string, len(v.RouteAction))
		for j, p := range v.RouteAction {
			paths[j] = strings.TrimSuffix(string(p), "[]")
		}
		out[i].Notes = append(out[i].Notes, fmt.Sprintf("its route action settings (%s) are not applied: the rule answers with %s, so it has no route action", strings.Join(paths, ", "), v.Answer))
	}
}
