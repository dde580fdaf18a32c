package cli

import (
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/lint"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/topology"
)

// pathOverrideBase is two Gateways (kgw, egw) serving one HTTPRoute; a
// case adds GatewayClasses and policies.
const pathOverrideBase = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: kgw, namespace: app}
spec:
  gatewayClassName: kg
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: egw, namespace: app}
spec:
  gatewayClassName: eg
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: both, namespace: app}
spec:
  parentRefs: [{name: kgw}, {name: egw}]
  rules: [{matches: [{path: {type: PathPrefix, value: /b}}], backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec: {ports: [{port: 80}]}
`

// pathOverridePolicy is a policy document: kind, metadata (flow map
// body), targetRefs (flow list body) and spec lines.
func pathOverridePolicy(group, kind, meta, targets, spec string) string {
	return "---\napiVersion: " + group + "\nkind: " + kind + "\nmetadata: {" + meta + "}\nspec:\n  targetRefs: [" + targets + "]\n" + spec
}

const (
	toRoute  = "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: both}"
	toKGW    = "{group: gateway.networking.k8s.io, kind: Gateway, name: kgw}"
	toEGW    = "{group: gateway.networking.k8s.io, kind: Gateway, name: egw}"
	egGroup  = "gateway.envoyproxy.io/v1alpha1"
	kgwGroup = "gateway.kgateway.dev/v1alpha1"
)

// TestPathOverrideAcrossFamilies: on a Gateway that takes every kind (no
// GatewayClass, or one naming no controller gwpol knows), a field of a
// kgateway kind and one of an Envoy Gateway kind that write one Envoy
// path are decided once (merge.PathOverride: level, then age, then
// namespace/name): render emits the winner alone, explain shows the
// loser overridden on that path by the winner, lint reports it (GWP307),
// and the explain/render ownership check holds. On a Gateway a known
// controller serves, its own family's kinds alone apply, and nothing is
// overridden. The first three are fz37's shapes (/tmp/fz37: the
// fuzzer's input, and its timeout and retry siblings without
// GatewayClasses).
func TestPathOverrideAcrossFamilies(t *testing.T) {
	classes := func(kgController string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: kg}\nspec: {" + kgController + "}\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n"
	}
	btTimeout := pathOverridePolicy(egGroup, "BackendTrafficPolicy", "name: bt, namespace: app", toRoute+", "+toKGW, "  timeout: {http: {requestTimeout: 7s}}\n")
	tpTimeout := pathOverridePolicy(kgwGroup, "TrafficPolicy", "name: tp, namespace: app", toRoute+", "+toEGW, "  timeouts: {request: 9s}\n")
	type want struct {
		gateway string
		// timeout and retries on the Envoy route ("" / -1: unset)
		timeout string
		retries int
		// loser is "Kind#field" explain shows overridden, "" for none
		loser, winner, rule string
	}
	for _, tc := range []struct {
		name, input string
		want        []want
	}{
		{"fuzzer's input: the kgateway class names no controller (cootrollerName)",
			classes("cootrollerName: kgateway.dev/kgateway") + btTimeout + tpTimeout,
			[]want{
				{gateway: "kgw", timeout: "7s", retries: -1, loser: "TrafficPolicy#timeouts", winner: "BackendTrafficPolicy#timeout", rule: "name"},
				// egw is Envoy Gateway's: the TrafficPolicy does not apply there
				{gateway: "egw", timeout: "7s", retries: -1},
			}},
		{"timeout, no GatewayClass", btTimeout + tpTimeout,
			[]want{
				{gateway: "kgw", timeout: "7s", retries: -1, loser: "TrafficPolicy#timeouts", winner: "BackendTrafficPolicy#timeout", rule: "name"},
				{gateway: "egw", timeout: "7s", retries: -1, loser: "TrafficPolicy#timeouts", winner: "BackendTrafficPolicy#timeout", rule: "name"},
			}},
		{"retry, no GatewayClass",
			pathOverridePolicy(egGroup, "BackendTrafficPolicy", "name: bt, namespace: app", toRoute+", "+toKGW, "  retry: {numRetries: 2}\n") +
				pathOverridePolicy(kgwGroup, "TrafficPolicy", "name: tp, namespace: app", toRoute+", "+toEGW, "  retry: {attempts: 5}\n"),
			[]want{
				{gateway: "kgw", retries: 2, loser: "TrafficPolicy#retry", winner: "BackendTrafficPolicy#retry", rule: "name"},
				{gateway: "egw", retries: 2, loser: "TrafficPolicy#retry", winner: "BackendTrafficPolicy#retry", rule: "name"},
			}},
		{"the name decides the other way",
			pathOverridePolicy(egGroup, "BackendTrafficPolicy", "name: z-bt, namespace: app", toRoute, "  timeout: {http: {requestTimeout: 7s}}\n") +
				pathOverridePolicy(kgwGroup, "TrafficPolicy", "name: a-tp, namespace: app", toRoute, "  timeouts: {request: 9s}\n"),
			[]want{{gateway: "kgw", timeout: "9s", retries: -1, loser: "BackendTrafficPolicy#timeout", winner: "TrafficPolicy#timeouts", rule: "name"}}},
		{"the older policy wins before the name",
			pathOverridePolicy(egGroup, "BackendTrafficPolicy", "name: bt, namespace: app, creationTimestamp: '2026-01-02T00:00:00Z'", toRoute, "  timeout: {http: {requestTimeout: 7s}}\n") +
				pathOverridePolicy(kgwGroup, "TrafficPolicy", "name: tp, namespace: app, creationTimestamp: '2026-01-01T00:00:00Z'", toRoute, "  timeouts: {request: 9s}\n"),
			[]want{{gateway: "kgw", timeout: "9s", retries: -1, loser: "BackendTrafficPolicy#timeout", winner: "TrafficPolicy#timeouts", rule: "age"}}},
		{"the more specific level wins before age: a route's TrafficPolicy over a Gateway's BackendTrafficPolicy",
			pathOverridePolicy(egGroup, "BackendTrafficPolicy", "name: bt, namespace: app, creationTimestamp: '2020-01-01T00:00:00Z'", toKGW, "  timeout: {http: {requestTimeout: 7s}}\n") +
				pathOverridePolicy(kgwGroup, "TrafficPolicy", "name: tp, namespace: app", toRoute, "  timeouts: {request: 9s}\n"),
			[]want{{gateway: "kgw", timeout: "9s", retries: -1, loser: "BackendTrafficPolicy#timeout", winner: "TrafficPolicy#timeouts", rule: "level"}}},
		{"a route's BackendTrafficPolicy over a Gateway's TrafficPolicy, whose timeout would fill the route's",
			pathOverridePolicy(egGroup, "BackendTrafficPolicy", "name: z, namespace: app", toRoute, "  timeout: {http: {requestTimeout: 7s}}\n") +
				pathOverridePolicy(kgwGroup, "TrafficPolicy", "name: a, namespace: app, creationTimestamp: '2020-01-01T00:00:00Z'", toKGW, "  timeouts: {request: 9s, streamIdle: 30s}\n"),
			[]want{{gateway: "kgw", timeout: "7s", retries: -1, loser: "TrafficPolicy#timeouts", winner: "BackendTrafficPolicy#timeout", rule: "level"}}},
		{"different paths do not conflict: one's timeout beside the other's retry",
			pathOverridePolicy(egGroup, "BackendTrafficPolicy", "name: bt, namespace: app", toRoute, "  retry: {numRetries: 2}\n") +
				pathOverridePolicy(kgwGroup, "TrafficPolicy", "name: tp, namespace: app", toRoute, "  timeouts: {request: 9s}\n"),
			[]want{{gateway: "kgw", timeout: "9s", retries: 2}}},
		{"a Gateway kgateway serves reads its own kinds alone: nothing to decide",
			classes("controllerName: kgateway.dev/kgateway") + btTimeout + tpTimeout,
			[]want{
				{gateway: "kgw", timeout: "9s", retries: -1},
				{gateway: "egw", timeout: "7s", retries: -1},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("input.yaml", []byte(pathOverrideBase+tc.input), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.Compile(&manifest.Set{Objects: objs}, &Config{Namespace: "default"})
			out, err := renderCompiled(c, "envoy", false)
			if err != nil {
				t.Fatal(err)
			}
			checkOwnership(t, c, out, "envoy", map[string][]string{})
			rt := c.Graph.Route("HTTPRoute", "app", "both")
			if rt == nil {
				t.Fatal("route not built")
			}
			lrep := lint.Run(&lint.Input{Result: c.Result, Stage: c.Diagnostics()}, lint.Config{})
			for _, w := range tc.want {
				r := pathOverrideRoute(t, out.Gateways, w.gateway)
				if got := durationText(r.GetRoute().GetTimeout()); got != w.timeout {
					t.Errorf("%s: route.timeout %q, want %q", w.gateway, got, w.timeout)
				}
				got := -1
				if rp := r.GetRoute().GetRetryPolicy(); rp != nil {
					got = int(rp.GetNumRetries().GetValue())
				}
				if got != w.retries {
					t.Errorf("%s: route.retry_policy.num_retries %d, want %d", w.gateway, got, w.retries)
				}
				var l *topology.Listener
				for _, gw := range c.Graph.Gateways {
					if gw.Name == w.gateway {
						l = gw.Listeners[0]
					}
				}
				view := explain.RuleOn(c.Result, rt, rt.Rules[0], nil, l, explain.Options{})
				var losers []string
				for _, f := range view.Fields {
					if o := f.OverriddenBy; o != nil {
						kind := f.PolicyKind[strings.LastIndex(f.PolicyKind, "/")+1:]
						losers = append(losers, kind+"#"+f.Field)
						okind := o.PolicyKind[strings.LastIndex(o.PolicyKind, "/")+1:]
						if okind+"#"+o.Field != w.winner || o.Rule != w.rule {
							t.Errorf("%s: explain: %s overridden by %s#%s (%s), want %s (%s)", w.gateway, kind+"#"+f.Field, okind, o.Field, o.Rule, w.winner, w.rule)
						}
					}
				}
				if strings.Join(losers, ",") != w.loser {
					t.Errorf("%s: explain shows %v overridden, want %q", w.gateway, losers, w.loser)
				}
				if w.loser != "" && !pathOverrideLinted(lrep, w.loser, w.gateway) {
					t.Errorf("%s: lint reports no GWP307 naming %s", w.gateway, w.loser)
				}
			}
		})
	}
}

// pathOverrideRoute is the one Envoy route of Gateway app/name.
func pathOverrideRoute(t *testing.T, gws []*envoy.Gateway, name string) *routev3.Route {
	t.Helper()
	for _, g := range gws {
		if g.Name != name {
			continue
		}
		for _, rc := range g.RouteConfigurations {
			for _, vh := range rc.VirtualHosts {
				for _, r := range vh.Routes {
					if strings.Contains(r.Name, "httproute-both-app") {
						return r
					}
				}
			}
		}
	}
	t.Fatalf("no Envoy route of HTTPRoute app/both on Gateway app/%s", name)
	return nil
}

// durationText is a duration as the test's inputs write it ("" unset).
func durationText(d *durationpb.Duration) string {
	if d == nil {
		return ""
	}
	return d.AsDuration().String()
}

// pathOverrideLinted reports whether lint names the loser ("Kind#field")
// under GWP307 on a listener of Gateway app/gateway.
func pathOverrideLinted(rep *lint.Report, loser, gateway string) bool {
	kind, field, _ := strings.Cut(loser, "#")
	for _, d := range rep.Diagnostics {
		if d.Code == lint.FieldOverriddenAcrossFamilies.Code && strings.Contains(d.Message, field+" of ") && strings.Contains(d.Message, "/"+kind+"/") &&
			strings.Contains(d.Message, "on listener app/"+gateway+"/") {
			return true
		}
	}
	return false
}
