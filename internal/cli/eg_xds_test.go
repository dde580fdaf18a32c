package cli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
)

// egXDSFloor is the number of Envoy Gateway cases whose routes agree with
// egctl's xds.json so far, and egClusterFloor and egListenerFloor those
// whose clusters and filter chains agree: the test fails when one drops.
const (
	egXDSFloor      = 143
	egClusterFloor  = 145
	egListenerFloor = 143
)

// egRouteView is what the comparison looks at on one Envoy route: the
// routes' identity set, how each answers (forwards, redirects, or a
// direct response and its status), and for forwarding routes the
// configuration policies put on a route in Envoy Gateway's rendering —
// the request headers it removes, the RouteAction's timeouts, retry, hash
// and rate-limit actions, the route's tracing and stat prefix, and the
// typed_per_filter_config in effect (the route's, else its virtual
// host's, else its RouteConfiguration's, as Envoy picks it).
type egRouteView struct {
	Action        string         `json:"action"`
	RemoveHeaders any            `json:"requestHeadersToRemove,omitempty"`
	RouteConf     map[string]any `json:"routeAction,omitempty"`
	PerFilter     map[string]any `json:"perFilter,omitempty"`
	// Tracing and StatPrefix are the route's own (BackendTrafficPolicy
	// telemetry).
	Tracing    any `json:"tracing,omitempty"`
	StatPrefix any `json:"statPrefix,omitempty"`
	// Mirrors are the route's request mirror policies, in order, each
	// the share it copies and whether the Host is kept (the clusters are
	// named differently).
	Mirrors []any `json:"mirrors,omitempty"`
}

// egRouteFields are the RouteAction fields compared (protojson names).
var egRouteFields = []string{"timeout", "idleTimeout", "retryPolicy", "hashPolicy", "rateLimits", "maxStreamDuration"}

// egRouteName is Envoy Gateway's route name:
// <kind>/<namespace>/<name>/rule/<i>/match/<j>/<hostname, dots as _>.
var egRouteName = regexp.MustCompile(`^(httproute|grpcroute)/([^/]+)/([^/]+)/rule/(\d+)/match/(-?\d+)/(.+)$`)

// egMishandled names what in a case makes egctl's rendering differ from
// Envoy Gateway's translator (README of the cases): such cases are not
// compared. "" when none.
func egMishandled(t *testing.T, dir string, set *manifest.Set) string {
	var c struct {
		Notes      []string       `json:"notes"`
		Translator map[string]any `json:"translator"`
	}
	readJSON(t, filepath.Join(dir, "case.json"), &c)
	for _, n := range c.Notes {
		// Notes on the EnvoyProxy a class names or on mergeBackends
		// change nothing egctl does differently.
		for _, p := range []string{"feature flag", "Wasm", "mergeGateways", "the file holds two objects"} {
			if strings.HasPrefix(n, p) {
				return "translator " + n
			}
		}
	}
	if c.Translator["MergeGateways"] == true {
		return "mergeGateways"
	}
	proxies := 0
	order := map[string][]string{}
	for _, o := range set.Objects {
		switch o.Kind {
		case "ListenerSet", "XListenerSet", "ServiceImport", "ClusterTrustBundle":
			return o.Kind + " (egctl ignores it)"
		case "EnvoyProxy":
			if proxies++; proxies > 1 {
				return "several EnvoyProxies (egctl keeps one)"
			}
		}
		raw, err := o.FieldJSON("spec")
		if err != nil {
			continue
		}
		spec := string(raw)
		for _, s := range []string{`"targetSelectors"`, `"from":"Selector"`, `"wasm"`} {
			if strings.Contains(spec, s) {
				return strings.Trim(s, `"`) + " (egctl drops labels / has no Wasm cache)"
			}
		}
		if o.Kind == "SecurityPolicy" && strings.Contains(spec, `"oidc"`) {
			// In every OIDC case egctl answers 500 on the policy's routes
			// (even where the provider's endpoints are all given) while the
			// translator accepts the policy and configures the oauth2 filter.
			return "oidc (egctl answers 500 where the translator accepts the policy)"
		}
		if o.Group == "gateway.envoyproxy.io" || o.Kind == "HTTPRoute" || o.Kind == "GRPCRoute" {
			order[o.Kind] = append(order[o.Kind], o.Namespace+"/"+o.Name)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(order)) {
		if !slices.IsSorted(order[k]) {
			return k + " objects not in namespace/name order (egctl sorts them, the translator keeps document order)"
		}
	}
	return ""
}

// egxdsAll reads xds.json: by gateway, route identity → route view, route
// identity → the views of the route's clusters (egClusterViews), and
// Gateway port → its HTTP filter chains (egListenerViews).
func egxdsAll(t *testing.T, path string) (map[string]map[string]egRouteView, map[string]map[string]string, map[string]map[string]string) {
	var doc struct {
		XDS map[string]struct {
			Configs []map[string]json.RawMessage `json:"configs"`
		} `json:"xds"`
	}
	readJSON(t, path, &doc)
	out := map[string]map[string]egRouteView{}
	views := map[string]map[string]string{}
	listenerViews := map[string]map[string]string{}
	for gw, dump := range doc.XDS {
		out[gw] = map[string]egRouteView{}
		names := map[string][]string{}
		clusters := map[string]map[string]any{}
		var listeners []map[string]any
		for _, cfg := range dump.Configs {
			if raw, ok := cfg["dynamicListeners"]; ok {
				var ls []struct {
					ActiveState struct {
						Listener map[string]any `json:"listener"`
					} `json:"activeState"`
				}
				if err := json.Unmarshal(raw, &ls); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				for _, l := range ls {
					listeners = append(listeners, l.ActiveState.Listener)
				}
			}
			if raw, ok := cfg["dynamicActiveClusters"]; ok {
				var cs []struct {
					Cluster map[string]any `json:"cluster"`
				}
				if err := json.Unmarshal(raw, &cs); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				for _, c := range cs {
					name, _ := c.Cluster["name"].(string)
					clusters[name] = c.Cluster
				}
			}
			raw, ok := cfg["dynamicRouteConfigs"]
			if !ok {
				continue
			}
			var rcs []struct {
				RouteConfig map[string]any `json:"routeConfig"`
			}
			if err := json.Unmarshal(raw, &rcs); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			for _, rc := range rcs {
				egAddRoutesClusters(out[gw], names, rc.RouteConfig, func(name, _ string) (string, bool) {
					m := egRouteName.FindStringSubmatch(name)
					if m == nil {
						return "", false
					}
					match := m[5]
					if match == "-1" {
						match = "0" // a rule without matches
					}
					kind := map[string]string{"httproute": "HTTPRoute", "grpcroute": "GRPCRoute"}[m[1]]
					return egRouteID(kind, m[2], m[3], m[4], match, m[6]), true
				})
			}
		}
		views[gw] = egClusterViews(names, clusters, egClusterDefaults)
		listenerViews[gw] = egListenerViews(listeners, true)
	}
	return out, views, listenerViews
}

func egRouteID(kind, ns, name, rule, match, host string) string {
	return strings.Join([]string{kind, ns, name, "rule", rule, "match", match, host}, "/")
}

// egAddRoutesClusters adds the views of a RouteConfiguration's routes
// (protojson form), each named by id (route name, virtual host's first
// domain), and records in clusters the names of the clusters each route
// sends to.
func egAddRoutesClusters(out map[string]egRouteView, clusters map[string][]string, rc map[string]any, id func(route, host string) (string, bool)) {
	rcPF, _ := rc["typedPerFilterConfig"].(map[string]any)
	vhs, _ := rc["virtualHosts"].([]any)
	for _, v := range vhs {
		vh, _ := v.(map[string]any)
		vhPF, _ := vh["typedPerFilterConfig"].(map[string]any)
		domains, _ := vh["domains"].([]any)
		host := ""
		if len(domains) > 0 {
			host, _ = domains[0].(string)
		}
		routes, _ := vh["routes"].([]any)
		for _, r := range routes {
			route, _ := r.(map[string]any)
			name, _ := route["name"].(string)
			key, ok := id(name, host)
			if !ok {
				continue
			}
			out[key] = egView(route, vhPF, rcPF)
			clusters[key] = routeClusterNames(route)
		}
	}
}

// egView is a route's view (see egRouteView).
func egView(route, vhPF, rcPF map[string]any) egRouteView {
	switch {
	case route["redirect"] != nil:
		return egRouteView{Action: "redirect"}
	case route["directResponse"] != nil:
		dr, _ := route["directResponse"].(map[string]any)
		return egRouteView{Action: fmt.Sprintf("direct %v", dr["status"])}
	}
	v := egRouteView{Action: "route", RemoveHeaders: route["requestHeadersToRemove"], Tracing: route["tracing"], StatPrefix: route["statPrefix"]}
	ra, _ := route["route"].(map[string]any)
	for _, f := range egRouteFields {
		if x, ok := ra[f]; ok {
			if v.RouteConf == nil {
				v.RouteConf = map[string]any{}
			}
			v.RouteConf[f] = x
		}
	}
	mirrors, _ := ra["requestMirrorPolicies"].([]any)
	for _, m := range mirrors {
		m, _ := m.(map[string]any)
		v.Mirrors = append(v.Mirrors, map[string]any{"runtimeFraction": m["runtimeFraction"], "keepHost": m["disableShadowHostSuffixAppend"]})
	}
	pf := map[string]any{}
	for _, level := range []map[string]any{rcPF, vhPF} {
		maps.Copy(pf, level)
	}
	own, _ := route["typedPerFilterConfig"].(map[string]any)
	maps.Copy(pf, own)
	if len(pf) > 0 {
		v.PerFilter = pf
	}
	return v
}

// gwpolEG renders a case with --target envoygateway and gives the
// same views as egxdsAll, keyed like Envoy Gateway's: each route name gwpol made for a
// rule on a listener is traced back to the rule (Output.RouteNames), the
// match is the name's -matcher-<j> suffix and the hostname its virtual
// host's domain with dots as underscores.
func gwpolEG(t *testing.T, c *pipeline.Compiled) (routes map[string]map[string]egRouteView, clusters, listeners map[string]map[string]string, err error) {
	out, err := renderCompiled(c, "envoygateway", false)
	if err != nil {
		return nil, nil, nil, err
	}
	type ruleID struct{ kind, ns, name, rule string }
	byName := map[string]ruleID{}
	for _, rt := range c.Result.Graph.Routes {
		for _, rule := range rt.Rules {
			for _, gw := range c.Result.Graph.Gateways {
				for _, l := range gw.Listeners {
					for _, n := range out.RouteNames(rule, l) {
						byName[n] = ruleID{rt.Kind, rt.Meta.Namespace, rt.Meta.Name, strconv.Itoa(rule.Index)}
					}
				}
			}
		}
	}
	matcher := regexp.MustCompile(`-matcher-(\d+)$`)
	got := map[string]map[string]egRouteView{}
	gotClusters := map[string]map[string]string{}
	gotListeners := map[string]map[string]string{}
	for _, g := range out.Gateways {
		views := map[string]egRouteView{}
		names := map[string][]string{}
		for _, rc := range g.RouteConfigurations {
			egAddRoutesClusters(views, names, protoMap(t, rc), func(name, host string) (string, bool) {
				r, ok := byName[name]
				m := matcher.FindStringSubmatch(name)
				if !ok || m == nil {
					return "", false
				}
				return egRouteID(r.kind, r.ns, r.name, r.rule, m[1], strings.ReplaceAll(host, ".", "_")), true
			})
		}
		got[g.Namespace+"/"+g.Name] = views
		clusters := map[string]map[string]any{}
		for _, cl := range g.Clusters {
			clusters[cl.Name] = protoMap(t, cl)
		}
		gotClusters[g.Namespace+"/"+g.Name] = egClusterViews(names, clusters, gwpolClusterDefaults)
		var ls []map[string]any
		for _, l := range g.Listeners {
			ls = append(ls, protoMap(t, l))
		}
		gotListeners[g.Namespace+"/"+g.Name] = egListenerViews(ls, false)
	}
	return got, gotClusters, gotListeners, nil
}

// protoMap is a message in protojson form (lowerCamelCase names, as
// egctl's config dump writes them).
func protoMap(t *testing.T, m proto.Message) map[string]any {
	b, err := protojson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// egCompareRoutes lists the differences between Envoy Gateway's route
// views and gwpol's, per gateway: a route only one side has, or a view
// that differs. A direct response is compared by status only (Envoy
// Gateway also writes the policies' per-filter config on routes that
// answer 500 themselves; nothing reaches a filter's per-route config
// there but a CORS preflight).
func egCompareRoutes(want, got map[string]map[string]egRouteView) []string {
	var bad []string
	for _, gw := range slices.Sorted(maps.Keys(want)) {
		w, g := want[gw], got[gw]
		for _, id := range slices.Sorted(maps.Keys(w)) {
			gv, ok := g[id]
			switch {
			case !ok:
				bad = append(bad, fmt.Sprintf("%s %s: only in Envoy Gateway's", gw, id))
			case egText(w[id].withoutMirrors()) != egText(gv.withoutMirrors()):
				bad = append(bad, fmt.Sprintf("%s %s:\n    eg:    %s\n    gwpol: %s", gw, id, egText(w[id]), egText(gv)))
			}
		}
		for _, id := range slices.Sorted(maps.Keys(g)) {
			if _, ok := w[id]; !ok {
				bad = append(bad, fmt.Sprintf("%s %s: only in gwpol's", gw, id))
			}
		}
	}
	for _, gw := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[gw]; !ok && len(got[gw]) > 0 {
			bad = append(bad, fmt.Sprintf("%s: gateway only in gwpol's", gw))
		}
	}
	return bad
}

// withoutMirrors is the view with its mirrors left to egCompareMirrors.
func (v egRouteView) withoutMirrors() egRouteView {
	v.Mirrors = nil
	return v
}

// egCompareMirrors compares the request mirror policies of the routes
// both sides write (egRouteView.Mirrors); has says whether either side
// mirrors on any of them.
func egCompareMirrors(want, got map[string]map[string]egRouteView) (bad []string, has bool) {
	for _, gw := range slices.Sorted(maps.Keys(want)) {
		w, g := want[gw], got[gw]
		for _, id := range slices.Sorted(maps.Keys(w)) {
			gv, ok := g[id]
			if !ok {
				continue
			}
			has = has || len(w[id].Mirrors) > 0 || len(gv.Mirrors) > 0
			if we, ge := egText(egRouteView{Mirrors: w[id].Mirrors}), egText(egRouteView{Mirrors: gv.Mirrors}); we != ge {
				bad = append(bad, fmt.Sprintf("%s %s:\n    eg:    %s\n    gwpol: %s", gw, id, we, ge))
			}
		}
	}
	return bad, has
}

func egText(v egRouteView) string {
	b, _ := json.Marshal(v) // map keys sorted
	return string(b)
}

// TestConformanceEnvoyGatewayXDS renders every Envoy Gateway case that has
// an xds.json and none of the ingredients egctl mishandles with
// --target envoygateway, and compares its routes with egctl's (see
// egRouteView for what is compared; `eg xds: N/M`, the floor), the
// clusters of the routes both forward (`eg xds clusters`) and each
// Gateway port's HTTP filter chains (`eg xds listeners`; see
// eg_xds_clusters_test.go). GWPOL_EG_XDS_VERBOSE=1 logs each
// difference; GWPOL_EG_XDS_ALL=1 compares the cases egctl mishandles too
// (for diagnosis: the figure then means nothing, and neither the floor
// nor the list is checked). A compared case that differs must be listed
// with its reason in the eg-xds section of
// testdata/conformance-divergences.txt, and a listed case must differ.
func TestConformanceEnvoyGatewayXDS(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(egConformanceDir, "*"))
	if len(dirs) == 0 {
		t.Skipf("Envoy Gateway cases not found at %s; skipping", egConformanceDir)
	}
	verbose := os.Getenv("GWPOL_EG_XDS_VERBOSE") != ""
	all := os.Getenv("GWPOL_EG_XDS_ALL") != ""
	listed := divergenceSection(t, "eg-xds")
	listedMirrors := divergenceSection(t, "eg-xds-mirrors")
	n, nClusters, nListeners, m := 0, 0, 0, 0
	nMirrors, mMirrors := 0, 0
	skipped := map[string]int{}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		xds := filepath.Join(dir, "xds.json")
		if _, err := os.Stat(xds); err != nil {
			continue
		}
		set, err := manifest.Load([]string{filepath.Join(dir, "input.yaml")}, manifest.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if why := egMishandled(t, dir, set); why != "" && !all {
			skipped[strings.SplitN(why, " ", 2)[0]]++
			continue
		}
		m++
		c := families.Compile(set, egCaseConfig(t, dir))
		got, gotClusters, gotListeners, err := gwpolEG(t, c)
		if err != nil {
			t.Errorf("%s: render: %v", name, err)
			continue
		}
		want, wantClusters, wantListeners := egxdsAll(t, xds)
		bad := egCompareRoutes(want, got)
		if len(bad) == 0 {
			n++
		}
		badClusters := egCompareClusters(want, got, wantClusters, gotClusters)
		if len(badClusters) == 0 {
			nClusters++
		}
		// Request mirrors: the share each copies, in order, on the routes
		// both write — a figure of its own, over the cases that mirror.
		if badMirrors, has := egCompareMirrors(want, got); has {
			mMirrors++
			if len(badMirrors) == 0 {
				nMirrors++
			}
			reason, isListed := listedMirrors[name]
			switch {
			case all:
			case isListed && len(badMirrors) == 0:
				t.Errorf("%s's mirrors agree now; remove it from the eg-xds-mirrors section of testdata/conformance-divergences.txt (%s)", name, reason)
			case !isListed && len(badMirrors) > 0:
				t.Errorf("%s's request mirrors differ from egctl's xds.json and it is not listed with a reason in the eg-xds-mirrors section of testdata/conformance-divergences.txt:\n  %s", name, strings.Join(badMirrors, "\n  "))
			}
		}
		badListeners := egCompareListeners(wantListeners, gotListeners)
		if len(badListeners) == 0 {
			nListeners++
		}
		bad = append(append(bad, badClusters...), badListeners...)
		if len(bad) > 0 && verbose {
			t.Logf("%s:\n  %s", name, strings.Join(bad, "\n  "))
		}
		if reason, isListed := listed[name]; !all && isListed && len(bad) == 0 {
			t.Errorf("%s agrees now; remove it from the eg-xds section of testdata/conformance-divergences.txt (%s)", name, reason)
		} else if !all && !isListed && len(bad) > 0 {
			t.Errorf("%s differs from egctl's xds.json and is not listed with a reason in the eg-xds section of testdata/conformance-divergences.txt:\n  %s", name, strings.Join(bad, "\n  "))
		}
	}
	var why []string
	for _, k := range slices.SortedFunc(maps.Keys(skipped), func(a, b string) int { return cmp.Compare(a, b) }) {
		why = append(why, fmt.Sprintf("%s %d", k, skipped[k]))
	}
	t.Logf("not compared (egctl differs from the translator): %s", strings.Join(why, ", "))
	fmt.Printf("eg xds: %d/%d\n", n, m)
	// The clusters of the routes both sides forward (egCompareClusters):
	// a figure to follow, not yet a floor.
	fmt.Printf("eg xds clusters: %d/%d\n", nClusters, m)
	fmt.Printf("eg xds listeners: %d/%d\n", nListeners, m)
	fmt.Printf("eg xds mirrors: %d/%d (cases that mirror)\n", nMirrors, mMirrors)
	if os.Getenv("GWPOL_EG_XDS_ALL") == "" && (nClusters < egClusterFloor || nListeners < egListenerFloor) {
		t.Errorf("eg xds clusters or listeners dropped below %d, %d", egClusterFloor, egListenerFloor)
	}
	if n < egXDSFloor && os.Getenv("GWPOL_EG_XDS_ALL") == "" {
		t.Errorf("eg xds agreement dropped below %d", egXDSFloor)
	}
}
