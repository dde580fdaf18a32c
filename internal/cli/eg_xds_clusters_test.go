package cli

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The cluster half of the Envoy Gateway xDS comparison: for each route
// both sides forward, the clusters it sends to, each seen through the
// settings policies shape (egClusterFields). What is representation only
// is left out: names and discovery settings, which differ by design
// (gwpol's EDS names are its backends'), each side's defaults on every
// cluster, and the protocol an HTTP protocol options extension spells out
// for the upstream (Envoy Gateway writes its HTTP/2 window sizes there).

// egClusterFields are the Cluster fields compared (protojson names).
var egClusterFields = []string{"circuitBreakers", "loadBalancingPolicy", "commonLbConfig", "connectTimeout",
	"perConnectionBufferLimitBytes", "upstreamConnectionOptions", "transportSocket", "typedExtensionProtocolOptions",
	"healthChecks", "outlierDetection"}

// egClusterDefaults are the values Envoy Gateway writes on every cluster
// a policy does not tune (its translator's defaults), protojson.
var egClusterDefaults = map[string]string{
	"circuitBreakers":               `{"thresholds":[{"maxRetries":1024}]}`,
	"commonLbConfig":                `{}`,
	"connectTimeout":                `"10s"`,
	"perConnectionBufferLimitBytes": `32768`,
	"loadBalancingPolicy": `{"policies":[{"typedExtensionConfig":{"name":"envoy.load_balancing_policies.least_request",` +
		`"typedConfig":{"@type":"type.googleapis.com/envoy.extensions.load_balancing_policies.least_request.v3.LeastRequest",` +
		`"localityLbConfig":{"localityWeightedLbConfig":{}}}}}]}`,
}

// gwpolClusterDefaults are gwpol's (baseCluster).
var gwpolClusterDefaults = map[string]string{"connectTimeout": `"5s"`}

// egClusterViews are, per route identity, the distinct views of the
// clusters the route sends to, sorted, as one comparable text: Envoy
// Gateway gives a rule's backends one cluster (their endpoints grouped
// in it), gwpol a cluster each, with the same settings.
func egClusterViews(routes map[string][]string, clusters map[string]map[string]any, defaults map[string]string) map[string]string {
	out := make(map[string]string, len(routes))
	for id, names := range routes {
		var views []string
		for _, n := range names {
			b, _ := json.Marshal(egClusterView(clusters[n], defaults)) // map keys sorted
			views = append(views, string(b))
		}
		slices.Sort(views)
		out[id] = "[" + strings.Join(slices.Compact(views), ",") + "]"
	}
	return out
}

// egClusterView is one cluster's compared settings ({} for a cluster
// neither side has: a route to it answers 500 either way).
func egClusterView(c map[string]any, defaults map[string]string) map[string]any {
	v := map[string]any{}
	for _, f := range egClusterFields {
		x, ok := c[f]
		if !ok {
			continue
		}
		b, _ := json.Marshal(x)
		if defaults[f] == string(b) {
			continue
		}
		if f == "typedExtensionProtocolOptions" {
			if x = withoutExplicitProtocol(x); x == nil {
				continue
			}
		}
		v[f] = x
	}
	return v
}

// withoutExplicitProtocol drops the explicit upstream protocol from the
// HTTP protocol options (nil when nothing else is left).
func withoutExplicitProtocol(x any) any {
	exts, ok := x.(map[string]any)
	if !ok {
		return x
	}
	out := map[string]any{}
	for k, e := range exts {
		m, ok := e.(map[string]any)
		if !ok {
			out[k] = e
			continue
		}
		m = maps.Clone(m)
		delete(m, "explicitHttpConfig")
		if len(m) > 1 { // more than its @type
			out[k] = m
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// routeClusterNames are the clusters a route (protojson) sends to.
func routeClusterNames(route map[string]any) []string {
	ra, _ := route["route"].(map[string]any)
	if c, ok := ra["cluster"].(string); ok {
		return []string{c}
	}
	wc, _ := ra["weightedClusters"].(map[string]any)
	cs, _ := wc["clusters"].([]any)
	var names []string
	for _, c := range cs {
		m, _ := c.(map[string]any)
		if n, ok := m["name"].(string); ok {
			names = append(names, n)
		}
	}
	return names
}

// egCompareClusters lists the routes both sides forward whose clusters'
// views differ.
func egCompareClusters(wantRoutes, gotRoutes map[string]map[string]egRouteView, want, got map[string]map[string]string) []string {
	var bad []string
	for _, gw := range slices.Sorted(maps.Keys(want)) {
		for _, id := range slices.Sorted(maps.Keys(want[gw])) {
			if wantRoutes[gw][id].Action != "route" || gotRoutes[gw][id].Action != "route" {
				continue
			}
			if w, g := want[gw][id], got[gw][id]; w != g {
				bad = append(bad, fmt.Sprintf("%s %s clusters:\n    eg:    %s\n    gwpol: %s", gw, id, w, g))
			}
		}
	}
	return bad
}

// The listener half: per Gateway port, the HTTP filter chains policies
// build — each chain's filters in order, with whether the chain leaves
// each off until a route turns it on. Envoy Gateway serves a privileged
// port (below 1024) on port+10000 and names listeners after the Gateway
// listener (gwpol: listener~<port>); its own listeners (readiness,
// stats) are not a Gateway's and are left out, as is everything else of
// a listener (ClientTrafficPolicy's settings are not rendered yet).

// egListenerViews reads the listeners of one config dump (protojson),
// by Gateway port.
func egListenerViews(listeners []map[string]any, eg bool) map[string]string {
	out := map[string]string{}
	for _, l := range listeners {
		name, _ := l["name"].(string)
		if eg && strings.HasPrefix(name, "envoy-gateway-proxy-") {
			continue
		}
		addr, _ := l["address"].(map[string]any)
		sa, _ := addr["socketAddress"].(map[string]any)
		port, _ := sa["portValue"].(float64)
		if eg && port >= 10000 && port < 11024 {
			port -= 10000
		}
		chains, _ := l["filterChains"].([]any)
		if dc, ok := l["defaultFilterChain"]; ok {
			chains = append(chains, dc)
		}
		var views []string
		for _, c := range chains {
			if v := httpFilterChain(c); v != "" {
				views = append(views, v)
			}
		}
		slices.Sort(views)
		out[fmt.Sprint(port)] = strings.Join(slices.Compact(views), " | ")
	}
	return out
}

// httpFilterChain is a filter chain's HTTP filters, "name" or "name(off)"
// each, in order ("" for a chain without a connection manager).
func httpFilterChain(c any) string {
	fc, _ := c.(map[string]any)
	filters, _ := fc["filters"].([]any)
	for _, f := range filters {
		m, _ := f.(map[string]any)
		tc, _ := m["typedConfig"].(map[string]any)
		hfs, ok := tc["httpFilters"].([]any)
		if !ok {
			continue
		}
		names := make([]string, 0, len(hfs))
		for _, h := range hfs {
			hm, _ := h.(map[string]any)
			n, _ := hm["name"].(string)
			if off, _ := hm["disabled"].(bool); off {
				n += "(off)"
			}
			names = append(names, n)
		}
		return strings.Join(names, ",")
	}
	return ""
}

// egCompareListeners lists the Gateway ports whose HTTP filter chains
// differ, or that one side alone has.
func egCompareListeners(want, got map[string]map[string]string) []string {
	var bad []string
	for _, gw := range slices.Sorted(maps.Keys(want)) {
		for _, port := range slices.Sorted(maps.Keys(want[gw])) {
			if w, g := want[gw][port], got[gw][port]; w != g {
				bad = append(bad, fmt.Sprintf("%s port %s filters:\n    eg:    %s\n    gwpol: %s", gw, port, w, g))
			}
		}
		for _, port := range slices.Sorted(maps.Keys(got[gw])) {
			if _, ok := want[gw][port]; !ok {
				bad = append(bad, fmt.Sprintf("%s port %s: only in gwpol's", gw, port))
			}
		}
	}
	return bad
}
