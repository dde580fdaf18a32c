package status_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/status"
)

// bothClasses are kgateway's GatewayClass kgw and Envoy Gateway's eg: a
// test of one controller's rule shows the other's Gateways untouched.
const bothClasses = kgClassDoc + "---\n" + egClassDoc + "---\n"

// TestXListenerSetRead: kgateway at the pin reads a
// gateway.networking.x-k8s.io XListenerSet as a ListenerSet of its parent
// when enableExperimentalGatewayAPIFeatures is true, its default
// (pluginsdk/collections/setup.go: InitCollections joins the converted
// legacy XListenerSets to the v1 ListenerSets, keeping their kind), so its
// listeners are served, a route's parentRef and a TrafficPolicy's
// targetRef naming the XListenerSet attach to it, and its status and the
// ancestors name it XListenerSet; a parentRef of kind ListenerSet does not
// find it. With the switch false kgateway reads none, and Envoy Gateway
// v1.9 reads none at all: the set is reported (GWP216) and nothing attaches
// to it. Before: every XListenerSet was reported as unread (GWP406) and its
// routes were NoMatchingParent. Shapes no public case has: each of those,
// and a v1 ListenerSet beside an XListenerSet of the same name (two
// objects, each its own listeners).
func TestXListenerSetRead(t *testing.T) {
	const base = bothClasses + `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: CLASS
  allowedListeners: {namespaces: {from: Same}}
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}]}
`
	set := func(apiVersion, kind, listener string, port int) string {
		return `---
apiVersion: ` + apiVersion + `
kind: ` + kind + `
metadata: {name: extra, namespace: infra}
spec:
  parentRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  listeners: [{name: ` + listener + `, protocol: HTTP, port: ` + strconv.Itoa(port) + `, hostname: ` + listener + `.example.com}]
`
	}
	route := func(name, group, kind string) string {
		return `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ` + name + `, namespace: infra}
spec:
  parentRefs: [{group: ` + group + `, kind: ` + kind + `, name: extra}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
`
	}
	const policy = `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: tp, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.x-k8s.io, kind: XListenerSet, name: extra}]
  timeouts: {request: 5s}
`
	const x, v1 = "gateway.networking.x-k8s.io", "gateway.networking.k8s.io"
	xset := set(x+"/v1alpha1", "XListenerSet", "more", 8080)
	routes := route("via-x", x, "XListenerSet") + route("via-v1", v1, "ListenerSet")
	for _, tc := range []struct {
		name, class, docs string
		enabled           any // the switch; nil: kgateway's default
		// routes: each route's Accepted; sets: each set's kind/name and
		// Accepted; listeners: each set listener's set and attached routes
		routes, sets, listeners map[string]string
		ancestors               []string // the TrafficPolicy's
		unread                  int      // GWP216 on the XListenerSet
	}{
		{name: "kgateway, default: read", class: "kgw", docs: xset + routes + policy,
			routes:    map[string]string{"via-x": "True/Accepted", "via-v1": "False/NoMatchingParent"},
			sets:      map[string]string{"XListenerSet/extra": "True/Accepted"},
			listeners: map[string]string{"XListenerSet/infra/extra more": "1"},
			ancestors: []string{"XListenerSet/infra/extra"}},
		{name: "kgateway, switch true: read", class: "kgw", docs: xset + routes + policy, enabled: true,
			routes:    map[string]string{"via-x": "True/Accepted", "via-v1": "False/NoMatchingParent"},
			sets:      map[string]string{"XListenerSet/extra": "True/Accepted"},
			listeners: map[string]string{"XListenerSet/infra/extra more": "1"},
			ancestors: []string{"XListenerSet/infra/extra"}},
		{name: "kgateway, switch false: not read", class: "kgw", docs: xset + routes + policy, enabled: false,
			routes: map[string]string{"via-x": "False/NoMatchingParent", "via-v1": "False/NoMatchingParent"},
			sets:   map[string]string{}, listeners: map[string]string{}, unread: 1,
			ancestors: []string{"StatusSummary//StatusSummary"}}, // the policy attaches to nothing
		{name: "Envoy Gateway: not read", class: "eg", docs: xset + routes,
			routes: map[string]string{"via-x": "False/NoMatchingParent", "via-v1": "False/NoMatchingParent"},
			sets:   map[string]string{}, listeners: map[string]string{}, unread: 1},
		{name: "kgateway: a ListenerSet and an XListenerSet of one name are two", class: "kgw",
			docs:      xset + set(v1+"/v1", "ListenerSet", "more", 8081) + routes,
			routes:    map[string]string{"via-x": "True/Accepted", "via-v1": "True/Accepted"},
			sets:      map[string]string{"XListenerSet/extra": "True/Accepted", "ListenerSet/extra": "True/Accepted"},
			listeners: map[string]string{"XListenerSet/infra/extra more": "1", "infra/extra more": "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("test.yaml", []byte(strings.Replace(base, "CLASS", tc.class, 1)+tc.docs), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := &pipeline.Config{Namespace: "default"}
			if tc.enabled != nil {
				cfg = cfg.WithSetting("enableExperimentalGatewayAPIFeatures", tc.enabled)
			}
			c := families.Compile(&manifest.Set{Objects: objs}, cfg)
			unread := 0
			for _, d := range c.Diagnostics() {
				switch {
				case d.Code == "GWP406" && d.Object.Kind == "XListenerSet":
					t.Errorf("still reported as unmodelled: %s", d.Message)
				case d.Code == "GWP216" && d.Object.Kind == "XListenerSet":
					unread++
					if d.Pos.Line == 0 || !strings.Contains(d.Message, "not read") {
						t.Errorf("GWP216 at %v: %s", d.Pos, d.Message)
					}
				}
			}
			if unread != tc.unread {
				t.Errorf("GWP216 on the XListenerSet %d, want %d", unread, tc.unread)
			}
			rep := status.Compute(c.Result, status.Options{})
			routes := map[string]string{}
			for _, r := range rep.Routes {
				for _, p := range r.Parents {
					routes[r.Name] += condOf(p.Conditions, "Accepted")
				}
			}
			sets := map[string]string{}
			for _, s := range rep.ListenerSets {
				sets[cmpOr(s.Kind, "ListenerSet")+"/"+s.Name] = condOf(s.Conditions, "Accepted")
			}
			listeners := map[string]string{}
			for _, g := range rep.Gateways {
				for _, l := range g.Listeners {
					if l.ListenerSet != "" {
						listeners[l.ListenerSet+" "+l.Name] = strconv.Itoa(l.AttachedRoutes)
					}
				}
			}
			// a listener's ID (graph nodes, explain, messages) tells the
			// two kinds of set apart
			ids := map[string]bool{}
			for _, gw := range c.Graph.Gateways {
				for _, l := range gw.Listeners {
					if ids[l.ID()] {
						t.Errorf("two listeners with ID %s", l.ID())
					}
					ids[l.ID()] = true
				}
			}
			var ancestors []string
			for _, p := range rep.Policies {
				for _, a := range p.Ancestors {
					ancestors = append(ancestors, a.AncestorRef.Kind+"/"+a.AncestorRef.Namespace+"/"+a.AncestorRef.Name)
				}
			}
			for what, d := range map[string]string{
				"routes":    cmp.Diff(tc.routes, routes),
				"sets":      cmp.Diff(tc.sets, sets),
				"listeners": cmp.Diff(tc.listeners, listeners),
				"ancestors": cmp.Diff(tc.ancestors, ancestors),
			} {
				if d != "" {
					t.Errorf("%s (-want +got):\n%s", what, d)
				}
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
