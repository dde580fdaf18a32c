package merge

import (
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// EffectiveField is one field in effect on a target once the levels are
// combined the way Envoy combines them: the most specific configuration of
// a filter wins.
type EffectiveField struct {
	Kind  policy.Kind
	Key   string
	Field *Field // the result at the level that decides
	// Inherited: the field comes from a less specific level than the
	// target asked about (listener or Gateway for a rule).
	Inherited bool
	// Shadowed are results for the same field at less specific levels that
	// this one hides.
	Shadowed []*Field
	// ShadowedBy is the level whose policy hides Shadowed when that is not
	// the owner's: for a kind that overrides whole, the most specific
	// policy in effect hides the others whole, including fields another
	// policy it merged with owns (a rule's policy merged with its
	// Gateway's hides its route's). "" means the owner's level.
	ShadowedBy Level
	// Replaced are the kind's fields for every port that this field, for
	// the listener's port, replaces there (policy.PortScoper).
	Replaced []*Field
	// Beside are results for the same field at less specific levels that
	// stay in effect: they configure other instances (policy.Instancer),
	// or they fill parts the more specific levels leave unset
	// (FieldSpec.FillsUnset).
	Beside []*Field
	// Whole is the merged policy's ID where the field's kind overrides
	// whole and policies merged (Point.Whole); empty otherwise.
	Whole string
	// OverriddenBy, when set, is the field of a kind of another family
	// that writes one of this field's Envoy paths here and wins it
	// (PathOverride): this field takes no part in the target's
	// configuration.
	OverriddenBy *PathOverride
	// ClusterFrom, when set, says that the cluster the route sends to is
	// the one the rule's route on another listener shaped (RuleClusterFrom):
	// this field's settings on that cluster are ClusterFrom.Field's, not
	// its own; its other parts (route settings, per-filter configs) are
	// its own as ever.
	ClusterFrom *ClusterShape
	// ClusterOnly: the field is not the route's own but the first
	// listener's (ClusterFrom.Field): it is in effect on the rule's
	// cluster only, none of its other parts on this route.
	ClusterOnly bool
	// OnClusters are the backends of the rule whose cluster takes one of
	// this field's settings (a cluster.… path) from a policy on the
	// backend, of another family's kind, instead (ClusterOverride): the
	// field stays in effect on the route and on the rule's other
	// backends' clusters.
	OnClusters []ClusterOverride
}

// Level is the level the deciding owner attached at.
func (e EffectiveField) Level() Level { return e.Field.Owner.Level }

// levels lists a target's points from most to least specific: the rule's
// merge along path (its Own without one), its listener's and Gateway's.
func (r *Result) levels(rule *topology.Rule, path *RulePath, l *topology.Listener) []Points {
	var out []Points
	if rule != nil {
		var gw *topology.Gateway
		if l != nil {
			gw = l.Gateway
		}
		if path != nil {
			out = append(out, r.OnGateway(path.Own, gw))
		} else if rp := r.rules[rule]; rp != nil {
			out = append(out, r.OnGateway(rp.Own, gw))
		}
	}
	if l != nil {
		lp := r.listeners[l]
		if lp != nil {
			out = append(out, lp.Own)
		}
		if gp := r.gateways[l.Gateway]; gp != nil && (lp == nil || !lp.IncludesGateway) {
			out = append(out, gp.Whole)
		}
	}
	return out
}

// OnGateway are the points of a route's or rule's merge (pts) as the
// route is served on gw: a point LeftOutOn gw is dropped, or, when it
// holds the rule's own Gateway API values (Point.Rule, which every
// controller translates), replaced by a point of those values alone —
// the policies' fields take no part there. pts itself (the same slice)
// when nothing changes (always, when the input mixes no controllers) or
// gw is nil; a new slice otherwise.
func (r *Result) OnGateway(pts Points, gw *topology.Gateway) Points {
	if gw == nil || r.Attach == nil || !r.Attach.Mixed() {
		return pts
	}
	for i, pt := range pts {
		if !r.LeftOutOn(pt, gw) {
			continue
		}
		out := slices.Clone(pts[:i])
		for _, pt := range pts[i:] {
			switch {
			case !r.LeftOutOn(pt, gw):
				out = append(out, pt)
			case len(pt.Rule) > 0:
				out = append(out, pt.ownOnly())
			}
		}
		return out
	}
	return pts
}

// ownOnly is a point of p's rule's own values alone (p.Rule), with their
// built-in candidates: what is left of p where its policies take no part.
func (p *Point) ownOnly() *Point {
	own := &Point{Kind: p.Kind, Rule: p.Rule}
	for _, f := range p.Rule {
		if !slices.Contains(own.Candidates, f.Owner) {
			own.Candidates = append(own.Candidates, f.Owner)
		}
	}
	own.layer()
	return own
}

// LeftOutOn reports whether the policies of a point of a route's or
// rule's merge take no part where the route is served on gw. A policy
// that reached the route by a targetRef (or a selector) takes none when
// its kind is one gw's controller does not take (attach.Result.Stranger):
// a route served by Gateways of several controllers takes each family's
// policies on its own controller's Gateways only. One a rule's
// ExtensionRef filter names takes none when gw's controller does not
// resolve its kind in a rule's filters (attach.Result.RefusedOn; the rule
// is broken there: attach.Result.BrokenOn). Only when every policy in the
// point is left out: a point mixing both is kept whole. The rule's own
// Gateway API values (built-in candidates, Point.Rule) are no policy's:
// OnGateway keeps them. Render, explain (OnGateway) and status (against
// which Gateways it reports them) read this.
func (r *Result) LeftOutOn(pt *Point, gw *topology.Gateway) bool {
	if pt == nil || gw == nil || r.Attach == nil {
		return false
	}
	stranger, refused := r.Attach.Stranger(pt.Kind, gw), r.Attach.RefusedOn(pt.Kind, gw)
	if !stranger && !refused {
		return false
	}
	n := 0
	for _, cs := range [][]*Candidate{pt.Candidates, pt.Invalid, pt.Rejected} {
		for _, c := range cs {
			switch {
			case c.IsBuiltIn():
			case c.Via == attach.ViaExtensionRef && !refused, c.Via != attach.ViaExtensionRef && !stranger:
				return false
			default:
				n++
			}
		}
	}
	return n > 0
}

// Effective combines the levels for a rule served on a listener (l may be
// nil for a route attached nowhere). With rule nil it is the listener's own
// effective view.
func (r *Result) Effective(rule *topology.Rule, l *topology.Listener) []EffectiveField {
	return r.EffectiveOn(rule, nil, l)
}

// EffectiveOn is Effective for a delegated rule as served along one parent
// path (nil: its Own merge).
func (r *Result) EffectiveOn(rule *topology.Rule, path *RulePath, l *topology.Listener) []EffectiveField {
	var routed Points
	if rule != nil {
		routed = r.RoutedOn(rule, path, l)
	}
	return r.EffectiveFrom(rule, path, l, routed)
}

// EffectiveFrom is EffectiveOn given routed, RoutedOn(rule, path, l)
// (unused when rule is nil): a view that reads both computes the routed
// points, the costliest part of the view, once.
func (r *Result) EffectiveFrom(rule *topology.Rule, path *RulePath, l *topology.Listener, routed Points) []EffectiveField {
	lv := r.levels(rule, path, l)
	// At most one entry per field set at some level (a kind that
	// overrides whole may add its merged fields): sized once, as this
	// runs for every rule on every listener.
	n := 0
	for _, pts := range lv {
		for _, p := range pts {
			n += len(p.fields())
		}
	}
	out := make([]EffectiveField, 0, n)
	for _, k := range r.Registry.Kinds() {
		if wo, ok := k.(policy.WholeOverrider); ok && wo.OverridesWhole() && rule != nil {
			out = append(out, effectiveWhole(k, routed.Of(k), lv)...)
			continue
		}
		if !anyFields(lv, k) {
			continue // most kinds set nothing on a given rule: nothing to combine
		}
		start := len(out)
		for fs := range k.Spec().EachFieldFor(fieldKeys(lv, k)...) {
			var e *EffectiveField
			var cur any // the value in effect so far, for FillsUnset fields
			for i, pts := range lv {
				f := pts.Of(k).Field(fs.Key)
				if f == nil || r.rejectedOn(f.Owner, l) != nil {
					continue // a less specific policy its controller does not apply on l
				}
				if fs.NotOnGRPCRoutes && rule != nil && rule.GRPC != nil && f.Owner.Level.OnGateway() {
					continue // a Gateway's or listener's value does not reach a GRPCRoute's rule
				}
				if e == nil {
					e = &EffectiveField{Kind: k, Key: fs.Key, Field: f, Inherited: i > 0 || (rule == nil && f.Owner.Level == LevelGateway)}
					cur = f.Values[0]
					continue
				}
				if distinctInstances(k, fs.Key, e.Field, f) {
					e.Beside = append(e.Beside, f)
					continue
				}
				if rf, ok := k.(policy.RuleFielder); ok && fs.FillsUnset {
					if eff, remains := rf.Overlay(fs.Key, cur, f.Values[0]); remains {
						e.Beside, cur = append(e.Beside, f), eff
						continue
					}
				}
				e.Shadowed = append(e.Shadowed, f)
			}
			if e != nil {
				out = append(out, *e)
			}
		}
		if ps, ok := k.(policy.PortScoper); ok && l != nil {
			out = append(out[:start], onPort(ps, out[start:], int32(l.Port))...)
		}
	}
	if r.MultiFamily() {
		switch {
		case rule != nil:
			// the listener's verdict on what the rule inherits from
			// there, then the route's own paths (PathOverride)
			r.fromListener(out, l)
			crossFamily(r.Registry, out, onRoute)
			if l != nil {
				r.fromBackends(out, rule, l.Gateway)
			}
		case l != nil:
			// the paths of the resources built for the listener, which
			// its routes share
			crossFamily(r.Registry, out, onListener(l))
		}
	}
	if first := r.RuleClusterFrom(rule, path, l); first != nil {
		out = clusterFrom(out, first, r.EffectiveOn(rule, path, first))
	}
	return out
}

// MayShadowOn reports whether EffectiveOn(rule, path, l) can hold a field
// that is not Inherited and has Shadowed results: false only when no kind
// that overrides whole has a policy at any level and no field set at the
// most specific level is also set at a less specific one. It is the
// cheap test a view that only wants shadowed fields (lint's) makes first,
// as most rules hide nothing.
func (r *Result) MayShadowOn(rule *topology.Rule, path *RulePath, l *topology.Listener) bool {
	lv := r.levels(rule, path, l)
	if len(lv) == 0 {
		return false
	}
	for _, k := range r.Registry.Kinds() {
		if wo, ok := k.(policy.WholeOverrider); ok && wo.OverridesWhole() && rule != nil {
			for _, pts := range lv {
				if pt := pts.Of(k); pt != nil && (len(pt.Candidates) > 0 || len(pt.Invalid) > 0 || len(pt.Fields) > 0) {
					return true
				}
			}
			continue
		}
		if ownFieldSetBelow(lv, k) {
			return true
		}
	}
	return false
}

// ownFieldSetBelow reports whether a field of kind k set at the most
// specific level is also set at a less specific one: what a kind that
// does not override whole needs for a view's own entry to hide another.
func ownFieldSetBelow(lv []Points, k policy.Kind) bool {
	for _, f := range lv[0].Of(k).fields() {
		for _, pts := range lv[1:] {
			if pts.Of(k).Field(f.Key) != nil {
				return true
			}
		}
	}
	return false
}

// MayShadowFrom is MayShadowOn once the rule's routed points are known
// (routed, RoutedOn(rule, path, l)): for a kind that overrides whole it
// answers from the point in effect instead of from any policy at any
// level. effectiveWhole marks a field Inherited unless its owner is the
// route's or the rule's, so a view can hold an own entry that hides
// another only where the routed point has a field owned there; the rules
// a Gateway's or a listener's policy reaches alone (most, with such a
// kind) have none, and their view need not be built.
func (r *Result) MayShadowFrom(rule *topology.Rule, path *RulePath, l *topology.Listener, routed Points) bool {
	lv := r.levels(rule, path, l)
	if len(lv) == 0 {
		return false
	}
	for _, k := range r.Registry.Kinds() {
		if wo, ok := k.(policy.WholeOverrider); ok && wo.OverridesWhole() && rule != nil {
			if pt := routed.Of(k); pt != nil && slices.ContainsFunc(pt.Fields, ownedOnRoute) {
				return true
			}
			continue
		}
		if ownFieldSetBelow(lv, k) {
			return true
		}
	}
	return false
}

// ownedOnRoute reports whether f's value in effect is a route's or a
// rule's (not Inherited in a view: effectiveWhole).
func ownedOnRoute(f *Field) bool {
	return specificity[f.Owner.Level] >= specificity[LevelRoute]
}

// MayMergeOn reports whether RoutedOn(rule, path, l) can hold a point
// whose policy in effect merges into a less specific one: false when no
// candidate of a kind that overrides whole, at any level, sets a merge
// strategy (policy.WholeOverrider.MergesInto). A view that only wants
// such points asks it first, as it costs less than the points.
func (r *Result) MayMergeOn(rule *topology.Rule, path *RulePath, l *topology.Listener) bool {
	if rule == nil {
		return false
	}
	lv := r.levels(rule, path, l)
	for _, k := range r.Registry.Kinds() {
		wo, ok := k.(policy.WholeOverrider)
		if !ok || !wo.OverridesWhole() {
			continue
		}
		for _, pts := range lv {
			pt := pts.Of(k)
			if pt == nil {
				continue
			}
			for _, c := range pt.Candidates {
				if wo.MergesInto(c.Policy) != "" {
					return true
				}
			}
			for _, f := range pt.Rule {
				if wo.MergesInto(f.Owner.Policy) != "" {
					return true
				}
			}
		}
	}
	return false
}

// rejectedOn is the controller's rejection of c's policy on listener l
// (a Gateway's or ListenerSet's policy that a listener's replaces whole
// there), nil when it applies or l is nil.
func (r *Result) rejectedOn(c *Candidate, l *topology.Listener) *policy.Rejection {
	if l == nil || c == nil || c.Rejected != nil {
		return nil
	}
	return r.rejection(c.Policy, policy.TargetKey{Listener: l})
}

// RejectedOn is the controller's rejection of p on listener l (a
// Gateway's or ListenerSet's policy a listener's replaces whole there),
// nil when it applies there.
func (r *Result) RejectedOn(p *policy.Policy, l *topology.Listener) *policy.Rejection {
	return r.rejection(p, policy.TargetKey{Listener: l})
}

// NotApplied are the verdicts on a rule served on a listener (l may be
// nil), or on the listener itself (rule nil): the policies that reach the
// rule, its route, the listener, its ListenerSet or its Gateway, but that
// their controller does not apply there — most specific target first,
// each policy once (a Gateway's policy rejected on the listener counts
// there).
func (r *Result) NotApplied(rule *topology.Rule, l *topology.Listener) []Verdict {
	var keys []policy.TargetKey
	if rule != nil {
		rt := r.routeOf(rule)
		if l != nil {
			// the rule as served through l first: the most specific
			keys = append(keys, policy.TargetKey{Rule: rule, On: l})
			if rt != nil {
				keys = append(keys, policy.TargetKey{Route: rt, On: l})
			}
		}
		keys = append(keys, policy.TargetKey{Rule: rule})
		if rt != nil {
			keys = append(keys, policy.TargetKey{Route: rt})
		}
	}
	if l != nil {
		keys = append(keys, policy.TargetKey{Listener: l})
		if l.Set != nil {
			keys = append(keys, policy.TargetKey{Set: l.Set})
		}
		keys = append(keys, policy.TargetKey{Gateway: l.Gateway})
	}
	idx := r.verdictIndex()
	var out []Verdict
	seen := map[*policy.Policy]bool{}
	for _, k := range keys {
		for _, v := range idx[k] {
			if !seen[v.Policy] {
				seen[v.Policy] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// verdictIndex indexes every policy's verdicts by target, once.
func (r *Result) verdictIndex() map[policy.TargetKey][]Verdict {
	r.verdictsOnce.Do(func() {
		r.byTarget = map[policy.TargetKey][]Verdict{}
		for _, p := range r.Policies.Policies {
			for _, v := range r.Verdicts(p) {
				r.byTarget[v.Target] = append(r.byTarget[v.Target], v)
			}
		}
	})
	return r.byTarget
}

// onPort keeps a port-scoping kind's fields that apply on a listener's
// port: those for every port, unless fields for this port (its entry and
// the parts other policies fill in it) replace them — then they are
// listed as Replaced by the entry —, and those fields; fields for other
// ports do not apply.
func onPort(ps policy.PortScoper, es []EffectiveField, port int32) []EffectiveField {
	own := slices.ContainsFunc(es, func(e EffectiveField) bool { return ps.FieldPort(e.Key) == port })
	var out []EffectiveField
	var replaced []*Field
	for _, e := range es {
		switch p := ps.FieldPort(e.Key); {
		case p == 0 && own:
			replaced = append(replaced, e.Field)
		case p == 0 || p == port:
			out = append(out, e)
		}
	}
	entry := -1
	for i := range out {
		if ps.FieldPort(out[i].Key) == port && (entry < 0 || ps.PortEntry(out[i].Key) == "") {
			entry = i
		}
	}
	if entry >= 0 {
		out[entry].Replaced = replaced
	}
	return out
}

// distinctInstances reports whether two results of a field configure
// disjoint sets of named instances, neither covering all (a disable).
func distinctInstances(k policy.Kind, key string, a, b *Field) bool {
	in, ok := k.(policy.Instancer)
	if !ok {
		return false
	}
	ia, ib := instances(in, key, a), instances(in, key, b)
	if ia == nil || ib == nil {
		return false
	}
	for _, x := range ia {
		if slices.Contains(ib, x) {
			return false
		}
	}
	return true
}

// instances are the instances a result's values name; nil when one names
// none.
func instances(in policy.Instancer, key string, f *Field) []string {
	var out []string
	for i, v := range f.Values {
		x := in.Instance(key, v, f.Contributors[i].Policy.Obj.Namespace)
		if x == "" {
			return nil
		}
		out = append(out, x)
	}
	return out
}

// effectiveWhole is Effective for a kind whose policies override whole,
// from its Routed point: each field in effect, from the one policy that
// took the rule or from a merge of a route's policy into its Gateway's
// (Field.Strategy StrategicMerge or JSONMerge, every contributor named).
// Policies at less specific levels that are not in effect are Shadowed
// under every field, each of their fields a Shadowed entry of its own key
// — a WholeOverrider's controller overrides them whole, fields the more specific policy
// leaves unset included — and policies of the same level that lost the
// target to the first one are Losers. A policy merged into whose value of
// a field the merge replaced is Shadowed under that field.
func effectiveWhole(k policy.Kind, pt *Point, lv []Points) []EffectiveField {
	if pt == nil || len(pt.Fields) == 0 {
		return nil
	}
	lead := pt.Candidates
	if len(lead) == 0 {
		// an invalid policy's fields its controller keeps
		// (policy.InvalidKeeper): it is the one in effect
		lead = []*Candidate{pt.Fields[0].Owner}
	}
	in := map[*policy.Policy]bool{}
	for _, c := range lead {
		in[c.Policy] = true
	}
	top := specificity[lead[0].Level]
	var shadowed, losers []*Candidate
	seen := map[*policy.Policy]bool{}
	for _, pts := range lv {
		for _, c := range pts.Of(k).candidates() {
			if in[c.Policy] || seen[c.Policy] || c.IsBuiltIn() {
				continue
			}
			seen[c.Policy] = true
			if specificity[c.Level] == top {
				losers = append(losers, c)
			} else if specificity[c.Level] < top {
				shadowed = append(shadowed, c)
			}
		}
	}
	out := make([]EffectiveField, 0, len(pt.Fields))
	for _, f := range pt.Fields {
		// a copy: pt may be shared by every rule its candidates reach
		// (Result.routedPoint), and the losers are this view's
		fc := *f
		fc.Losers = losers
		f := &fc
		e := EffectiveField{Kind: k, Key: f.Key, Field: f, Inherited: !ownedOnRoute(f), Whole: pt.Whole}
		if lvl := lead[0].Level; lvl != f.Owner.Level {
			e.ShadowedBy = lvl
		}
		for _, c := range shadowed {
			e.Shadowed = append(e.Shadowed, fieldsOf(k, c, lv)...)
		}
		// A less specific policy the more specific one merged into, whose
		// value of the field the merge replaced (ReplacedOnMerge).
		for _, c := range pt.Candidates {
			if _, sets := c.Policy.Values[f.Key]; sets && !slices.Contains(f.Contributors, c) {
				for _, hidden := range fieldsOf(k, c, lv) {
					if hidden.Key == f.Key {
						e.Shadowed = append(e.Shadowed, hidden)
					}
				}
			}
		}
		out = append(out, e)
	}
	return out
}

// fieldsOf are the fields a hidden policy sets: the results it owns at the
// merge points of the levels (so that views keyed by those results find
// them), else, for a field it owns nowhere, a result of its own value.
func fieldsOf(k policy.Kind, c *Candidate, lv []Points) []*Field {
	var out []*Field
	owned := map[string]bool{}
	for _, pts := range lv {
		for _, f := range pts.Of(k).fields() {
			if f.Owner.Policy == c.Policy && !slices.Contains(out, f) {
				out = append(out, f)
				owned[f.Key] = true
			}
		}
	}
	for _, fs := range k.Spec().Fields {
		if v, ok := c.Policy.Values[fs.Key]; ok && !owned[fs.Key] {
			out = append(out, &Field{Key: fs.Key, Strategy: policy.OverridableShallow, Owner: c, Contributors: []*Candidate{c}, Values: []any{v}})
		}
	}
	return out
}

// fields is a point's fields in effect (none for a nil point).
func (p *Point) fields() []*Field {
	if p == nil {
		return nil
	}
	return p.Fields
}

// candidates is a point's valid candidates (none for a nil point).
func (p *Point) candidates() []*Candidate {
	if p == nil {
		return nil
	}
	return p.Candidates
}

// fieldKeys are the keys of the fields merged at each level, for
// expanding a kind's field families (policy.KindSpec.FieldsFor).
// anyFields reports whether a level of lv has a field of kind k.
func anyFields(lv []Points, k policy.Kind) bool {
	for _, pts := range lv {
		if len(pts.Of(k).fields()) > 0 {
			return true
		}
	}
	return false
}

func fieldKeys(lv []Points, k policy.Kind) []map[string]any {
	if !slices.ContainsFunc(k.Spec().Fields, func(f policy.FieldSpec) bool { return f.Family }) {
		return nil
	}
	var out []map[string]any
	for _, pts := range lv {
		keys := map[string]any{}
		for _, f := range pts.Of(k).fields() {
			keys[f.Key] = nil
		}
		out = append(out, keys)
	}
	return out
}

// Verdict is one target a policy reaches but its controller does not
// apply it on, as attach decided (attach.Result.Rejected), with the
// target resolved for the views: Route is set for a route's or a rule's.
type Verdict struct {
	Policy    *policy.Policy
	Target    policy.TargetKey
	Route     *topology.Route
	Rejection *policy.Rejection
}

// Desc names the target for messages: "Gateway ns/name", "listener
// ns/gw/name", "ListenerSet ns/name", "HTTPRoute ns/name" or
// "HTTPRoute ns/name rule R", the last two followed by " on listener
// ns/gw/name" for the route as served through one listener.
func (v Verdict) Desc() string {
	if on := v.Target.On; on != nil && v.Route != nil {
		t := v
		t.Target.On = nil
		return t.Desc() + " on listener " + on.ID()
	}
	t := v.Target
	switch {
	case t.Gateway != nil:
		return "Gateway " + t.Gateway.Namespace + "/" + t.Gateway.Name
	case t.Listener != nil:
		return "listener " + t.Listener.ID()
	case t.Set != nil:
		return "ListenerSet " + t.Set.Namespace + "/" + t.Set.Name
	case v.Route != nil && t.Rule != nil:
		return v.Route.Kind + " " + v.Route.Meta.Namespace + "/" + v.Route.Meta.Name + " rule " + t.Rule.Section()
	case v.Route != nil:
		return v.Route.Kind + " " + v.Route.Meta.Namespace + "/" + v.Route.Meta.Name
	case t.Backend.Name != "" && t.Port != "":
		return t.Backend.Kind + " " + t.Backend.Namespace + "/" + t.Backend.Name + " port " + t.Port
	case t.Backend.Name != "":
		return t.Backend.Kind + " " + t.Backend.Namespace + "/" + t.Backend.Name
	}
	return "an unknown target"
}

// Verdicts are the targets p reaches that its controller does not apply
// it on, sorted by their description: the one verdict status, lint,
// explain and graph all read.
func (r *Result) Verdicts(p *policy.Policy) []Verdict {
	rj := r.Attach.Rejected[p]
	if len(rj) == 0 {
		return nil
	}
	out := make([]Verdict, 0, len(rj))
	for t, x := range rj {
		v := Verdict{Policy: p, Target: t, Route: t.Route, Rejection: x}
		if t.Rule != nil {
			v.Route = r.routeOf(t.Rule)
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b Verdict) int { return strings.Compare(a.Desc(), b.Desc()) })
	return out
}

// routeOf is the route a rule belongs to.
func (r *Result) routeOf(rule *topology.Rule) *topology.Route {
	if rp := r.rules[rule]; rp != nil {
		return rp.Route
	}
	return nil
}
