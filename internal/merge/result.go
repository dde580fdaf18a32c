package merge

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/parallel"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// Result is gwpol's IR: every merge point of every kind.
type Result struct {
	Graph    *topology.Graph
	Registry *policy.Registry
	Policies *policy.Set
	Attach   *attach.Result

	Gateways []*GatewayPoints // in graph order
	Routes   []*RoutePoints   // in graph order
	// Backends are the merges on backend objects (Services, Backends), by
	// key order: the clusters built for them.
	Backends []*BackendPoints

	gateways  map[*topology.Gateway]*GatewayPoints
	listeners map[*topology.Listener]*ListenerPoints
	rules     map[*topology.Rule]*RulePoints

	// byTarget indexes the verdicts by target (verdictIndex).
	verdictsOnce sync.Once
	byTarget     map[policy.TargetKey][]Verdict

	// targets are the registry's render targets by name, listed once
	// (ruleTarget).
	targetsOnce sync.Once
	targets     map[string]policy.Target

	// routed holds the routed points already combined (routedPoints):
	// render and lint ask for every rule on every listener, and the
	// rules a listener's or a route's policies reach share their chain.
	routedMu sync.Mutex
	routed   map[routedKey]*Point

	// backendKinds are the kinds with a policy on some backend object
	// (BackendStranger), listed once.
	backendKindsOnce sync.Once
	backendKinds     []policy.Kind

	// manyFamilies: policies of more than one family's kinds are in the
	// input (MultiFamily), computed once.
	familiesOnce sync.Once
	manyFamilies bool
	// crossOn are, per listener, the fields of its view another family's
	// kind overrides (listenerCross), computed once each.
	crossMu sync.Mutex
	crossOn map[*topology.Listener][]EffectiveField
	// backendsBy indexes Backends by object.
	backendsBy map[model.Key]*BackendPoints

	cfg policy.Config // the run's, for a backend's merge a controller's verdicts change (BackendOn)

	// backendUsers are the Gateways using each backend, read when a
	// controller ranks backend policies itself (backendRank); rankMixed:
	// some backend is used by Gateways of several controllers, whose
	// clusters are ranked per Gateway (rankedOn).
	backendUsers map[model.Key][]*topology.Gateway
	rankMixed    bool

	// clusterOrder lists, per Gateway whose controller builds a rule's
	// cluster once (policy.Controller.RuleClusterOnce), its listeners in
	// the controller's order (RuleClusterFrom), computed once.
	clusterOnce  sync.Once
	clusterOrder map[*topology.Gateway]clusterOrder
}

// Points are one target's merge results, one per kind that attached there
// (in registry order).
type Points []*Point

// Of returns the point for a kind, or nil.
func (ps Points) Of(k policy.Kind) *Point {
	for _, p := range ps {
		if p.Kind == k {
			return p
		}
	}
	return nil
}

// GatewayPoints are the merges of one Gateway.
type GatewayPoints struct {
	Gateway *topology.Gateway
	// Whole: policies targeting the Gateway without sectionName; they
	// configure every Listener and RouteConfiguration of the Gateway.
	Whole     Points
	Listeners []*ListenerPoints
}

// ListenerPoints are the merges of one listener.
//
// A controller merges per resource it writes: a listener's own policies
// (sectionName on its Gateway or ListenerSet, and its whole ListenerSet)
// configure its own parts (an HTTP listener's virtual hosts), while the
// whole-Gateway policies configure what listeners share (one
// RouteConfiguration per port). A listener of a protocol the controller
// gives a resource of its own (an HTTPS listener's RouteConfiguration:
// policy.Controller.GatewayMergeProtocols) has its policies and the
// whole-Gateway ones merge there as one group (listener first), so a
// listener policy can override a Gateway policy there.
type ListenerPoints struct {
	Listener *topology.Listener
	// Own is the merge for the listener's resource: its virtual hosts
	// (HTTP) or its RouteConfiguration (HTTPS, IncludesGateway).
	Own             Points
	IncludesGateway bool
}

// RoutePoints are the merges of one route's rules.
type RoutePoints struct {
	Route *topology.Route
	Rules []*RulePoints
}

// RulePoints are the merges of one rule: ExtensionRef, sectionName and
// whole-route policies form one group.
type RulePoints struct {
	Route *topology.Route
	Rule  *topology.Rule
	Own   Points
	// Delegating: the rule hands its traffic to child routes and produces
	// no Envoy route (nor a status target) of its own.
	Delegating bool
	// Paths are, for a rule served through delegation, its merge along
	// each parent path that serves it (see RulePath), in parent key
	// order; nil for a rule that is not delegated.
	Paths []*RulePath
	// BackendRefs are the merges of the policies the rule's backendRefs'
	// ExtensionRef filters name (attach.Result.BackendRef), one per
	// backendRef that names any, in index order: each configures that
	// backend's share of the rule.
	BackendRefs []*BackendRefPoints
}

// BackendRefPoints are the merges of one backendRef's policies.
type BackendRefPoints struct {
	// Index is the backendRef's index in the rule.
	Index int
	Own   Points
}

// BackendRef returns the merges of backendRef i's policies, nil when it
// names none.
func (rp *RulePoints) BackendRef(i int) Points {
	if rp == nil {
		return nil
	}
	for _, b := range rp.BackendRefs {
		if b.Index == i {
			return b.Own
		}
	}
	return nil
}

// BackendPoints are the merges of the policies on one backend object.
type BackendPoints struct {
	Key model.Key
	// Own is the merge of the policies on the whole object.
	Own Points
	// Ports are, per Service port name some policy names (sectionName),
	// the merge of that port's policies ahead of the whole Service's.
	Ports map[string]Points
}

// ForPort is the merge in effect on a port's cluster ("": a port without
// a name, or a backend without ports).
func (bp *BackendPoints) ForPort(name string) Points {
	if pts, ok := bp.Ports[name]; ok && name != "" {
		return pts
	}
	return bp.Own
}

// BackendOn are the points of a backend's merge for one of its clusters
// (pts: BackendPoints.ForPort) as gw's controller builds that cluster:
// a point of a kind gw's controller does not read
// (attach.Result.Stranger) is dropped — one family's cluster policy on
// a Service takes no part in the cluster another controller's Gateway
// builds for it, as each controller reads its own family's kinds (and
// the Gateway API's) only — and a policy gw's controller refuses where
// the other controllers using it accept it (attach.Result.RefusedBy) is
// invalid there: the point is merged again with it among the invalid.
// The one decision render (the backend's clusters on each Gateway),
// status and explain (the backend view) read. pts itself when nothing
// changes (always, when the input mixes no controllers) or gw is nil.
func (r *Result) BackendOn(pts Points, gw *topology.Gateway) Points {
	pts = r.OnGateway(pts, gw) // a backend's points hold targetRef and selector policies only
	if gw == nil {
		return pts
	}
	pts = r.rankedOn(pts, gw)
	if r.Attach == nil || len(r.Attach.RefusedBy) == 0 {
		return pts
	}
	ctrl := r.Graph.ControllerOf(gw)
	cloned := false
	for i, pt := range pts {
		if !slices.ContainsFunc(pt.Candidates, func(c *Candidate) bool { return r.refusedBy(c.Policy, ctrl) != nil }) {
			continue
		}
		if !cloned {
			pts, cloned = slices.Clone(pts), true // the backend's own stay as they are
		}
		pts[i] = r.refusedOn(pt, ctrl)
	}
	return pts
}

// RefusedOn is why gw's controller refuses p where the other controllers
// using it accept it (attach.Result.RefusedBy: p is invalid on gw's
// clusters of its backends, BackendOn); nil when it does not.
func (r *Result) RefusedOn(p *policy.Policy, gw *topology.Gateway) []string {
	if gw == nil || r.Attach == nil || len(r.Attach.RefusedBy) == 0 {
		return nil
	}
	var out []string
	for _, d := range r.refusedBy(p, r.Graph.ControllerOf(gw)) {
		out = append(out, d.Message)
	}
	return out
}

func (r *Result) refusedBy(p *policy.Policy, ctrl string) []diag.Diagnostic {
	return r.Attach.RefusedBy[p][ctrl]
}

// refusedOn is pt merged again with the candidates the controller ctrl
// refuses (refusedBy) among its invalid ones.
func (r *Result) refusedOn(pt *Point, ctrl string) *Point {
	var group []*Candidate
	for _, c := range slices.Concat(pt.Candidates, pt.Invalid, pt.Rejected) {
		if ds := r.refusedBy(c.Policy, ctrl); ds != nil && c.Rejected == nil {
			refused := *c
			refused.Rejected = &policy.Rejection{Verdict: policy.VerdictInvalid, Reason: "Invalid", Message: ds[0].Message}
			c = &refused
		}
		group = append(group, c)
	}
	if out := r.merge(group, r.cfg).Of(pt.Kind); out != nil {
		return out
	}
	return pt
}

// BackendStranger reports whether some policy on a backend object is of
// a kind gw's controller does not read (attach.Result.Stranger): that
// Gateway's clusters of the backend differ from those of a Gateway that
// reads every such kind (BackendOn), so render does not share them. False
// at once when the input mixes no controllers.
func (r *Result) BackendStranger(gw *topology.Gateway) bool {
	if gw == nil || r.Attach == nil || !r.Attach.Mixed() {
		return false
	}
	r.backendKindsOnce.Do(func() {
		seen := map[policy.Kind]bool{}
		for _, bp := range r.Backends {
			for _, pts := range append([]Points{bp.Own}, slices.Collect(maps.Values(bp.Ports))...) {
				for _, pt := range pts {
					if !seen[pt.Kind] {
						seen[pt.Kind] = true
						r.backendKinds = append(r.backendKinds, pt.Kind)
					}
				}
			}
		}
	})
	return slices.ContainsFunc(r.backendKinds, func(k policy.Kind) bool { return r.Attach.Stranger(k, gw) })
}

// NotOn are the Gateways among gws (those serving a route, ServingGateways,
// or routing to a backend, topology.Graph.BackendGateways) where the
// policies of pt take no part (LeftOutOn: the Gateway's controller does
// not read pt's kind), in gws order: what render decided, for the views
// that show a route's or a backend's merge without choosing a Gateway
// (explain's policy view, graph, status's scope) to say where it differs
// per Gateway. Nil at once when the input mixes no controllers.
func (r *Result) NotOn(pt *Point, gws []*topology.Gateway) []*topology.Gateway {
	if pt == nil || r.Attach == nil || !r.Attach.Mixed() {
		return nil
	}
	var out []*topology.Gateway
	for _, gw := range gws {
		if r.LeftOutOn(pt, gw) {
			out = append(out, gw)
		}
	}
	return out
}

// ServingGateways are the Gateways a route is served on: its parentRefs'
// with a listener that takes it, in parentRef order, each once.
func ServingGateways(rt *topology.Route) []*topology.Gateway {
	var out []*topology.Gateway
	for _, p := range rt.Parents {
		if p.Gateway != nil && len(p.Listeners) > 0 && !slices.Contains(out, p.Gateway) {
			out = append(out, p.Gateway)
		}
	}
	return out
}

// Gateway returns a Gateway's points.
func (r *Result) Gateway(g *topology.Gateway) *GatewayPoints { return r.gateways[g] }

// Listener returns a listener's points.
func (r *Result) Listener(l *topology.Listener) *ListenerPoints { return r.listeners[l] }

// Rule returns a rule's points.
func (r *Result) Rule(rule *topology.Rule) *RulePoints { return r.rules[rule] }

// Compute builds the IR.
func Compute(g *topology.Graph, reg *policy.Registry, set *policy.Set, att *attach.Result, cfg policy.Config) *Result {
	r := &Result{Graph: g, Registry: reg, Policies: set, Attach: att, cfg: cfg,
		gateways: map[*topology.Gateway]*GatewayPoints{}, listeners: map[*topology.Listener]*ListenerPoints{}, rules: map[*topology.Rule]*RulePoints{}}
	for _, gw := range g.Gateways {
		gp := &GatewayPoints{Gateway: gw, Whole: r.merge(r.leveled(att.Gateway[gw], LevelGateway, policy.TargetKey{Gateway: gw}), cfg)}
		controller, _ := g.Controller(gw, reg.DefaultController().Name)
		withGateway := reg.GatewayMergeProtocols(controller)
		for _, l := range gw.Listeners {
			lp := &ListenerPoints{Listener: l, IncludesGateway: slices.Contains(withGateway, string(l.Protocol))}
			on := policy.TargetKey{Listener: l}
			group := r.leveled(att.Listener[l], LevelListener, on)
			if l.Set != nil {
				group = append(group, r.leveled(att.ListenerSet[l.Set], LevelListenerSet, policy.TargetKey{Set: l.Set}, on)...)
			}
			if lp.IncludesGateway {
				group = append(group, r.leveled(att.Gateway[gw], LevelGateway, policy.TargetKey{Gateway: gw}, on)...)
			} else {
				group = append(group, r.invalidOn(att.Gateway[gw], on)...)
			}
			lp.Own = r.merge(group, cfg)
			gp.Listeners = append(gp.Listeners, lp)
			r.listeners[l] = lp
		}
		r.Gateways = append(r.Gateways, gp)
		r.gateways[gw] = gp
	}
	// A route's merge reads the attachments and its delegating parents'
	// own merges, never another route's result: routes merge in
	// parallel (the stage is on the run's critical path), then are
	// indexed in graph order.
	if len(g.Routes) > 0 {
		r.Routes = make([]*RoutePoints, len(g.Routes))
	}
	parallel.Each(len(g.Routes), func(i int) { r.Routes[i] = r.routePoints(g.Routes[i], att, cfg) })
	for _, rp := range r.Routes {
		for _, rrp := range rp.Rules {
			r.rules[rrp.Rule] = rrp
		}
	}
	r.computePaths(cfg)
	for _, k := range att.BackendKeys {
		r.Backends = append(r.Backends, r.backendPoints(k, att.Backend[k], cfg))
	}
	if len(r.Backends) > 0 {
		r.backendsBy = make(map[model.Key]*BackendPoints, len(r.Backends))
		for _, bp := range r.Backends {
			r.backendsBy[bp.Key] = bp
		}
	}
	return r
}

// routePoints merges each rule of a route: its own group, what its
// delegating parents pass down, and its backendRefs' policies.
func (r *Result) routePoints(rt *topology.Route, att *attach.Result, cfg policy.Config) *RoutePoints {
	rp := &RoutePoints{Route: rt}
	for _, rule := range rt.Rules {
		rrp := &RulePoints{Route: rt, Rule: rule, Own: r.ruleOwn(rt, rule, cfg), Delegating: rule.IsDelegating()}
		rrp.Own = r.inherit(rt, rrp.Own, cfg, map[*topology.Route]bool{rt: true})
		for i := range rule.Backends {
			if atts := att.BackendRef[attach.BackendRefKey{Rule: rule, Index: i}]; len(atts) > 0 {
				own := r.merge(r.leveled(atts, LevelBackendRef, policy.TargetKey{Rule: rule}), cfg)
				rrp.BackendRefs = append(rrp.BackendRefs, &BackendRefPoints{Index: i, Own: own})
			}
		}
		rp.Rules = append(rp.Rules, rrp)
	}
	return rp
}

// backendPoints merges the policies on one backend object: those on the
// whole object, and per port a sectionName names, that port's own ahead
// of the whole object's (attachments are sorted sectionName first), or
// behind them for a kind whose controller lists them so (portGroup).
func (r *Result) backendPoints(k model.Key, atts []*attach.Attachment, cfg policy.Config) *BackendPoints {
	var whole []*attach.Attachment
	ports := map[string][]*attach.Attachment{}
	for _, a := range atts {
		if a.Section == "" {
			whole = append(whole, a)
		} else {
			ports[a.Section] = append(ports[a.Section], a)
		}
	}
	rank := r.backendRank(k)
	// A controller that decides a kind's verdicts on backends itself
	// (policy.Family.ForeignStatuses) may have rejected a policy on the
	// whole object or on one port: leveled reads those exact targets.
	bp := &BackendPoints{Key: k, Own: r.merge(ranked(r.leveled(whole, LevelBackend, policy.TargetKey{Backend: k}), rank), cfg)}
	r.conflicts(bp.Own, policy.TargetKey{Backend: k})
	for name, own := range ports {
		if bp.Ports == nil {
			bp.Ports = map[string]Points{}
		}
		bp.Ports[name] = r.merge(ranked(r.leveled(portGroup(own, whole), LevelBackend, policy.TargetKey{Backend: k, Port: name}), rank), cfg)
		r.conflicts(bp.Ports[name], policy.TargetKey{Backend: k, Port: name})
	}
	return bp
}

// backendRank is, per kind, how the controller of the Gateways whose
// routes use backend k ranks that kind's policies there
// (policy.Controller.BackendRank; a backend no Gateway uses: the
// fallback controller's); nil for a kind when one of those controllers
// does not rank it itself, and a nil function when no registered
// controller ranks any kind. Where the Gateways using k are of several
// controllers, the clusters built for each are ranked again as its
// controller does (BackendOn: rankedOn).
func (r *Result) backendRank(k model.Key) func(policy.Kind) func(*policy.Policy, string) policy.BackendRankKey {
	if r.Registry == nil || !r.Registry.BackendRanks() {
		return nil
	}
	if r.backendUsers == nil {
		r.backendUsers = r.Graph.BackendGateways()
	}
	var ctrls []string
	for _, gw := range r.backendUsers[k] {
		if c := r.Graph.ControllerOf(gw); !slices.Contains(ctrls, c) {
			ctrls = append(ctrls, c)
		}
	}
	if len(ctrls) == 0 {
		ctrls = []string{r.Graph.ControllerOf(nil)}
	}
	if len(ctrls) > 1 {
		r.rankMixed = true
	}
	return func(kind policy.Kind) func(*policy.Policy, string) policy.BackendRankKey {
		var f func(*policy.Policy, string) policy.BackendRankKey
		for _, c := range ctrls {
			if f = r.Registry.BackendRank(c, kind); f == nil {
				return nil
			}
		}
		return f
	}
}

// ranked orders, for each kind its controller ranks itself (rank), that
// kind's candidates in group by the controller's keys, in the places
// they held (merge reads each kind's candidates in group order), and
// marks each with its key (Candidate.Rank). group itself when rank is nil.
func ranked(group []*Candidate, rank func(policy.Kind) func(*policy.Policy, string) policy.BackendRankKey) []*Candidate {
	if rank == nil {
		return group
	}
	var kinds []policy.Kind
	for _, c := range group {
		if !slices.Contains(kinds, c.Policy.Kind) {
			kinds = append(kinds, c.Policy.Kind)
		}
	}
	for _, k := range kinds {
		if f := rank(k); f != nil {
			rankKind(group, k, f)
		}
	}
	return group
}

// rankKind orders k's candidates in group by f's keys (stable), in the
// places they held, each marked with its key; f nil: by their attachment
// (a port's own first), then policy.Precedes, unmarked.
func rankKind(group []*Candidate, k policy.Kind, f func(*policy.Policy, string) policy.BackendRankKey) {
	var at []int
	var cs []*Candidate
	for i, c := range group {
		if c.Policy.Kind == k {
			if f != nil {
				key := f(c.Policy, c.Section)
				c.Rank = &key
			} else {
				c.Rank = nil
			}
			at, cs = append(at, i), append(cs, c)
		}
	}
	if f != nil {
		slices.SortStableFunc(cs, func(a, b *Candidate) int { return a.Rank.Compare(*b.Rank) })
	} else {
		slices.SortStableFunc(cs, func(a, b *Candidate) int {
			if d := viaOrder(a) - viaOrder(b); d != 0 {
				return d
			}
			return policy.ComparePrecedence(a.Policy, b.Policy)
		})
	}
	for j, i := range at {
		group[i] = cs[j]
	}
}

// viaOrder is a backend candidate's place by its attachment (portGroup):
// a port's own first, unless the kind lists the whole object's first.
func viaOrder(c *Candidate) int {
	whole := c.Via != attach.ViaSection
	if c.Policy.Kind.Spec().WholeTargetFirst {
		whole = !whole
	}
	if whole {
		return 1
	}
	return 0
}

// rankedOn are a backend's points as gw's controller ranks each kind's
// policies (rankKind): where the Gateways using the backend are of
// several controllers, a point ranked for the others is merged again
// for gw. pts itself when nothing changes (always, but for such a
// backend).
func (r *Result) rankedOn(pts Points, gw *topology.Gateway) Points {
	if !r.rankMixed {
		return pts
	}
	ctrl := r.Graph.ControllerOf(gw)
	cloned := false
	for i, pt := range pts {
		f := r.Registry.BackendRank(ctrl, pt.Kind)
		all := slices.Concat(pt.Candidates, pt.Invalid, pt.Rejected)
		if len(all) == 0 || (f != nil) == slices.ContainsFunc(all, func(c *Candidate) bool { return c.Rank != nil }) {
			continue
		}
		if !cloned {
			pts, cloned = slices.Clone(pts), true // the backend's own stay as they are
		}
		group := make([]*Candidate, len(all))
		for j, c := range all {
			cp := *c
			group[j] = &cp
		}
		rankKind(group, pt.Kind, f)
		if out := r.merge(group, r.cfg).Of(pt.Kind); out != nil {
			pts[i] = out
		}
	}
	return pts
}

// RankMixed reports whether some backend is used by Gateways of several
// controllers while one of them ranks backend policies itself: its
// clusters may differ per Gateway (BackendOn), which the views that show
// a backend without choosing a Gateway name.
func (r *Result) RankMixed() bool { return r.rankMixed }

// WinnerOn is, for a backend point of a kind one policy wins
// (KindSpec.OneWins) that gw's controller ranks otherwise than the
// backend's merge did (rankedOn: the backend is used by Gateways of
// several controllers), the policy that wins it in the clusters gw
// builds; false when gw's clusters have pt's own winner (the verdict
// merge recorded, conflicts).
func (r *Result) WinnerOn(pt *Point, gw *topology.Gateway) (*policy.Policy, bool) {
	if !r.rankMixed || gw == nil || pt == nil {
		return nil, false
	}
	on := r.rankedOn(Points{pt}, gw)
	if on[0] == pt || len(on[0].Fields) == 0 {
		return nil, false
	}
	return on[0].Fields[0].Owner.Policy, true
}

// portGroup is the precedence order of a backend port's policies: the
// port's own (sectionName) ahead of the whole object's, but for a kind
// whose controller lists the whole object's first (KindSpec.
// WholeTargetFirst) those come first. merge reads each kind's candidates
// in group order, so the order across kinds does not matter.
func portGroup(own, whole []*attach.Attachment) []*attach.Attachment {
	out := make([]*attach.Attachment, 0, len(own)+len(whole))
	for _, a := range whole {
		if a.Policy.Kind.Spec().WholeTargetFirst {
			out = append(out, a)
		}
	}
	out = append(out, own...)
	for _, a := range whole {
		if !a.Policy.Kind.Spec().WholeTargetFirst {
			out = append(out, a)
		}
	}
	return out
}

// conflicts records, for the kinds where one policy wins a backend
// target whole (KindSpec.OneWins), the verdict on each other candidate
// there whose fields all lose: Conflicted, by the policy that has them,
// and why it comes first (a sectionName's port, its age, or the input's
// order). The verdict goes where attach keeps the controllers' verdicts
// (attach.Result.Rejected), read through Verdicts by every view.
func (r *Result) conflicts(pts Points, on policy.TargetKey) {
	for _, pt := range pts {
		if !pt.Kind.Spec().OneWins || len(pt.Candidates) < 2 || len(pt.Fields) == 0 {
			continue
		}
		in := map[*policy.Policy]bool{}
		for _, f := range pt.Fields {
			for _, c := range f.Contributors {
				in[c.Policy] = true
			}
		}
		by := pt.Fields[0].Owner.Policy
		for _, c := range pt.Candidates {
			if in[c.Policy] || c.IsBuiltIn() {
				continue
			}
			why := policy.Because(by, c.Policy)
			if w := pt.Fields[0].Owner; w.Rank != nil && c.Rank != nil {
				why = Decide(w, c).Detail // the controller's own ranking decided
			} else if on.Port != "" && !slices.ContainsFunc(pt.Candidates, func(o *Candidate) bool { return o.Policy == by && o.Via == c.Via }) {
				why = "it targets port " + on.Port + " by sectionName, which is more specific"
			}
			r.Attach.Reject(c.Policy, on, &policy.Rejection{Verdict: policy.VerdictConflicted, Reason: "Conflicted",
				Message: "Policy conflicts with higher priority policy", By: by, Why: why})
		}
	}
}

// leveled turns attachments into candidates of one level, each carrying
// the controller's rejection of its policy on the first of targets that
// has one (the attachment's own target, then the one merged for).
func (r *Result) leveled(atts []*attach.Attachment, lvl Level, targets ...policy.TargetKey) []*Candidate {
	out := make([]*Candidate, 0, len(atts))
	for _, a := range atts {
		out = append(out, &Candidate{Policy: a.Policy, Via: a.Via, Level: lvl, Path: a.Path, Section: a.Section, Rejected: r.rejection(a.Policy, targets...)})
	}
	return out
}

// invalidOn are the Gateway's policies (atts) its controller finds
// invalid on one listener only (policy.VerdictInvalid at on): invalid
// there, so the listener's own point holds them — its routes answer as
// those of an invalid policy — while the Gateway's point keeps them for
// its other listeners.
func (r *Result) invalidOn(atts []*attach.Attachment, on policy.TargetKey) []*Candidate {
	var out []*Candidate
	for _, a := range atts {
		if rj := r.rejection(a.Policy, on); rj != nil && rj.Verdict == policy.VerdictInvalid {
			out = append(out, &Candidate{Policy: a.Policy, Via: a.Via, Level: LevelGateway, Path: a.Path, Rejected: rj})
		}
	}
	return out
}

// rejection is the first rejection of p on targets, nil when it applies.
func (r *Result) rejection(p *policy.Policy, targets ...policy.TargetKey) *policy.Rejection {
	if r.Attach == nil || len(r.Attach.Rejected[p]) == 0 {
		return nil
	}
	for _, t := range targets {
		if rj := r.Attach.Rejection(p, t); rj != nil {
			return rj
		}
	}
	return nil
}

// merge merges one group of candidates (already in group order), per kind.
// A policy reaching the group twice counts once, at its first place. A
// candidate its controller rejected there (Candidate.Rejected) takes no
// part: the point lists it under Rejected.
func (r *Result) merge(group []*Candidate, cfg policy.Config) Points {
	var out Points
	for _, k := range r.Registry.Kinds() {
		var cands, rejected, invalid []*Candidate
		seen := map[*policy.Policy]bool{}
		for _, c := range group {
			if c.Policy.Kind != k || seen[c.Policy] {
				continue
			}
			seen[c.Policy] = true
			switch {
			case c.Rejected != nil && c.Rejected.Verdict == policy.VerdictInvalid:
				invalid = append(invalid, c) // invalid here only: as an invalid policy, here
			case c.Rejected != nil:
				rejected = append(rejected, c)
			default:
				cands = append(cands, c)
			}
		}
		if len(cands) == 0 && len(rejected) == 0 && len(invalid) == 0 {
			continue
		}
		pt := mergeLevel(r.Registry, k, cands, cfg)
		pt.Invalid = append(pt.Invalid, invalid...)
		pt.Rejected = rejected
		out = append(out, pt)
	}
	return out
}

// rulePoints merges a rule's group: its ExtensionRef and sectionName
// policies (rule level), then whole-route policies (route level).
func (r *Result) rulePoints(rt *topology.Route, rule *topology.Rule, atts []*attach.Attachment, cfg policy.Config) Points {
	var group []*Candidate
	for _, a := range atts {
		lvl, on := LevelRule, policy.TargetKey{Rule: rule}
		if a.Via == attach.ViaTargetRef {
			lvl, on = LevelRoute, policy.TargetKey{Route: rt}
		}
		group = append(group, &Candidate{Policy: a.Policy, Via: a.Via, Level: lvl, Path: a.Path, Rejected: r.rejection(a.Policy, on)})
	}
	return r.merge(group, cfg)
}

// ruleOwn merges a rule's own group (its policies, then its route's) and
// adds, per kind, the values the rule sets itself in its Gateway API spec
// as a built-in candidate ahead of every policy.
func (r *Result) ruleOwn(rt *topology.Route, rule *topology.Rule, cfg policy.Config) Points {
	atts := append(append([]*attach.Attachment(nil), r.Attach.Rule[rule]...), r.Attach.Route[rt]...)
	pts := r.rulePoints(rt, rule, atts, cfg)
	owns := r.ruleFields(rt, rule, cfg)
	var out Points
	for i, k := range r.Registry.Kinds() {
		pt := pts.Of(k)
		if _, ok := k.(policy.RuleFielder); ok {
			if own := owns[i]; len(own) > 0 {
				if pt == nil {
					pt = &Point{Kind: k}
				}
				c := &Candidate{Policy: policy.NewBuiltIn(k, rt.Route, rule.Rule, own), Level: LevelRule, Path: rule.Path}
				for _, f := range own {
					pt.Rule = append(pt.Rule, &Field{Key: f.Key, Strategy: ownStrategy(k, f.Key), Owner: c, Contributors: []*Candidate{c}, Values: []any{f.Value}})
				}
				pt.layer()
			}
		}
		if pt != nil {
			out = append(out, pt)
		}
	}
	return out
}

// ownStrategy is the strategy a rule's own value of a field is shown
// with: the field's default in its kind (AugmentedShallow when it has
// none).
func ownStrategy(k policy.Kind, key string) policy.Strategy {
	for _, fs := range k.Spec().Fields {
		if fs.Key == key && fs.Default != "" {
			return fs.Default
		}
	}
	return policy.AugmentedShallow
}

// ruleFields are the rule's own Gateway API values of each kind's fields
// (RuleFielder), by the kind's index in the registry. One value stands for
// one kind's field: on a route one controller serves, its family's kinds
// take the values they model (that controller translates them), and
// another family's kind only the fields none of them models (the Gateway
// API translation gwpol shares), read as that controller's render target
// reads them (TargetRuleFielder). A route no registered controller serves
// alone keeps every kind's, in the shared reading.
func (r *Result) ruleFields(rt *topology.Route, rule *topology.Rule, cfg policy.Config) [][]policy.RuleField {
	kinds := r.Registry.Kinds()
	out := make([][]policy.RuleField, len(kinds))
	n := 0
	var target *policy.Target
	targetDone := false
	for i, k := range kinds {
		if trf, ok := k.(policy.TargetRuleFielder); ok {
			if !targetDone {
				target, targetDone = r.ruleTarget(rt), true
			}
			if out[i] = trf.RuleFieldsOn(rt.Route, rule.Rule, cfg, target); len(out[i]) > 0 {
				n++
			}
		} else if rf, ok := k.(policy.RuleFielder); ok {
			if out[i] = rf.RuleFields(rt.Route, rule.Rule, cfg); len(out[i]) > 0 {
				n++
			}
		}
	}
	if n < 2 {
		return out
	}
	ctrl, ok := r.servedBy(rt)
	if !ok {
		return out
	}
	claimed := map[string]bool{}
	for i, k := range kinds {
		if ctrl.Owns(k) {
			for _, f := range out[i] {
				claimed[f.Key] = true
			}
		}
	}
	for i, k := range kinds {
		if len(claimed) > 0 && len(out[i]) > 0 && !ctrl.Owns(k) {
			out[i] = slices.DeleteFunc(slices.Clone(out[i]), func(f policy.RuleField) bool { return claimed[f.Key] })
		}
	}
	return out
}

// ruleTarget is the render target of the one controller serving every
// Gateway of the route (servedBy); nil when there is none, or more than
// one, or it names no registered target.
func (r *Result) ruleTarget(rt *topology.Route) *policy.Target {
	ctrl, ok := r.servedBy(rt)
	if !ok || ctrl.RenderTarget == "" {
		return nil
	}
	r.targetsOnce.Do(func() { r.targets = r.Registry.Targets() })
	t, ok := r.targets[strings.ToLower(ctrl.RenderTarget)]
	if !ok {
		return nil
	}
	return &t
}

// servedBy is the registered controller of every Gateway the route is a
// child of; false when there is none, or more than one.
func (r *Result) servedBy(rt *topology.Route) (policy.Controller, bool) {
	name := ""
	for _, p := range rt.Parents {
		if p.Gateway == nil {
			continue
		}
		c, _ := r.Graph.Controller(p.Gateway, r.Registry.DefaultController().Name)
		if name != "" && c != name {
			return policy.Controller{}, false
		}
		name = c
	}
	if name == "" {
		return policy.Controller{}, false
	}
	return r.Registry.Controller(name)
}

// Target describes a merge point for messages.
type Target struct {
	Desc string // e.g. "HTTPRoute shop/orders rule #0"
	// Route and Rule are set for rule points.
	Route *topology.Route
	Rule  *topology.Rule
	// Path is the parent path of a delegated rule's point (nil otherwise).
	Path *RulePath
}

// viaDesc names a parent path for messages: " delegated by NS/NAME rule R
// (by NS/NAME rule R…)"; "" for a path without parents.
func (r *Result) viaDesc(via []*topology.Rule) string {
	var parts []string
	for _, rule := range via {
		if rp := r.rules[rule]; rp != nil {
			parts = append(parts, rp.Route.Meta.Namespace+"/"+rp.Route.Meta.Name+" rule "+rule.Section())
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " delegated by " + strings.Join(parts, " via ")
}

// EachPoint visits every merge point with a description of its target, in
// a stable order: Gateways, their listeners, then routes and rules.
func (r *Result) EachPoint(f func(Target, Points)) {
	for _, gp := range r.Gateways {
		gw := gp.Gateway
		f(Target{Desc: "Gateway " + gw.Namespace + "/" + gw.Name}, gp.Whole)
		for _, lp := range gp.Listeners {
			f(Target{Desc: "listener " + lp.Listener.ID()}, lp.Own)
		}
	}
	for _, rp := range r.Routes {
		for _, rule := range rp.Rules {
			if rule.Delegating {
				continue
			}
			desc := rp.Route.Kind + " " + rp.Route.Meta.Namespace + "/" + rp.Route.Meta.Name + " rule " + rule.Rule.Section()
			if len(rule.Paths) == 0 {
				f(Target{Desc: desc, Route: rp.Route, Rule: rule.Rule}, rule.Own)
				continue
			}
			for _, path := range rule.Paths { // each parent path's copy
				d := desc
				if len(rule.Paths) > 1 {
					d += r.viaDesc(path.Via) // named when there is a choice
				}
				f(Target{Desc: d, Route: rp.Route, Rule: rule.Rule, Path: path}, path.Own)
			}
		}
	}
	for _, bp := range r.Backends {
		f(Target{Desc: bp.Key.Kind + " " + bp.Key.Namespace + "/" + bp.Key.Name}, bp.Own)
	}
}
