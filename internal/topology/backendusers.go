package topology

import (
	"slices"

	"github.com/gwpol/gwpol/internal/model"
)

// BackendGateways are, per backend object, the Gateways whose routes
// attached to them use it, each once, in route order: the Gateways whose
// controllers build a destination to it. One pass over the routes.
func (g *Graph) BackendGateways() map[model.Key][]*Gateway {
	out := map[model.Key][]*Gateway{}
	for _, rt := range g.Routes {
		for _, rule := range rt.Rules {
			for _, b := range rule.Backends {
				k := model.Key{Group: b.Group, Kind: b.Kind, Namespace: b.Namespace, Name: b.Name}
				for _, p := range rt.Parents {
					if p.Gateway == nil || len(p.Listeners) == 0 || slices.Contains(out[k], p.Gateway) {
						continue
					}
					out[k] = append(out[k], p.Gateway)
				}
			}
		}
	}
	return out
}

// ControllerOf is the controllerName whose semantics apply to gw
// (Controller with the configured fallback).
func (g *Graph) ControllerOf(gw *Gateway) string {
	name, _ := g.Controller(gw, g.fallback)
	return name
}
