package envoygateway

import (
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

var _ policy.GraphRefiner = (*Kind)(nil)

// perGatewayFields are the spec fields of a kind that Envoy Gateway builds
// on a route target once per parentRef whose parent context has a
// Gateway (RouteParentContext.GetGateway: nil when no listener allows the
// route): EnvoyExtensionPolicy's Lua, ExtProc and DynamicModules
// (translateEnvoyExtensionPolicyForRoute; its Wasm is built once, before
// the loop), SecurityPolicy's ExtAuth, OIDC and JWT
// (translateSecurityPolicyForRoute; the validator and the other builders
// run before the loop).
var perGatewayFields = map[*Kind][]string{}

func init() {
	perGatewayFields[envoyExtensionPolicy] = []string{"spec.lua", "spec.extProc", "spec.dynamicModule"}
	perGatewayFields[securityPolicy] = []string{"spec.extAuth", "spec.oidc", "spec.jwt"}
}

// RefineWithGraph implements policy.GraphRefiner: for a
// ClientTrafficPolicy, the settings Envoy Gateway builds on the listeners
// it translated only (refineListenerScope). For a route policy, Envoy Gateway builds
// those fields only for a route target that reaches one of its Gateways
// through a listener that allows it, so their findings are no errors of
// the policy where it targets a route that reaches none (Envoy Gateway
// writes Accepted on that route's ancestors, processSecurityPolicyForRoute
// and processEnvoyExtensionPolicyForRoute setting an error on a route's
// ancestors only when its translation fails). When no target reaches one,
// they are dropped from the policy's findings; when some do, the others
// are recorded (data.unbuilt, with the findings left there) for status to
// judge their ancestors by. A target that is not a route, a
// targetSelector, or a route the input lacks counts as one that reaches.
func (k *Kind) RefineWithGraph(p *policy.Policy, g *topology.Graph) {
	if k == clientTrafficPolicy {
		refineListenerScope(p, g)
		return
	}
	k.refineUnbuilt(p, g)
	if k == securityPolicy {
		// after the findings above are settled: the geolocation decision
		// is split per listener only when the policy has no other
		refineGeo(p, g)
	}
}

// refineUnbuilt is RefineWithGraph's judgement of the fields Envoy
// Gateway builds per parentRef (perGatewayFields) on route targets that
// reach none of its Gateways.
func (k *Kind) refineUnbuilt(p *policy.Policy, g *topology.Graph) {
	fields := perGatewayFields[k]
	if len(fields) == 0 || len(p.Invalid) == 0 || len(p.Targets) == 0 {
		return
	}
	var unbuilt []model.Key
	reached := false
	for _, t := range p.Targets {
		rt := routeTarget(g, p, t)
		if rt == nil || reachesGateway(g, rt) {
			reached = true
			continue
		}
		unbuilt = append(unbuilt, rt.Key())
	}
	if len(unbuilt) == 0 {
		return
	}
	d := decoded(p)
	left := slices.DeleteFunc(slices.Clone(p.Invalid), func(f diag.Diagnostic) bool {
		for _, r := range d.refusals {
			if r != nil && r.Field == f.Field && r.Message == f.Message {
				return false // the validator's, which runs before the parents
			}
		}
		return slices.ContainsFunc(fields, func(field string) bool {
			return f.Field == field || strings.HasPrefix(f.Field, field+".") || strings.HasPrefix(f.Field, field+"[")
		})
	})
	if !reached {
		p.Invalid = left
		return
	}
	d.unbuilt = map[model.Key]bool{}
	for _, k := range unbuilt {
		d.unbuilt[k] = true
	}
	d.unbuiltInvalid = left
}

// routeTarget is the route a targetRef of p names, nil when it names no
// route of the input (another kind, a selector, a route not there).
func routeTarget(g *topology.Graph, p *policy.Policy, t policy.TargetRef) *topology.Route {
	if t.Selector != nil || t.Group != "gateway.networking.k8s.io" {
		return nil
	}
	switch t.Kind {
	case "HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute", "UDPRoute":
		return g.Route(t.Kind, p.Obj.Namespace, t.Name)
	}
	return nil
}

// reachesGateway: a parentRef of rt has a Gateway of Envoy Gateway's with
// a listener that allows it (RouteParentContext.GetGateway is not nil).
func reachesGateway(g *topology.Graph, rt *topology.Route) bool {
	for _, pa := range rt.Parents {
		if pa.Gateway == nil || len(pa.Allowed) == 0 {
			continue
		}
		if name, managed := g.Controller(pa.Gateway, ControllerName); managed && name == ControllerName {
			return true
		}
	}
	return false
}

// invalidOn are p's findings that make it invalid on target t: on a route
// Envoy Gateway builds no per-parent part on (data.unbuilt), those left
// without the per-parent builders'; elsewhere all of them.
func invalidOn(p *policy.Policy, t target) []diag.Diagnostic {
	d := decoded(p)
	if t.route != nil && (t.level == levelRoute || t.level == levelRule) && d.unbuilt[t.route.Key()] {
		return d.unbuiltInvalid
	}
	return p.Invalid
}
