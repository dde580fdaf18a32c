package merge_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/topology"
)

// TestRuleClusterFrom: on a Gateway whose controller builds a route
// rule's cluster once (Envoy Gateway), the verdict on which listener's
// route shapes the cluster each route of the rule sends to
// (Result.RuleClusterFrom), and what a rule's view on each listener
// says of the fields writing that cluster (EffectiveField.ClusterFrom,
// ClusterOnly): listener order (the Gateway's, then ListenerSets' by age
// then name), a listener the route does not attach to or its controller
// does not serve, mergeBackends, and a Gateway of a controller that
// gives each route its own cluster.
func TestRuleClusterFrom(t *testing.T) {
	const class = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n"
	gateway := func(infra string, listeners ...string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: eg\n" + infra +
			"  allowedListeners: {namespaces: {from: Same}}\n  listeners:\n" + strings.Join(listeners, "")
	}
	set := func(name, created string, listeners ...string) string {
		meta := "{name: " + name + ", namespace: infra}"
		if created != "" {
			meta = "{name: " + name + ", namespace: infra, creationTimestamp: '" + created + "'}"
		}
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\nmetadata: " + meta + "\nspec:\n  parentRef: {name: gw}\n  listeners:\n" + strings.Join(listeners, "")
	}
	listener := func(name string, port int) string {
		return fmt.Sprintf("  - {name: %s, protocol: HTTP, port: %d}\n", name, port)
	}
	route := func(parents string) string {
		return "---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: infra}\nspec: {ports: [{port: 80}]}\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: shop, namespace: infra}\nspec:\n  parentRefs: " + parents + "\n  rules:\n  - backendRefs: [{name: web, port: 80}]\n"
	}
	btp := func(name, target, fields string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n  targetRefs: [" + target + "]\n  " + fields + "\n"
	}
	onListener := func(section string) string {
		return "{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: " + section + "}"
	}
	const (
		cb      = "circuitBreaker: {maxConnections: 100}"
		connect = "timeout: {tcp: {connectTimeout: 42s}}"
		proxy   = "  infrastructure: {parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: merge}}\n"
		merging = "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: merge, namespace: infra}\nspec: {mergeBackends: {}}\n"
	)
	two := gateway("", listener("a", 80), listener("b", 81))
	for _, tc := range []struct {
		name  string
		input string
		// from: listener → the listener whose route shaped its cluster
		// ("" its own)
		from map[string]string
		// view: listener → its cluster fields, "key:owner" with
		// ">listener:owner there" for ClusterFrom ("-" none there) and
		// "(only)" for ClusterOnly
		view map[string][]string
	}{
		{"the first listener's policy alone reaches the later one's cluster", class + two + route("[{name: gw}]") + btp("a", onListener("a"), cb),
			map[string]string{"a": "", "b": "a"},
			map[string][]string{"a": {"circuitBreaker:a"}, "b": {"circuitBreaker:a>a:a(only)"}}},
		{"a later listener's policy is not on the cluster", class + two + route("[{name: gw}]") + btp("b", onListener("b"), cb),
			map[string]string{"a": "", "b": "a"},
			map[string][]string{"b": {"circuitBreaker:b>a:-"}}},
		{"the Gateway's on both, a later listener's beside it", class + two + route("[{name: gw}]") + btp("gw", "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}", cb) + btp("b", onListener("b"), cb+"\n  "+connect),
			map[string]string{"a": "", "b": "a"},
			map[string][]string{"a": {"circuitBreaker:gw"}, "b": {"circuitBreaker:b>a:gw", "timeout:b>a:-"}}},
		{"the same policy on both listeners: nothing to say", class + two + route("[{name: gw}]") + btp("gw", "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}", cb),
			map[string]string{"a": "", "b": "a"},
			map[string][]string{"a": {"circuitBreaker:gw"}, "b": {"circuitBreaker:gw"}}},
		{"a route on one listener shapes its own", class + two + route("[{name: gw, sectionName: b}]") + btp("b", onListener("b"), cb),
			map[string]string{"b": ""},
			map[string][]string{"b": {"circuitBreaker:b"}}},
		{"listener order, not name order: the Gateway's b before its ListenerSet's a", class + gateway("", listener("b", 80)) + set("extra", "", listener("a", 81)) +
			route("[{name: gw}, {kind: ListenerSet, name: extra}]") + btp("s", "{group: gateway.networking.k8s.io, kind: ListenerSet, name: extra, sectionName: a}", cb),
			map[string]string{"b": "", "a": "b"},
			map[string][]string{"a": {"circuitBreaker:s>b:-"}}},
		{"ListenerSets by age, then name", class + gateway("", listener("g", 80)) + set("early", "2026-01-02T00:00:00Z", listener("x", 81)) + set("aaa", "2026-03-01T00:00:00Z", listener("y", 82)) +
			route("[{kind: ListenerSet, name: aaa}, {kind: ListenerSet, name: early}]") + btp("y", "{group: gateway.networking.k8s.io, kind: ListenerSet, name: aaa}", cb),
			map[string]string{"x": "", "y": "x"},
			map[string][]string{"y": {"circuitBreaker:y>x:-"}}},
		{"mergeBackends: a route without cluster settings below the Gateway keeps to the backend's", class + gateway(proxy, listener("a", 80), listener("b", 81)) + merging + route("[{name: gw}]") + btp("a", onListener("a"), cb),
			map[string]string{"a": "", "b": ""},
			map[string][]string{"b": nil}},
		{"mergeBackends: the routes with settings below the Gateway share the first one's", class + gateway(proxy, listener("a", 80), listener("b", 81), listener("c", 82)) + merging + route("[{name: gw}]") +
			btp("b", onListener("b"), cb) + btp("c", onListener("c"), connect),
			map[string]string{"a": "", "b": "", "c": "b"},
			map[string][]string{"c": {"timeout:c>b:-", "circuitBreaker:b>b:b(only)"}}},
		{"a controller giving each route its own cluster", strings.Replace(two, "gatewayClassName: eg", "gatewayClassName: other", 1) + route("[{name: gw}]") + btp("b", onListener("b"), cb),
			map[string]string{"a": "", "b": ""},
			map[string][]string{"b": {"circuitBreaker:b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("inline.yaml", []byte(tc.input), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
			var rule *topology.Rule
			byName := map[string]*topology.Listener{}
			for _, rp := range c.Result.Routes {
				rule = rp.Rules[0].Rule
				for _, p := range rp.Route.Parents {
					for _, l := range p.Listeners {
						byName[string(l.Name)] = l
					}
				}
			}
			if len(byName) != len(tc.from) {
				t.Fatalf("the route is served through %d listeners, want %d", len(byName), len(tc.from))
			}
			for name, want := range tc.from {
				l := byName[name]
				got := ""
				if first := c.Result.RuleClusterFrom(rule, nil, l); first != nil {
					got = string(first.Name)
				}
				if got != want {
					t.Errorf("listener %s: cluster from %q, want %q", name, got, want)
				}
			}
			for name, want := range tc.view {
				var got []string
				for _, e := range c.Result.EffectiveOn(rule, nil, byName[name]) {
					if e.Key != "circuitBreaker" && e.Key != "timeout" {
						continue
					}
					s := e.Key + ":" + e.Field.Owner.Policy.Obj.Name
					if cf := e.ClusterFrom; cf != nil {
						there := "-"
						if cf.Field != nil {
							there = cf.Field.Owner.Policy.Obj.Name
						}
						s += ">" + string(cf.Listener.Name) + ":" + there
					}
					if e.ClusterOnly {
						s += "(only)"
					}
					got = append(got, s)
				}
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("listener %s: view %q, want %q", name, got, want)
				}
			}
		})
	}
}
