package attach

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/parallel"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Via is how a policy reached a target.
type Via string

// The ways a policy attaches.
const (
	ViaExtensionRef Via = "ExtensionRef"
	ViaSection      Via = "SectionName"
	ViaTargetRef    Via = "TargetRef"
)

// Attachment is one policy attached to one target.
type Attachment struct {
	Policy *policy.Policy
	Via    Via
	// Path is the field that made the attachment: a targetRef in the
	// policy, or the filter in the route.
	Path string
	// Section is the port name a policy on a Service names (sectionName):
	// it configures that port's cluster only.
	Section string
}

// Result indexes attachments by target. Lists are in precedence order
// within each way of attaching.
type Result struct {
	Gateway     map[*topology.Gateway][]*Attachment
	ListenerSet map[*topology.ListenerSet][]*Attachment
	Listener    map[*topology.Listener][]*Attachment // sectionName on a Gateway or ListenerSet
	Route       map[*topology.Route][]*Attachment
	Rule        map[*topology.Rule][]*Attachment // ExtensionRef first, then sectionName
	// Backend: policies on a backend object (a Service or a registered
	// backendRef kind), by its key; BackendKeys lists those keys sorted.
	Backend     map[model.Key][]*Attachment
	BackendKeys []model.Key
	// Unresolved lists, per policy, the targetRefs that found nothing.
	Unresolved map[*policy.Policy][]string
	// Resolved counts, per policy, the targets found.
	Resolved map[*policy.Policy]int
	// ExtensionRefs: per rule, the filters referencing a policy kind, in
	// filter order (for OnePerRule kinds and fail-closed rendering).
	Broken map[*topology.Rule][]Broken
	// OnBackendRef lists, per policy, the routes whose backendRef filters
	// reference it (kinds that allow it there): such a reference attaches
	// nothing to the rule, yet status reports the policy against those
	// routes' Gateways (for a kind reporting the Attached condition,
	// policy.KindSpec.Attached: Attached False, Pending).
	OnBackendRef map[*policy.Policy][]*topology.Route
	// BackendRef are, per backendRef of a rule, the policies its
	// ExtensionRef filters name, of kinds that apply per backend
	// (policy.KindSpec.BackendRefFilter), in precedence order: they
	// configure that backend's share of the rule only.
	BackendRef map[BackendRefKey][]*Attachment
	// Verdicts are, per route, the validation of each controller that
	// validates routes by rules of its own (policy.Family.ValidateRoute), by
	// controllerName.
	Verdicts map[*topology.Route]map[string]*policy.RouteVerdict
	// Ancestors are the ancestor statuses of the policies whose kind's
	// controller decides them itself (policy.Family.AncestorStatuses), every
	// policy of such a kind present (with none when it reaches nothing).
	Ancestors map[*policy.Policy][]policy.AncestorStatus
	// ForeignAncestors are, per policy of a kind some controller does
	// not own but decides the status of itself
	// (policy.Family.ForeignStatuses), that controller's ancestor
	// statuses by its controllerName (present, maybe empty, for every
	// policy of the kind): status prints them in place of the ancestors
	// it would report for that controller by merge.
	ForeignAncestors map[*policy.Policy]map[string][]policy.AncestorStatus
	// Rejected are, per policy, the targets it reaches whose controller
	// does not apply it there, with the verdict: the one decision merge
	// and every view read (see Rejection).
	Rejected map[*policy.Policy]map[policy.TargetKey]*policy.Rejection
	// RefusedBy are, per policy that controllers judge by rules of their
	// own (policy.Family.ForeignJudges) and the controllers using it
	// disagree on, the controllers that refuse it (by controllerName)
	// with their findings: each controller applies it by its own verdict,
	// so it applies for the others (its Invalid is theirs: none) and is
	// invalid on the refusing controllers' Gateways
	// (merge.Result.BackendOn; settleJudged).
	RefusedBy map[*policy.Policy]map[string][]diag.Diagnostic
	// Objects are the controllers' verdicts on objects of their API
	// groups other than policies and routes that carry a status of their
	// own (policy.Family.ObjectVerdicts), sorted by object.
	Objects []policy.ObjectVerdict

	Diagnostics []diag.Diagnostic

	// reg decides which Gateways take a policy kind
	// (policy.Registry.StrangerOn), on graph.
	reg   *policy.Registry
	graph *topology.Graph
	// mixed: some policy's kind is another registered controller's than
	// some Gateway's of the input (Stranger can hold at all), or partial.
	mixed bool
	// partial: some rule's ExtensionRef names a kind that the controllers
	// of some of its route's Gateways do not resolve and others do
	// (Broken.Under, RefusedOn).
	partial bool
}

// BackendRefKey names one backendRef of a rule by its index.
type BackendRefKey struct {
	Rule  *topology.Rule
	Index int
}

// Rejection is the controller's verdict when it does not apply p on the
// target t; nil when it does (or never decided otherwise).
func (r *Result) Rejection(p *policy.Policy, t policy.TargetKey) *policy.Rejection {
	return r.Rejected[p][t]
}

// Reject records that p's controller does not apply it on t, for a
// verdict a later stage decides (merge: a BackendTLSPolicy conflict on a
// backend), so that the verdicts stay in one place.
func (r *Result) Reject(p *policy.Policy, t policy.TargetKey, rj *policy.Rejection) {
	if r.Rejected == nil {
		r.Rejected = map[*policy.Policy]map[policy.TargetKey]*policy.Rejection{}
	}
	if r.Rejected[p] == nil {
		r.Rejected[p] = map[policy.TargetKey]*policy.Rejection{}
	}
	r.Rejected[p][t] = rj
}

// Broken is a rule made unusable by its policy references (a missing
// policy, two filters where one is allowed, a filter on a backendRef).
type Broken struct {
	Kind   policy.Kind
	Code   string
	Reason string
	// Field is the policy field at fault ("" when the reference itself is).
	Field string
	// Under are the controllers (controllerNames) on whose Gateways alone
	// the rule is broken: a route served by Gateways of several
	// controllers is judged by each under its own parentRefs (a kind one
	// of them does not resolve in a rule's ExtensionRef, while another
	// applies it). Nil: wherever the rule is served.
	Under []string
}

// BrokenUnder are the problems that break rule on the Gateways of the
// controller named ctrl (Broken.Under): the one reading of Broken for
// every view that judges a rule on one Gateway.
func (r *Result) BrokenUnder(rule *topology.Rule, ctrl string) []Broken {
	bs := r.Broken[rule]
	if !r.partial || len(bs) == 0 {
		return bs
	}
	var out []Broken
	for _, b := range bs {
		if b.Under == nil || slices.Contains(b.Under, ctrl) {
			out = append(out, b)
		}
	}
	return out
}

// BrokenOn is BrokenUnder for the controller of gw's GatewayClass (the
// default controller for a nil gw; none for a Gateway whose class is not
// in the input, which takes every kind).
func (r *Result) BrokenOn(rule *topology.Rule, gw *topology.Gateway) []Broken {
	if !r.partial {
		return r.Broken[rule]
	}
	def := ""
	if gw == nil && r.reg != nil {
		def = r.reg.DefaultController().Name
	}
	name := def
	if r.graph != nil {
		name, _ = r.graph.Controller(gw, def)
	}
	return r.BrokenUnder(rule, name)
}

// RefusedOn reports whether the controller of gw's GatewayClass does not
// resolve kind k in a rule's ExtensionRef filters
// (policy.Controller.OwnKindsOnly): a policy such a filter names takes no
// part in the rule where the route is served on gw (merge.LeftOutOn),
// and the rule is broken there (BrokenOn).
func (r *Result) RefusedOn(k policy.Kind, gw *topology.Gateway) bool {
	if !r.partial || gw == nil || r.graph == nil || r.reg == nil {
		return false
	}
	name, _ := r.graph.Controller(gw, "")
	c, ok := r.reg.Controller(name)
	return ok && c.OwnKindsOnly && !c.Owns(k)
}

// Attach resolves every policy of set against the graph.
func Attach(g *topology.Graph, reg *policy.Registry, set *policy.Set, cfg policy.Config) *Result {
	r := &Result{
		Gateway: map[*topology.Gateway][]*Attachment{}, ListenerSet: map[*topology.ListenerSet][]*Attachment{},
		Listener: map[*topology.Listener][]*Attachment{}, Route: map[*topology.Route][]*Attachment{},
		Rule: map[*topology.Rule][]*Attachment{}, Unresolved: map[*policy.Policy][]string{},
		Resolved: map[*policy.Policy]int{}, Broken: map[*topology.Rule][]Broken{}, Backend: map[model.Key][]*Attachment{},
		OnBackendRef: map[*policy.Policy][]*topology.Route{}, BackendRef: map[BackendRefKey][]*Attachment{},
		Verdicts: map[*topology.Route]map[string]*policy.RouteVerdict{}, reg: reg, graph: g,
	}
	r.mixed = mixedControllers(g, reg, set)
	decided := r.decideAhead(g, reg, set)
	backends := reg.BackendKinds()
	backends[model.GroupKind{Group: model.CoreGroup, Kind: string(policy.TargetService)}] = true
	idx := newSelectorIndex(g, backends)
	for _, p := range set.Policies {
		allNamespaces := reg.SelectsInAllNamespaces(p, cfg)
		for _, t := range p.Targets {
			if backends[model.GroupKind{Group: t.Group, Kind: t.Kind}] && slices.Contains(p.Kind.Spec().TargetKinds, policy.TargetKind(t.Kind)) {
				r.attachBackendTarget(g, idx, p, t)
				continue
			}
			r.attachTarget(g, idx, p, t, allNamespaces)
		}
	}
	for k := range r.Backend {
		r.BackendKeys = append(r.BackendKeys, k)
	}
	slices.SortFunc(r.BackendKeys, model.Key.Compare)
	for _, rt := range g.Routes {
		for _, rule := range rt.Rules {
			r.attachExtensionRefs(g, reg, set, rt, rule)
		}
	}
	env := &policy.Env{Model: g.Model, Config: cfg}
	reg.PrepareBackendPolicies(env)
	r.validateRoutes(g, reg, set, env)
	r.judgeObjects(g, reg, set, env)
	r.reportConflicts(g)
	r.settleJudged(g, reg, set)
	decided()
	r.decideForeign(g, reg, set, env)
	r.sortAll()
	return r
}

// decideForeign asks each family that decides the status of policies of
// kinds it does not own (policy.Family.ForeignStatuses) for its
// decisions, once per kind, after every other step (it reads which
// policies found targets, and their settled verdicts), and records them:
// the ancestors by controller (ForeignAncestors), the rejections beside
// the others (a target already rejected keeps its first verdict), the
// findings.
func (r *Result) decideForeign(g *topology.Graph, reg *policy.Registry, set *policy.Set, env *policy.Env) {
	var byKind map[model.GroupKind][]*policy.Policy
	var callers []*policy.Policy
	for _, f := range reg.Families() {
		if len(f.ForeignStatuses) == 0 || f.Controller == nil {
			continue
		}
		if byKind == nil {
			byKind = map[model.GroupKind][]*policy.Policy{}
			for _, p := range set.Policies {
				byKind[p.Kind.GroupKind()] = append(byKind[p.Kind.GroupKind()], p)
				if r.Resolved[p] > 0 {
					callers = append(callers, p)
				}
			}
		}
		ctrl := f.Controller.Name
		own := func(gw *topology.Gateway) bool { return g.ControllerOf(gw) == ctrl }
		kinds := slices.SortedFunc(maps.Keys(f.ForeignStatuses), func(a, b model.GroupKind) int {
			return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Kind, b.Kind))
		})
		for _, gk := range kinds {
			ps := byKind[gk]
			if len(ps) == 0 {
				continue
			}
			d := f.ForeignStatuses[gk](env, ps, callers, g, own, func(rt *topology.Route) *policy.RouteVerdict { return r.Verdicts[rt][ctrl] })
			r.Diagnostics = append(r.Diagnostics, d.Diagnostics...)
			if r.ForeignAncestors == nil {
				r.ForeignAncestors = map[*policy.Policy]map[string][]policy.AncestorStatus{}
			}
			for _, p := range ps {
				if r.ForeignAncestors[p] == nil {
					r.ForeignAncestors[p] = map[string][]policy.AncestorStatus{}
				}
				r.ForeignAncestors[p][ctrl] = d.Ancestors[p]
				for t, rj := range d.Rejected[p] { // distinct targets: the order does not matter
					if r.Rejection(p, t) == nil {
						r.Reject(p, t, rj)
					}
				}
			}
		}
	}
}

// decideAhead asks each family whose controller decides its policies'
// status itself (policy.Family.AncestorStatuses) for its decisions, once
// per kind with every policy of the kind, while the rest of Attach runs;
// the returned func waits for them and records them (Ancestors, Rejected,
// their findings after every other step's). A decider reads the graph
// and the policies of its kind alone, each kind's run state of its own,
// and nothing in Attach changes what it reads: attach writes its Result,
// and the one step that changes a policy, settleJudged, sets the Invalid
// of policies with foreign judgements (policy.Family.ForeignJudges,
// kinds their judge does not own). A kind to decide that has such a
// policy is decided after settleJudged, as it reads that verdict.
func (r *Result) decideAhead(g *topology.Graph, reg *policy.Registry, set *policy.Set) (record func()) {
	r.Ancestors = map[*policy.Policy][]policy.AncestorStatus{}
	r.Rejected = map[*policy.Policy]map[policy.TargetKey]*policy.Rejection{}
	byKind := map[model.GroupKind][]*policy.Policy{}
	var kinds []model.GroupKind
	type decider = func([]*policy.Policy, *topology.Graph, func(*topology.Gateway) bool) policy.Decisions
	deciders := map[model.GroupKind]decider{}
	judged := map[model.GroupKind]bool{}
	for _, p := range set.Policies {
		gk := p.Kind.GroupKind()
		decide, seen := deciders[gk]
		if !seen {
			if f := reg.FamilyOf(p.Kind); f != nil {
				decide = f.AncestorStatuses
			}
			deciders[gk] = decide
			if decide != nil {
				kinds = append(kinds, gk)
			}
		}
		if decide != nil {
			byKind[gk] = append(byKind[gk], p)
			judged[gk] = judged[gk] || len(p.Judgements) > 0
		}
	}
	decisions := make([]policy.Decisions, len(kinds))
	run := func(i int) {
		k := byKind[kinds[i]][0].Kind
		stranger := func(gw *topology.Gateway) bool { _, s := reg.StrangerOn(g, gw, k); return s }
		decisions[i] = deciders[kinds[i]](byKind[kinds[i]], g, stranger)
	}
	var ahead []int
	for i, gk := range kinds {
		if !judged[gk] {
			ahead = append(ahead, i)
		}
	}
	wait := parallel.Go(func() { parallel.Each(len(ahead), func(j int) { run(ahead[j]) }) })
	return func() {
		wait()
		for i, gk := range kinds {
			if judged[gk] {
				run(i)
			}
			d := decisions[i]
			r.Diagnostics = append(r.Diagnostics, d.Diagnostics...)
			for _, p := range byKind[gk] {
				r.Ancestors[p] = d.Ancestors[p]
				if rj := d.Rejected[p]; len(rj) > 0 {
					r.Rejected[p] = rj
				}
			}
		}
	}
}

func (r *Result) notFound(p *policy.Policy, path, code, msg string) {
	r.Unresolved[p] = append(r.Unresolved[p], msg)
	r.Diagnostics = append(r.Diagnostics, p.Diag(code, diag.Error, path, "%s", msg))
}

// attachTarget attaches p to what t names or selects; allNamespaces: p's
// selectors select in every namespace, not only p's own (its family's
// deployment, policy.Registry.SelectsInAllNamespaces).
func (r *Result) attachTarget(g *topology.Graph, idx *selectorIndex, p *policy.Policy, t policy.TargetRef, allNamespaces bool) {
	ns := p.Obj.Namespace
	if !slices.Contains(p.Kind.Spec().TargetKinds, targetKind(t)) || t.Group != model.GatewayGroup && !topology.IsListenerSetKind(t.Group, t.Kind) {
		if t.Selector != nil {
			// A selector of a kind the policy does not attach to is valid
			// (the CRDs restrict targetRefs only): it selects nothing.
			r.Diagnostics = append(r.Diagnostics, p.Diag(policy.LintTargetNotFound.Code, diag.Warning, t.Path,
				"%s does not attach to %s/%s, so this selector selects nothing; it attaches to %v", p.Kind.GroupKind().Kind, t.Group, t.Kind, p.Kind.Spec().TargetKinds))
			return
		}
		r.notFound(p, t.Path, policy.LintTargetNotFound.Code, fmt.Sprintf("%s cannot target %s/%s; it attaches to %v", p.Kind.GroupKind().Kind, t.Group, t.Kind, p.Kind.Spec().TargetKinds))
		return
	}
	if t.Selector != nil {
		selNS := ns
		elsewhere, _ := p.Kind.(policy.NamespaceSelecting)
		if allNamespaces || elsewhere != nil {
			selNS = ""
		}
		matched := idx.match(setKey(t), selNS, t.LabelSelector())
		for _, k := range matched {
			if !allNamespaces && k.Namespace != ns && !elsewhere.SelectsIn(p, t, g.Model, k.Namespace, k.Name) {
				continue
			}
			r.attachTo(g, p, policy.TargetRef{Group: t.Group, Kind: t.Kind, Name: k.Name, Section: t.Section, Path: t.Path}, k.Namespace, true)
		}
		return
	}
	r.attachTo(g, p, t, ns, false)
}

// targetKind is the attachment point a targetRef names: a listener set of
// either kind (the v1 ListenerSet, the experimental XListenerSet) is the
// ListenerSet target; any other kind is its own name.
func targetKind(t policy.TargetRef) policy.TargetKind {
	if topology.IsListenerSetKind(t.Group, t.Kind) {
		return policy.TargetListenerSet
	}
	return policy.TargetKind(t.Kind)
}

// setKey is the selector index's key of a target kind: the kind, with the
// group in front for a listener set that is not the v1 kind (so that a
// selector of ListenerSets selects no XListenerSet and the reverse).
func setKey(t policy.TargetRef) string {
	if t.Group != model.GatewayGroup && topology.IsListenerSetKind(t.Group, t.Kind) {
		return t.Group + "/" + t.Kind
	}
	return t.Kind
}

// attachTo attaches p to the named target in namespace ns. Selector
// matches do not report a missing sectionName: a selector is a query, and
// an object without that section simply does not match.
func (r *Result) attachTo(g *topology.Graph, p *policy.Policy, t policy.TargetRef, ns string, selected bool) {
	missing := func(what string) {
		if !selected {
			r.notFound(p, t.Path, policy.LintTargetNotFound.Code, fmt.Sprintf("target %s %s/%s not found; check the name and the policy's namespace (targetRefs are namespace-local)", what, ns, t.Name))
		}
	}
	noSection := func(what string) {
		if !selected {
			r.notFound(p, t.Path+".sectionName", LintSectionNotFound.Code, fmt.Sprintf("%s %s/%s has no section %q", what, ns, t.Name, t.Section))
		}
	}
	switch targetKind(t) {
	case policy.TargetGateway:
		gw := g.Gateway(ns, t.Name)
		if gw == nil {
			missing("Gateway")
			return
		}
		if gw.Refused.Reason != "" {
			// its controller translates nothing of it: the policy has
			// no target there, as for a Gateway not in the input
			if !selected {
				r.notFound(p, t.Path, policy.LintTargetNotFound.Code, fmt.Sprintf("target Gateway %s/%s is not accepted by %s (%s: %s), so nothing of it is translated", ns, t.Name, gw.ControllerTitle(), gw.Refused.Reason, gw.Refused.Message))
			}
			return
		}
		if s, ok := r.reg.StrangerOn(g, gw, p.Kind); ok {
			r.stranger(p, t, selected, s, "Gateway "+ns+"/"+t.Name)
			return
		}
		if t.Section == "" {
			appendTo(r, r.Gateway, gw, p, ViaTargetRef, t.Path)
			return
		}
		l := gw.Listener(t.Section)
		if l == nil {
			noSection("Gateway")
			return
		}
		appendTo(r, r.Listener, l, p, ViaSection, t.Path)
	case policy.TargetListenerSet:
		s := g.ListenerSetOf(model.GroupKind{Group: t.Group, Kind: t.Kind}, ns, t.Name)
		if s == nil {
			missing(t.Kind)
			return
		}
		if st, ok := r.reg.StrangerOn(g, s.Parent, p.Kind); ok {
			r.stranger(p, t, selected, st, t.Kind+" "+ns+"/"+t.Name+"'s Gateway "+s.Parent.Namespace+"/"+s.Parent.Name)
			return
		}
		if t.Section == "" {
			appendTo(r, r.ListenerSet, s, p, ViaTargetRef, t.Path)
			return
		}
		l := s.Listener(t.Section)
		if l == nil {
			noSection(t.Kind)
			return
		}
		appendTo(r, r.Listener, l, p, ViaSection, t.Path)
	case policy.TargetHTTPRoute, policy.TargetGRPCRoute:
		rt := g.Route(t.Kind, ns, t.Name)
		if rt == nil {
			missing(t.Kind)
			return
		}
		if st, gw, ok := r.strangersOnly(g, rt, p.Kind); ok {
			r.stranger(p, t, selected, st, "every Gateway of "+t.Kind+" "+ns+"/"+t.Name+" ("+gw+")")
			return
		}
		if t.Section == "" {
			appendTo(r, r.Route, rt, p, ViaTargetRef, t.Path)
			return
		}
		for _, rule := range rt.Rules {
			if rule.Name == t.Section {
				appendTo(r, r.Rule, rule, p, ViaSection, t.Path)
				return
			}
		}
		noSection(t.Kind)
	}
}

// stranger reports a target p's kind does not apply on: it names a
// Gateway (or what one holds) of another registered controller
// (policy.Stranger), where what names the Gateway. A selector's match is
// skipped without a finding: the kind's controller never sees it.
func (r *Result) stranger(p *policy.Policy, t policy.TargetRef, selected bool, s policy.Stranger, what string) {
	if selected {
		return
	}
	// not Unresolved: the target exists, and neither controller says it
	// is missing (a controller's TargetNotFound is for an object not there)
	r.Diagnostics = append(r.Diagnostics, p.Diag(LintTargetOtherController.Code, LintTargetOtherController.Severity, t.Path, "%s", s.Why(p.Kind.GroupKind().Kind, what)))
}

// Stranger reports whether the Gateway gw does not take policies of kind
// k: its GatewayClass names another registered controller than k's
// (policy.Registry.StrangerOn). attach decides it for every target a
// policy names; a route served by Gateways of several controllers takes
// a policy of k attached to it (or to its rules) only on the Gateways
// that take k, and merge, render, status and explain ask this for each
// Gateway they serve such a route on. Cheap when the input mixes no
// controllers (no policy of one on another's Gateway): false at once.
func (r *Result) Stranger(k policy.Kind, gw *topology.Gateway) bool {
	if !r.mixed || gw == nil {
		return false
	}
	_, s := r.reg.StrangerOn(r.graph, gw, k)
	return s
}

// Mixed reports whether Stranger (or RefusedOn) can hold for any Gateway
// of the input: a view that must look a Gateway up before asking Stranger
// skips that when it is false.
func (r *Result) Mixed() bool { return r.mixed }

// mixedControllers reports whether some policy of set has a kind of a
// registered controller that is not the only registered controller the
// Gateways' classes name: only then can a Gateway be a stranger to a
// policy (Stranger).
func mixedControllers(g *topology.Graph, reg *policy.Registry, set *policy.Set) bool {
	named := map[string]bool{}
	for _, gw := range g.Gateways {
		if name, _ := g.Controller(gw, ""); name != "" {
			if _, ok := reg.Controller(name); ok {
				named[name] = true
			}
		}
	}
	if len(named) == 0 {
		return false
	}
	checked := map[policy.Kind]bool{}
	for _, p := range set.Policies {
		if checked[p.Kind] {
			continue
		}
		checked[p.Kind] = true
		for name := range named {
			if _, s := reg.StrangerTo(name, p.Kind); s {
				return true
			}
		}
	}
	return false
}

// strangersOnly reports whether every Gateway the route's parentRefs find
// is another controller's than k's (policy.Registry.StrangerOn), with the
// first of them and their names; false when the route finds no Gateway
// or one that takes k.
func (r *Result) strangersOnly(g *topology.Graph, rt *topology.Route, k policy.Kind) (policy.Stranger, string, bool) {
	var first policy.Stranger
	var names []string
	for _, p := range rt.Parents {
		if p.Gateway == nil {
			continue
		}
		s, ok := r.reg.StrangerOn(g, p.Gateway, k)
		if !ok {
			return policy.Stranger{}, "", false
		}
		if len(names) == 0 {
			first = s
		}
		if n := p.Gateway.Namespace + "/" + p.Gateway.Name; !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return first, strings.Join(names, ", "), len(names) > 0
}

func appendTo[K comparable](r *Result, m map[K][]*Attachment, k K, p *policy.Policy, via Via, path string) {
	m[k] = append(m[k], &Attachment{Policy: p, Via: via, Path: path})
	r.Resolved[p]++
}

// attachExtensionRefs attaches the policies a rule's filters reference.
// Per the Gateway API, a filter that cannot be resolved must not be skipped:
// the rule is marked broken and renders as an error response.
func (r *Result) attachExtensionRefs(g *topology.Graph, reg *policy.Registry, set *policy.Set, rt *topology.Route, rule *topology.Rule) {
	perKind := map[policy.Kind]int{}
	for _, f := range rule.Filters {
		if f.Type != "ExtensionRef" || f.ExtensionRef == nil {
			continue
		}
		ref := f.ExtensionRef
		gk := model.GroupKind{Group: string(ref.Group), Kind: string(ref.Kind)}
		k, ok := reg.Lookup(gk)
		if !ok || !k.Spec().ExtensionRef {
			// Not a policy kind: a filter the controllers implement
			// themselves, or one they do not know.
			if c, own := ownFilter(g, reg, rt, ref); own {
				r.notTranslated(rt, f.Path+".extensionRef", fmt.Sprintf("ExtensionRef to %s %s is a filter %s implements itself, not a policy; gwpol leaves what it does out of what it renders", gk, ref.Name, c.Title))
				continue
			}
			r.broken(rt, rule, nil, policy.LintExtensionRefNotFound.Code, f.Path+".extensionRef",
				fmt.Sprintf("ExtensionRef to %s is not a policy kind gwpol supports here; the rule would answer with an error", gk))
			continue
		}
		refusers, all := refusingControllers(g, reg, rt, k)
		if all {
			c := refusers[len(refusers)-1]
			r.broken(rt, rule, nil, policy.LintExtensionRefNotFound.Code, f.Path+".extensionRef",
				fmt.Sprintf("ExtensionRef to %s is not a policy kind %s supports (it resolves only its own kinds in a rule's filters): the rule answers with an error, and %s %s does not apply here", gk, c.Title, gk.Kind, ref.Name))
			continue
		}
		if len(refusers) > 0 {
			r.refusedOnSome(rt, rule, refusers, f.Path+".extensionRef", gk, string(ref.Name))
		}
		perKind[k]++
		if k.Spec().OnePerRule && perKind[k] > 1 {
			r.broken(rt, rule, k, policy.LintDuplicatePolicyFilter.Code, f.Path,
				fmt.Sprintf("more than one %s filter on %s rule %s; %s allows one per rule, so the rule fails closed", gk.Kind, rt.Kind, rule.Section(), gk.Kind))
			continue
		}
		if k.Spec().SingleAnswer && perKind[k] == 2 {
			r.broken(rt, rule, k, policy.LintDuplicatePolicyFilter.Code, f.Path,
				fmt.Sprintf("more than one %s filter on %s rule %s; a rule answers with one, so it answers 500 instead", gk.Kind, rt.Kind, rule.Section()))
		}
		p := set.Get(model.Key{Group: gk.Group, Kind: gk.Kind, Namespace: rt.Meta.Namespace, Name: string(ref.Name)})
		if p == nil {
			r.broken(rt, rule, k, policy.LintExtensionRefNotFound.Code, f.Path+".extensionRef.name",
				fmt.Sprintf("ExtensionRef to %s %s/%s, which does not exist; create it or fix the name (the rule answers with an error until then)", gk.Kind, rt.Meta.Namespace, ref.Name))
			continue
		}
		r.checkRule(rt, rule, k, p)
		appendTo(r, r.Rule, rule, p, ViaExtensionRef, f.Path)
	}
	for i, b := range rule.Backends {
		for _, f := range b.Filters {
			if f.Type != "ExtensionRef" || f.ExtensionRef == nil {
				r.backendFilterIgnored(g, reg, rt, f)
				continue
			}
			gk := model.GroupKind{Group: string(f.ExtensionRef.Group), Kind: string(f.ExtensionRef.Kind)}
			k, ok := reg.Lookup(gk)
			if ok && r.foreignBackendRef(g, reg, rt, k, f) {
				continue
			}
			switch {
			case ok && k.Spec().OnePerRule:
				r.broken(rt, rule, k, policy.LintPolicyFilterOnBackend.Code, f.Path,
					fmt.Sprintf("%s filter on a backendRef; %s attaches only to rules, so the rule fails closed — move the filter to the rule's filters", gk.Kind, gk.Kind))
			case ok && k.Spec().BackendRefFilter:
				r.attachBackendRef(rt, rule, i, k, set, f)
			case ok:
				r.notTranslated(rt, f.Path, fmt.Sprintf("ExtensionRef to %s %s on a backendRef is not translated offline: "+
					"gwpol applies per backend only the policy kinds whose controller takes them there, and %s is not one; "+
					"attach it to the rule (its filters, or a targetRef with sectionName) to see it rendered", gk.Kind, f.ExtensionRef.Name, gk.Kind))
				p := set.Get(model.Key{Group: gk.Group, Kind: gk.Kind, Namespace: rt.Meta.Namespace, Name: string(f.ExtensionRef.Name)})
				// a route's references come together: compare with the last
				if l := r.OnBackendRef[p]; p != nil && (len(l) == 0 || l[len(l)-1] != rt) {
					r.OnBackendRef[p] = append(l, rt)
				}
			default:
				r.notTranslated(rt, f.Path, fmt.Sprintf("ExtensionRef to %s %s on a backendRef is not translated offline: %s is not a policy kind gwpol supports; "+
					"its config leaves it out", gk.Kind, f.ExtensionRef.Name, gk))
			}
		}
	}
}

// attachBackendRef attaches the policy a backendRef's ExtensionRef
// filter names, of a kind that applies per backend
// (policy.KindSpec.BackendRefFilter), to that backendRef of the rule.
// A reference to a policy that does not exist attaches nothing
// (unresolvedBackendRef says what the controller makes of it). The fields
// the kind does not apply per backend (policy.FieldSpec.PerBackend) are
// named where the policy sets them.
func (r *Result) attachBackendRef(rt *topology.Route, rule *topology.Rule, i int, k policy.Kind, set *policy.Set, f model.Filter) {
	ref := f.ExtensionRef
	gk := k.GroupKind()
	p := set.Get(model.Key{Group: gk.Group, Kind: gk.Kind, Namespace: rt.Meta.Namespace, Name: string(ref.Name)})
	if p == nil {
		r.unresolvedBackendRef(rt, k, f)
		return
	}
	key := BackendRefKey{Rule: rule, Index: i}
	if slices.ContainsFunc(r.BackendRef[key], func(a *Attachment) bool { return a.Policy == p }) {
		return
	}
	r.BackendRef[key] = append(r.BackendRef[key], &Attachment{Policy: p, Via: ViaExtensionRef, Path: f.Path})
	r.Resolved[p]++
	// a route's references come together: compare with the last
	if l := r.OnBackendRef[p]; len(l) == 0 || l[len(l)-1] != rt {
		r.OnBackendRef[p] = append(l, rt)
	}
	for _, fs := range k.Spec().Fields {
		if _, set := p.Values[fs.Key]; !set || fs.PerBackend {
			continue
		}
		rule := policy.LintBackendRefFilterIgnored
		msg := fmt.Sprintf("%s is left out where %s %s/%s references this policy from a backendRef: %s; put the policy on the rule to apply %s",
			fs.Key, rt.Kind, rt.Meta.Namespace, rt.Meta.Name, k.Spec().BackendRefNote, fs.Key)
		if why := fs.BackendRefUntranslated; why != "" {
			rule = policy.LintNotTranslated
			msg = fmt.Sprintf("%s is not translated offline where %s %s/%s references this policy from a backendRef: %s",
				fs.Key, rt.Kind, rt.Meta.Namespace, rt.Meta.Name, why)
		}
		d := diag.Diagnostic{Code: rule.Code, Severity: rule.Severity, Object: p.Obj.Ref(), Field: fs.SpecPath, Pos: p.Obj.FieldPos(fs.SpecPath), Message: msg}
		if !slices.ContainsFunc(r.Diagnostics, func(o diag.Diagnostic) bool {
			return o.Object == d.Object && o.Field == d.Field && o.Message == d.Message
		}) {
			r.Diagnostics = append(r.Diagnostics, d)
		}
	}
}

// foreignBackendRef reports whether a backendRef's ExtensionRef filter
// names a kind that the controller of every Gateway serving the route
// does not resolve (policy.Controller.OwnKindsOnly), each of them saying
// what it does with such a filter: it skips it
// (policy.Controller.SkipsUnresolvedBackendRefs: a warning, GWP218), or
// refuses the backendRef through its own route validation
// (policy.Controller.BackendRefFiltersRefused). The kind's own rules for
// a backendRef filter — its controller's, which serves none of these
// Gateways — then do not apply, and the policy attaches nothing there.
func (r *Result) foreignBackendRef(g *topology.Graph, reg *policy.Registry, rt *topology.Route, k policy.Kind, f model.Filter) bool {
	refusers, all := refusingControllers(g, reg, rt, k)
	if !all || slices.ContainsFunc(refusers, func(c policy.Controller) bool { return !c.SkipsUnresolvedBackendRefs && !c.BackendRefFiltersRefused }) {
		return false
	}
	for _, c := range refusers {
		if !c.SkipsUnresolvedBackendRefs {
			continue // its route validation refuses the backendRef
		}
		gk, path := k.GroupKind(), f.Path+".extensionRef"
		r.Diagnostics = append(r.Diagnostics, diag.Diagnostic{Code: policy.LintBackendRefFilterIgnored.Code, Severity: policy.LintBackendRefFilterIgnored.Severity,
			Object: rt.Key().Ref(), Field: path, Pos: rt.Src.FieldPos(path),
			Message: fmt.Sprintf("ExtensionRef to %s %s on a backendRef is not a policy kind %s resolves (it resolves only its own kinds), and it skips a backendRef filter it cannot resolve: this backend gets no policy, and no status says why", gk, f.ExtensionRef.Name, c.Title)})
	}
	return true
}

// unresolvedBackendRef reports a backendRef's ExtensionRef filter naming a
// policy that does not exist. A controller that skips it
// (policy.KindSpec.SkipsUnresolvedBackendRef: that backend gets no policy,
// no status says so — such filters' errors are left undefined upstream)
// is warned about (GWP218), not a broken rule; what another controller
// does instead gwpol does not translate (GWP406).
func (r *Result) unresolvedBackendRef(rt *topology.Route, k policy.Kind, f model.Filter) {
	gk, path := k.GroupKind(), f.Path+".extensionRef.name"
	rule := policy.LintBackendRefFilterIgnored
	what := "the controller skips an unresolved backendRef filter, so this backend gets no policy (and no status says why)"
	if !k.Spec().SkipsUnresolvedBackendRef {
		rule = policy.LintNotTranslated
		what = "the controller does not skip an unresolved backendRef filter, and what it does instead is not translated offline (gwpol renders the backend without the policy)"
	}
	r.Diagnostics = append(r.Diagnostics, diag.Diagnostic{Code: rule.Code, Severity: rule.Severity, Object: rt.Key().Ref(), Field: path, Pos: rt.Src.FieldPos(path),
		Message: fmt.Sprintf("ExtensionRef to %s %s/%s, which does not exist: %s; create it or fix the name", gk.Kind, rt.Meta.Namespace, f.ExtensionRef.Name, what)})
}

// backendFilterIgnored reports a Gateway API filter on a backendRef that
// a controller serving the route ignores there
// (policy.Controller.BackendRefFilters: the filter types it applies per
// backend). A controller that refuses such a backendRef
// says so through its route validation. For one that declares nothing,
// a type other than the header modifiers (which render applies per
// backend) is not translated (GWP406).
func (r *Result) backendFilterIgnored(g *topology.Graph, reg *policy.Registry, rt *topology.Route, f model.Filter) {
	seen := map[string]bool{}
	for _, pr := range rt.Parents {
		if pr.Gateway == nil {
			continue
		}
		name, _ := g.Controller(pr.Gateway, reg.DefaultController().Name)
		c, ok := reg.Controller(name)
		if seen[name] {
			continue
		}
		seen[name] = true
		if !ok || c.BackendRefFilters == nil {
			if f.Type != "RequestHeaderModifier" && f.Type != "ResponseHeaderModifier" {
				r.notTranslated(rt, f.Path, fmt.Sprintf("a %s filter on a backendRef is not translated offline: gwpol applies only header modifiers per backend, so its config leaves it out; "+
					"put it in the rule's filters to apply it to the whole rule", f.Type))
			}
			continue
		}
		if c.BackendRefFiltersRefused || slices.Contains(c.BackendRefFilters, f.Type) {
			continue
		}
		r.Diagnostics = append(r.Diagnostics, diag.Diagnostic{Code: policy.LintBackendRefFilterIgnored.Code, Severity: policy.LintBackendRefFilterIgnored.Severity,
			Object: rt.Key().Ref(), Field: f.Path, Pos: rt.Src.FieldPos(f.Path),
			Message: fmt.Sprintf("a %s filter on a backendRef is ignored by %s, which applies only %s per backend; put it in the rule's filters to apply it to the whole rule",
				f.Type, c.Title, strings.Join(c.BackendRefFilters, " and "))})
	}
}

// ownFilter reports whether the controllers of every Gateway the route
// attaches to implement the ExtensionRef themselves
// (policy.Controller.OwnFilter), and returns one of them (all, when
// several, agree).
func ownFilter(g *topology.Graph, reg *policy.Registry, rt *topology.Route, ref *gwv1.LocalObjectReference) (policy.Controller, bool) {
	return everyParentController(g, reg, rt, func(c policy.Controller) bool {
		return c.OwnFilter != nil && c.OwnFilter(string(ref.Group), string(ref.Kind), string(ref.Name))
	})
}

// refusingControllers are the controllers of the Gateways the route
// attaches to that resolve only their own kinds in a rule's ExtensionRef
// filters (policy.Controller.OwnKindsOnly) when k is none of theirs, each
// once, in parent order; all reports that every such Gateway's
// controller is one of them (false when the route attaches to none).
func refusingControllers(g *topology.Graph, reg *policy.Registry, rt *topology.Route, k policy.Kind) (refusers []policy.Controller, all bool) {
	all = true
	seen := false
	for _, p := range rt.Parents {
		if p.Gateway == nil {
			continue
		}
		seen = true
		name, _ := g.Controller(p.Gateway, "")
		c, ok := reg.Controller(name)
		if !ok || !c.OwnKindsOnly || c.Owns(k) {
			all = false
			continue
		}
		if !slices.ContainsFunc(refusers, func(o policy.Controller) bool { return o.Name == c.Name }) {
			refusers = append(refusers, c)
		}
	}
	return refusers, all && seen
}

// refusedOnSome breaks a rule on the Gateways of the controllers that do
// not resolve the kind gk its ExtensionRef at path names, on a route
// other Gateways serve whose controllers apply it (Broken.Under): each
// controller judges the rule under its own parentRefs.
func (r *Result) refusedOnSome(rt *topology.Route, rule *topology.Rule, refusers []policy.Controller, path string, gk model.GroupKind, name string) {
	r.partial, r.mixed = true, true
	names := make([]string, len(refusers))
	titles := make([]string, len(refusers))
	for i, c := range refusers {
		names[i], titles[i] = c.Name, c.Title
	}
	who := strings.Join(titles, " and ")
	msg := fmt.Sprintf("ExtensionRef to %s is not a policy kind %s supports (it resolves only its own kinds in a rule's filters): on %s's Gateways the rule answers with an error, and %s %s does not apply there; the route's other Gateways apply it",
		gk, who, who, gk.Kind, name)
	r.Broken[rule] = append(r.Broken[rule], Broken{Code: policy.LintExtensionRefNotFound.Code, Reason: msg, Under: names})
	r.Diagnostics = append(r.Diagnostics, diag.Diagnostic{Code: policy.LintExtensionRefNotFound.Code, Severity: diag.Error, Object: rt.Key().Ref(), Field: path, Pos: rt.Src.FieldPos(path), Message: msg})
}

// everyParentController reports whether the controller of every Gateway
// the route attaches to is registered and holds, and returns the last of
// them; false when the route attaches to no Gateway.
func everyParentController(g *topology.Graph, reg *policy.Registry, rt *topology.Route, holds func(policy.Controller) bool) (policy.Controller, bool) {
	var last policy.Controller
	seen := false
	for _, p := range rt.Parents {
		if p.Gateway == nil {
			continue
		}
		name, _ := g.Controller(p.Gateway, "")
		c, ok := reg.Controller(name)
		if !ok || !holds(c) {
			return policy.Controller{}, false
		}
		last, seen = c, true
	}
	return last, seen
}

// notTranslated is a GWP406 warning at a route's field.
func (r *Result) notTranslated(rt *topology.Route, path, msg string) {
	r.Diagnostics = append(r.Diagnostics, diag.Diagnostic{Code: policy.LintNotTranslated.Code, Severity: policy.LintNotTranslated.Severity,
		Object: rt.Key().Ref(), Field: path, Pos: rt.Src.FieldPos(path), Message: msg})
}

// checkRule breaks a rule whose policy cannot serve it: an invalid policy
// of a FailClosed kind (its own findings say why), or one the kind rejects
// for this route kind (policy.RuleChecker, e.g. cache on a GRPCRoute). The
// policy still attaches, so its status names the rule's Gateways.
func (r *Result) checkRule(rt *topology.Route, rule *topology.Rule, k policy.Kind, p *policy.Policy) {
	if k.Spec().FailClosed && !p.IsValid() {
		r.Broken[rule] = append(r.Broken[rule], Broken{Kind: k, Code: p.Invalid[0].Code, Field: p.Invalid[0].Field,
			Reason: fmt.Sprintf("%s %s/%s is not valid: %s", k.GroupKind().Kind, p.Obj.Namespace, p.Obj.Name, p.Invalid[0].Message)})
	}
	rc, ok := k.(policy.RuleChecker)
	if !ok {
		return
	}
	for _, d := range rc.CheckRule(p, rt.Route) {
		d.Message += fmt.Sprintf(" (used by %s %s/%s rule %s)", rt.Kind, rt.Meta.Namespace, rt.Meta.Name, rule.Section())
		r.Diagnostics = append(r.Diagnostics, d)
		r.Broken[rule] = append(r.Broken[rule], Broken{Kind: k, Code: d.Code, Reason: d.Message, Field: d.Field})
	}
}

func (r *Result) broken(rt *topology.Route, rule *topology.Rule, k policy.Kind, code, path, msg string) {
	r.Broken[rule] = append(r.Broken[rule], Broken{Kind: k, Code: code, Reason: msg})
	r.Diagnostics = append(r.Diagnostics, diag.Diagnostic{Code: code, Severity: diag.Error, Object: rt.Key().Ref(), Field: path, Pos: rt.Src.FieldPos(path), Message: msg})
}

var viaRank = map[Via]int{ViaExtensionRef: 0, ViaSection: 1, ViaTargetRef: 2}

// Rank orders the ways of attaching, strongest (0) first: ExtensionRef,
// sectionName, then a whole-target targetRef or selector.
func (v Via) Rank() int { return viaRank[v] }

// sortAll puts every list in precedence order: by way of attaching, then
// (for kinds with KindSpec.Precedence) weight, age and name. A policy
// reaching one target twice (two targetRefs, or a targetRef and a
// selector) counts once, at its strongest way.
func (r *Result) sortAll() {
	sortList := func(l []*Attachment) []*Attachment {
		slices.SortStableFunc(l, func(a, b *Attachment) int {
			if d := viaRank[a.Via] - viaRank[b.Via]; d != 0 {
				return d
			}
			// Kinds without precedence (chains, one-per-rule kinds) keep
			// the order they attached in: rule filter order, then policy
			// key order.
			pa, pb := a.Policy.Kind.Spec().Precedence, b.Policy.Kind.Spec().Precedence
			switch {
			case pa && pb:
				return policy.ComparePrecedence(a.Policy, b.Policy)
			case pa != pb && pa:
				return -1
			case pa != pb:
				return 1
			}
			return 0
		})
		seen := map[*policy.Policy]bool{}
		return slices.DeleteFunc(l, func(a *Attachment) bool {
			dup := seen[a.Policy]
			seen[a.Policy] = true
			return dup
		})
	}
	for k, l := range r.Gateway {
		r.Gateway[k] = sortList(l)
	}
	for k, l := range r.ListenerSet {
		r.ListenerSet[k] = sortList(l)
	}
	for k, l := range r.Listener {
		r.Listener[k] = sortList(l)
	}
	for k, l := range r.Route {
		r.Route[k] = sortList(l)
	}
	for k, l := range r.Backend {
		r.Backend[k] = sortList(l)
	}
	for k, l := range r.Rule {
		r.Rule[k] = sortList(l)
	}
	for k, l := range r.BackendRef {
		r.BackendRef[k] = sortList(l)
	}
	r.Diagnostics = diag.Sort(r.Diagnostics)
}

// selectorIndex finds targets by label without scanning every object: an
// inverted index from kind and label key=value to objects.
type selectorIndex struct {
	byLabel map[string]map[string][]model.Key // kind → "k=v" → keys
	labels  map[model.Key]map[string]string
	// all lists every object of a kind, labelled or not, for selectors
	// whose expressions name no value to look up.
	all map[string][]model.Key
}

// attachBackendTarget attaches p to a backend object in its namespace (by
// name or by labels); a sectionName names one of a Service's ports.
func (r *Result) attachBackendTarget(g *topology.Graph, idx *selectorIndex, p *policy.Policy, t policy.TargetRef) {
	ns := p.Obj.Namespace
	if t.Selector != nil {
		for _, k := range idx.match(t.Kind, ns, t.LabelSelector()) {
			if t.Section == "" || servicePort(g, k, t.Section) {
				r.appendBackend(k, p, t)
			}
		}
		return
	}
	k := model.Key{Group: t.Group, Kind: t.Kind, Namespace: ns, Name: t.Name}
	if _, ok := g.Model.Object(k); !ok {
		r.notFound(p, t.Path, policy.LintTargetNotFound.Code, fmt.Sprintf("target %s %s/%s not found; check the name and the policy's namespace (targetRefs are namespace-local)", t.Kind, ns, t.Name))
		return
	}
	if t.Section != "" && !servicePort(g, k, t.Section) {
		r.notFound(p, t.Path+".sectionName", LintSectionNotFound.Code, fmt.Sprintf("%s %s/%s has no port named %q", t.Kind, ns, t.Name, t.Section))
		return
	}
	r.appendBackend(k, p, t)
}

// appendBackend attaches p to a backend object; a sectionName naming a
// Service's port restricts it to that port's cluster (a targetRef's
// sectionName names a section of its target, GEP-713; a Service's are its
// ports), ahead of the policies on the whole Service.
func (r *Result) appendBackend(k model.Key, p *policy.Policy, t policy.TargetRef) {
	a := &Attachment{Policy: p, Via: ViaTargetRef, Path: t.Path}
	if t.Section != "" && k.Group == model.CoreGroup && k.Kind == string(policy.TargetService) {
		a.Via, a.Section = ViaSection, t.Section
	}
	r.Backend[k] = append(r.Backend[k], a)
	r.Resolved[p]++
}

// servicePort reports whether a Service has a port of that name; other
// backend kinds have no named sections gwpol reads, so any section is
// taken as written.
func servicePort(g *topology.Graph, k model.Key, section string) bool {
	if k.Group != model.CoreGroup || k.Kind != string(policy.TargetService) {
		return true
	}
	svc := g.Model.Service(k.Namespace, k.Name)
	if svc == nil {
		return false
	}
	for _, port := range svc.Spec.Ports {
		if port.Name == section {
			return true
		}
	}
	return false
}

func newSelectorIndex(g *topology.Graph, backends map[model.GroupKind]bool) *selectorIndex {
	idx := &selectorIndex{byLabel: map[string]map[string][]model.Key{}, labels: map[model.Key]map[string]string{}, all: map[string][]model.Key{}}
	add := func(kind string, k model.Key, ls map[string]string) {
		if idx.byLabel[kind] == nil {
			idx.byLabel[kind] = map[string][]model.Key{}
		}
		idx.all[kind] = append(idx.all[kind], k)
		if len(ls) == 0 {
			return // nothing selects it; match reads a missing key as no labels
		}
		idx.labels[k] = ls
		for lk, lv := range ls {
			idx.byLabel[kind][lk+"="+lv] = append(idx.byLabel[kind][lk+"="+lv], k)
		}
	}
	for _, gw := range g.Gateways {
		add("Gateway", gw.Key(), gw.Labels)
		for _, s := range gw.Sets {
			add(setKey(policy.TargetRef{Group: s.Key().Group, Kind: s.Key().Kind}), s.Key(), s.Labels)
		}
	}
	for _, rt := range g.Routes {
		add(rt.Kind, rt.Key(), rt.Meta.Labels)
	}
	for gk := range backends {
		for _, o := range g.Model.OfKind(gk) {
			add(gk.Kind, model.KeyOf(o), o.Labels)
		}
	}
	for _, m := range idx.byLabel {
		for _, ks := range m {
			slices.SortFunc(ks, model.Key.Compare)
		}
	}
	for _, ks := range idx.all {
		slices.SortFunc(ks, model.Key.Compare)
	}
	return idx
}

// match returns the keys of kind in ns ("" = any) whose labels satisfy sel.
// The candidates come from the index through the requirement that names
// the fewest objects (an equality, or an In over its values); a selector
// of expressions that name no value (Exists, NotIn, DoesNotExist), or of
// none (everything), is checked against every object of the kind.
func (idx *selectorIndex) match(kind, ns string, sel labels.Selector) []model.Key {
	reqs, selectable := sel.Requirements()
	if !selectable {
		return nil // labels.Nothing (policy.TargetRef.LabelSelector)
	}
	best, found := idx.all[kind], false
	for _, req := range reqs {
		switch req.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
		default:
			continue
		}
		var cand []model.Key
		vals := req.Values().List()
		for _, v := range vals {
			cand = append(cand, idx.byLabel[kind][req.Key()+"="+v]...)
		}
		if len(vals) > 1 {
			// an object has one value per key: no key is listed twice
			slices.SortFunc(cand, model.Key.Compare)
		}
		if !found || len(cand) < len(best) {
			best, found = cand, true
		}
	}
	var out []model.Key
	for _, k := range best {
		if (ns == "" || k.Namespace == ns) && sel.Matches(labels.Set(idx.labels[k])) {
			out = append(out, k)
		}
	}
	return out
}

var _ policy.Attachments = (*Result)(nil)

// OnRoute are the policies attached to the route as a whole, in
// attachment order (policy.Attachments).
func (r *Result) OnRoute(rt *topology.Route) []*policy.Policy {
	out := make([]*policy.Policy, 0, len(r.Route[rt]))
	for _, a := range r.Route[rt] {
		out = append(out, a.Policy)
	}
	return out
}

// OnRule are the policies attached to one rule, in attachment order
// (policy.Attachments).
func (r *Result) OnRule(rule *topology.Rule) []policy.RuleAttachment {
	out := make([]policy.RuleAttachment, 0, len(r.Rule[rule]))
	for _, a := range r.Rule[rule] {
		out = append(out, policy.RuleAttachment{Policy: a.Policy, ExtensionRef: a.Via == ViaExtensionRef})
	}
	return out
}

// Break records a rule a family's step finds unusable (Broken).
func (r *Result) Break(rule *topology.Rule, b policy.BrokenRule) {
	r.Broken[rule] = append(r.Broken[rule], Broken{Kind: b.Kind, Code: b.Code, Reason: b.Reason})
}
