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

// gwpolClusterDefaults are what gwpol writes on every cluster of the
// Envoy Gateway target (baseCluster): its connect timeout is Envoy
// Gateway's (policy.Target.ConnectTimeout).
var gwpolClusterDefaults = map[string]string{"connectTimeout": egClusterDefaults["connectTimeout"]}

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
