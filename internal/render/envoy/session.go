package envoy

import (
	statefulsessionv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/stateful_session/v3"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// statefulSessionFilter is Envoy's session persistence filter: in the
// chain, off unless a route's per-filter config (its rule's
// sessionPersistence) turns it on.
const statefulSessionFilter = "envoy.filters.http.stateful_session"

// orderStatefulSession runs the filter last before the router (and the
// gRPC filters): it only picks the upstream host. A target places it
// elsewhere with Target.SessionFilterOrder.
const orderStatefulSession = 900

// ruleSession is a rule's own sessionPersistence (HTTPRoute or GRPCRoute).
func ruleSession(rule *topology.Rule) *gwv1.SessionPersistence {
	switch {
	case rule.HTTP != nil:
		return rule.HTTP.SessionPersistence
	case rule.GRPC != nil:
		return rule.GRPC.SessionPersistence
	}
	return nil
}

// sessionFilter is the chain's stateful session filter, off by default,
// at the target's place for it.
func sessionFilter(t Target) filterDef {
	order := orderStatefulSession
	if t.SessionFilterOrder != 0 {
		order = t.SessionFilterOrder
	}
	return filterDef{name: statefulSessionFilter, order: order, config: mustAny(&statefulsessionv3.StatefulSession{})}
}

// withSession turns session persistence on for a route of a rule that
// asks for it, or that takes it from a delegating parent rule (the last
// the entry inherits replaces the rule's own: the family decided which,
// topology.DelegationRules.Inherits), as the target translates it
// (Target.SessionPersistence, for the route object, rule and path match
// the entry serves), recording the filter the chain needs.
func (vb *vhostBuild) withSession(own map[string]*anypb.Any, e entry) map[string]*anypb.Any {
	sp := ruleSession(e.rule)
	if e.flat != nil {
		for _, in := range e.flat.Inherited {
			if in.Session != nil {
				sp = in.Session
			}
		}
	}
	if sp == nil {
		return own
	}
	if s := vb.target.ExperimentalRuleFields; s != nil && !s.Bool(vb.opt.Config) {
		return own // the controller ignores it under its deployment
	}
	at := policy.SessionSite{Kind: e.att.Route.Kind, Namespace: e.att.Route.Meta.Namespace, Name: e.att.Route.Meta.Name, Rule: e.ruleIndex}
	if e.hm != nil {
		at.Path = e.hm.Path
	}
	cfg := vb.target.SessionPersistence(sp, at)
	if cfg == nil {
		return own // the controller does not translate it here
	}
	if own == nil {
		own = map[string]*anypb.Any{}
	}
	own[statefulSessionFilter] = mustAny(cfg)
	vb.filters = append(vb.filters, sessionFilter(vb.target))
	return own
}
