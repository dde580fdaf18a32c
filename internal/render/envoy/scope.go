package envoy

import (
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"github.com/gwpol/gwpol/internal/topology"
	"google.golang.org/protobuf/proto"
)

// RuleOn is one route rule as served through one listener.
type RuleOn struct {
	Rule     *topology.Rule
	Listener *topology.Listener
}

// Scope keeps only what the given rules need: their Envoy routes, the
// virtual hosts and RouteConfigurations holding them, the listener filter
// chains that name those configurations, and the clusters the kept routes
// and policy fragments send to. Gateways left with nothing are dropped.
// o is not modified: pruned resources are copies.
func (o *Output) Scope(rules []RuleOn) *Output {
	want := map[string]bool{}
	for _, r := range rules {
		for _, n := range o.RouteNames(r.Rule, r.Listener) {
			want[n] = true
		}
	}
	out := &Output{Target: o.Target, Diagnostics: o.Diagnostics, routeNames: o.routeNames}
	for _, g := range o.Gateways {
		if sg := g.scope(want); sg != nil {
			out.Gateways = append(out.Gateways, sg)
		}
	}
	return out
}

func (g *Gateway) scope(want map[string]bool) *Gateway {
	sg := &Gateway{Namespace: g.Namespace, Name: g.Name, fragmentClusters: g.fragmentClusters, invalidShare: g.invalidShare}
	rcs, clusters := map[string]bool{}, map[string]bool{}
	for _, rc := range g.RouteConfigurations {
		var vhs []*routev3.VirtualHost
		for _, vh := range rc.GetVirtualHosts() {
			var routes []*routev3.Route
			for _, r := range vh.GetRoutes() {
				if want[r.GetName()] {
					routes = append(routes, r)
					routeClusters(r, clusters)
				}
			}
			if len(routes) > 0 {
				v := proto.CloneOf(vh)
				v.Routes = routes
				vhs = append(vhs, v)
			}
		}
		if len(vhs) > 0 {
			c := proto.CloneOf(rc)
			c.VirtualHosts = vhs
			sg.RouteConfigurations = append(sg.RouteConfigurations, c)
			rcs[rc.GetName()] = true
		}
	}
	if len(rcs) == 0 {
		return nil
	}
	for _, l := range g.Listeners {
		var chains []*listenerv3.FilterChain
		for _, fc := range l.GetFilterChains() {
			if rcs[chainRouteConfig(fc)] {
				chains = append(chains, fc)
			}
		}
		if len(chains) > 0 {
			c := proto.CloneOf(l)
			c.FilterChains = chains
			sg.Listeners = append(sg.Listeners, c)
		}
	}
	for _, c := range g.Clusters {
		if clusters[c.GetName()] || g.fragmentClusters[c.GetName()] {
			sg.Clusters = append(sg.Clusters, c)
		}
	}
	return sg
}

// routeClusters adds the clusters a route sends to.
func routeClusters(r *routev3.Route, into map[string]bool) {
	a := r.GetRoute()
	if a == nil {
		return
	}
	if c := a.GetCluster(); c != "" {
		into[c] = true
	}
	for _, w := range a.GetWeightedClusters().GetClusters() {
		into[w.GetName()] = true
	}
	for _, m := range a.GetRequestMirrorPolicies() {
		into[m.GetCluster()] = true
	}
}

// chainRouteConfig is the RouteConfiguration a filter chain's HTTP
// connection manager reads, or "".
func chainRouteConfig(fc *listenerv3.FilterChain) string {
	for _, f := range fc.GetFilters() {
		var hcm hcmv3.HttpConnectionManager
		if tc := f.GetTypedConfig(); tc != nil && tc.UnmarshalTo(&hcm) == nil {
			return hcm.GetRds().GetRouteConfigName()
		}
	}
	return ""
}
