package envoy

import (
	"maps"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// routeScope is what configures one Envoy route of a rule served through
// listener l: the rule's own merge (ruleScope) and, for the kinds that
// override whole, the policy merge.Result.Routed finds for the rule on
// that listener, rendered onto the route itself (the controller of such
// kinds places every policy on the route, so that a route's policy can
// hide its Gateway's whole). Computed once per rule and listener.
func (gb *gatewayBuild) routeScope(rule *topology.Rule, path *merge.RulePath, l *topology.Listener) *scoped {
	rs := gb.ruleScope(rule, path)
	if !gb.anyWhole {
		return rs
	}
	key := routeKey{rule, l, path}
	gb.mu.Lock()
	s, ok := gb.routed[key]
	gb.mu.Unlock()
	if ok {
		return s // before RoutedOn, which builds the points' fields
	}
	pts := gb.res.RoutedOn(rule, path, l)
	if len(pts) == 0 {
		return rs
	}
	ws := gb.routedScope(pts)
	s = ws
	if len(rs.fields) > 0 || rs.metadata != nil || rs.invalid || rs.failBody != "" || rs.tpfc != nil {
		s = joinScopes(rs, ws)
	}
	gb.mu.Lock()
	defer gb.mu.Unlock()
	if prev, ok := gb.routed[key]; ok {
		return prev
	}
	gb.routed[key] = s
	return s
}

// routedScope renders Routed points once per distinct set of policies in
// effect: the routes a Gateway's or a listener's policy reaches alone all
// share one.
func (gb *gatewayBuild) routedScope(pts merge.Points) *scoped {
	// Built in a stack buffer and looked up as string(key), as
	// renderField's key is: nearly every route hits.
	var arr [256]byte
	key := arr[:0]
	for _, pt := range pts {
		gk := pt.Kind.GroupKind()
		if gk.Group != "" {
			key = append(append(key, gk.Group...), '/')
		}
		key = append(key, gk.Kind...)
		for _, c := range pt.Candidates {
			key = c.Policy.AppendID(append(key, '|'))
			if bi := c.Policy.BuiltIn; bi != nil {
				// a rule's own values: one per rule
				key = append(append(key, '#'), bi.Rule...)
			}
		}
		for _, c := range pt.Invalid {
			key = c.Policy.AppendID(append(key, "|invalid:"...))
		}
		key = append(key, ';')
	}
	gb.mu.Lock()
	s, ok := gb.routedBy[string(key)]
	gb.mu.Unlock()
	if ok {
		return s
	}
	s = gb.scopeOf(pts, policy.ScopeRoute, true, nil, false)
	gb.mu.Lock()
	defer gb.mu.Unlock()
	if prev, ok := gb.routedBy[string(key)]; ok {
		return prev
	}
	gb.routedBy[string(key)] = s
	return s
}

// joinScopes is one route's configuration from two disjoint sets of
// kinds: a, the rule's own merge, wins over b where both set a route
// field (its fields come last, see applyRouteMaps) or a per-filter
// config — a's holds the route rule's own Gateway API fields, which the
// controller of the whole-overriding kinds applies over its policies'
// (an HTTPRoute's timeouts.request over a policy's request timeout).
func joinScopes(a, b *scoped) *scoped {
	s := &scoped{
		fields:   append(append([]*rendered(nil), b.fields...), a.fields...),
		invalid:  a.invalid || b.invalid,
		failBody: a.failBody,
	}
	if s.failBody == "" {
		s.failBody = b.failBody
	}
	if a.metadata != nil || b.metadata != nil {
		md := map[string]*structpb.Struct{}
		maps.Copy(md, a.metadata.GetFilterMetadata())
		maps.Copy(md, b.metadata.GetFilterMetadata())
		s.metadata = &corev3.Metadata{FilterMetadata: md}
	}
	if a.tpfc != nil || b.tpfc != nil {
		s.tpfc = map[string]*anypb.Any{}
		maps.Copy(s.tpfc, b.tpfc)
		maps.Copy(s.tpfc, a.tpfc)
	}
	return s
}
