package attach

import (
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// validateRoutes asks each controller that validates routes by rules of
// its own (policy.Family.ValidateRoute) for its verdict on the routes with
// a parent on one of its Gateways. Only a GatewayClass in the input names
// the controller: without it the Gateway API checks topology makes stand.
func (r *Result) validateRoutes(g *topology.Graph, reg *policy.Registry, set *policy.Set, cfg policy.Config) {
	validators := map[string]func(*topology.Route, *policy.Env, *policy.Set) *policy.RouteVerdict{}
	for _, f := range reg.Families() {
		if f.ValidateRoute != nil && f.Controller != nil {
			validators[f.Controller.Name] = f.ValidateRoute
		}
	}
	if len(validators) == 0 {
		return
	}
	env := &policy.Env{Model: g.Model, Config: cfg}
	for _, rt := range g.Routes {
		for _, p := range rt.Parents {
			gw := p.Gateway
			if gw == nil {
				gw = p.Declined // a ListenerSet its Gateway declined
			}
			ctrl, _ := g.Controller(gw, "")
			v, ok := validators[ctrl]
			if !ok || r.Verdicts[rt][ctrl] != nil {
				continue
			}
			verdict := v(rt, env, set)
			if r.Verdicts[rt] == nil {
				r.Verdicts[rt] = map[string]*policy.RouteVerdict{}
			}
			r.Verdicts[rt][ctrl] = verdict
			r.Diagnostics = append(r.Diagnostics, verdict.Diagnostics...)
		}
	}
}
