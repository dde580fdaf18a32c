package envoygateway

import (
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
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

// RefineWithGraph implements policy.GraphRefiner: a policy whose targets
// are all routes, none of which reaches one of Envoy Gateway's Gateways
// through a listener that allows it, is never built per parent, so the
// findings of those builders are no errors of its (Envoy Gateway writes
// Accepted on the route's ancestors). A target that is not a route, a
// targetSelector, or a route the input lacks keeps them.
func (k *Kind) RefineWithGraph(p *policy.Policy, g *topology.Graph) {
	fields := perGatewayFields[k]
	if len(fields) == 0 || len(p.Invalid) == 0 || len(p.Targets) == 0 {
		return
	}
	for _, t := range p.Targets {
		if t.Selector != nil || t.Group != "gateway.networking.k8s.io" {
			return
		}
		switch t.Kind {
		case "HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute", "UDPRoute":
		default:
			return
		}
		rt := g.Route(t.Kind, p.Obj.Namespace, t.Name)
		if rt == nil {
			return
		}
		for _, pa := range rt.Parents {
			if pa.Gateway == nil || len(pa.Allowed) == 0 {
				continue
			}
			if name, managed := g.Controller(pa.Gateway, ControllerName); managed && name == ControllerName {
				return
			}
		}
	}
	refusals := decoded(p).refusals
	p.Invalid = slices.DeleteFunc(p.Invalid, func(d diag.Diagnostic) bool {
		for _, r := range refusals {
			if r != nil && r.Field == d.Field && r.Message == d.Message {
				return false // the validator's, which runs before the parents
			}
		}
		return slices.ContainsFunc(fields, func(f string) bool {
			return d.Field == f || strings.HasPrefix(d.Field, f+".") || strings.HasPrefix(d.Field, f+"[")
		})
	})
}
