package explain_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
)

// TestRuleView checks the effective view of one rule: own fields with
// their level and strategy, deep-merge contributors, losers, and fields
// inherited from the Gateway with what the route shadows.
func TestRuleView(t *testing.T) {
	data, err := os.ReadFile("../../testdata/explain/deep-merge.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gw := `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: edge, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  timeouts: {request: 60s}
  retry: {attempts: 1}
`
	objs, err := manifest.Parse("t.yaml", append(data, gw...), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
	rt := c.Graph.Route("HTTPRoute", "app", "api")
	got := explain.Rule(c.Result, rt, rt.Rules[0], rt.Parents[0].Listeners[0], explain.Options{})
	type row struct {
		Field, Owner, Level, Strategy string
		Contributors, Lost, Shadowed  []string
		Inherited                     bool
	}
	var rows []row
	for _, f := range got.Fields {
		rows = append(rows, row{f.Field, f.Owner, f.Level, f.Strategy, f.Contributors, f.Overridden, f.Shadowed, f.Inherited})
	}
	id := func(ns, n string) string { return "gateway.kgateway.dev/TrafficPolicy/" + ns + "/" + n }
	want := []row{
		{"timeouts", id("app", "admin-timeouts"), "rule", "AugmentedShallow", []string{id("app", "admin-timeouts")}, []string{id("app", "office-network")}, []string{id("infra", "edge")}, false},
		{"retry", id("infra", "edge"), "gateway", "AugmentedShallow", []string{id("infra", "edge")}, []string{}, nil, true},
		{"httpACL", id("app", "office-network"), "route", "AugmentedDeep", []string{id("app", "office-network"), id("app", "vpn")}, []string{}, nil, false},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if only := explain.Rule(c.Result, rt, rt.Rules[0], rt.Parents[0].Listeners[0], explain.Options{Field: "retry"}); len(only.Fields) != 1 {
		t.Errorf("--field retry gave %d fields", len(only.Fields))
	}
}

// TestRuleOwnFieldsWin: a rule's own timeouts and retry (HTTPRoute spec)
// own those fields ahead of every policy, on the rule itself and, through
// delegation, on child routes (regression: explain named the policy).
func TestRuleOwnFieldsWin(t *testing.T) {
	const in = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: own, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules:
  - backendRefs: [{name: svc, port: 80}]
    timeouts: {request: 5s}
    retry: {attempts: 2}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: parent, namespace: infra}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  hostnames: [parent.example.com]
  rules:
  - matches: [{path: {type: PathPrefix, value: /a}}]
    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: child, namespace: app}]
    retry: {attempts: 3}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: child, namespace: app}
spec:
  rules:
  - matches: [{path: {type: PathPrefix, value: /a/1}}]
    backendRefs: [{name: svc, port: 80}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: pol, namespace: app}
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: own}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: child}
  timeouts: {request: 2s, streamIdle: 30s}
  retry: {attempts: 4}
`
	objs, err := manifest.Parse("t.yaml", []byte(in), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
	type row struct {
		Field, Owner, Level          string
		Contributors, Lost, Shadowed []string
	}
	pol := "gateway.kgateway.dev/TrafficPolicy/app/pol"
	tests := []struct {
		route string
		want  []row
	}{
		{"own", []row{
			// the rule's request timeout wins; the policy's streamIdle stays
			{"timeouts", "HTTPRoute app/own rule #0 (built-in)", "rule", []string{"HTTPRoute app/own rule #0 (built-in)", pol}, []string{}, nil},
			{"retry", "HTTPRoute app/own rule #0 (built-in)", "rule", []string{"HTTPRoute app/own rule #0 (built-in)"}, []string{pol}, nil},
		}},
		{"child", []row{
			{"timeouts", pol, "route", []string{pol}, []string{}, nil},
			// the delegating parent's own retry beats the child's policy
			{"retry", "HTTPRoute infra/parent rule #0 (built-in)", "parent-route infra/parent rule #0", []string{"HTTPRoute infra/parent rule #0 (built-in)"}, []string{pol}, nil},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.route, func(t *testing.T) {
			rt := c.Graph.Route("HTTPRoute", "app", tt.route)
			got := explain.Rule(c.Result, rt, rt.Rules[0], c.Graph.Gateway("infra", "gw").Listeners[0], explain.Options{})
			var rows []row
			for _, f := range got.Fields {
				rows = append(rows, row{f.Field, f.Owner, f.Level, f.Contributors, f.Overridden, f.Shadowed})
			}
			if diff := cmp.Diff(tt.want, rows); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOtherProviderStaysInEffect: ext_authz is one Envoy filter per
// provider, so a route policy naming another provider leaves the
// Gateway's running beside it (render keeps both enabled, as kgateway
// does), while a route-level disable hides it (regression: explain called
// the Gateway's provider shadowed in both cases).
func TestOtherProviderStaysInEffect(t *testing.T) {
	const in = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: v1
kind: Service
metadata: {name: authz, namespace: infra}
spec: {ports: [{port: 9000}]}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: gw-auth, namespace: infra}
spec: {type: ExtAuth, extAuth: {httpService: {backendRef: {name: authz, port: 9000}}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: route-auth, namespace: infra}
spec: {type: ExtAuth, extAuth: {httpService: {backendRef: {name: authz, port: 9000}}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - {name: other, backendRefs: [{name: authz, port: 9000}]}
  - {name: off, backendRefs: [{name: authz, port: 9000}]}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: edge, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  extAuth: {extensionRef: {name: gw-auth}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: other, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: other}]
  extAuth: {extensionRef: {name: route-auth}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: off, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: off}]
  extAuth: {disable: {}}
`
	objs, err := manifest.Parse("t.yaml", []byte(in), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
	rt := c.Graph.Route("HTTPRoute", "infra", "r")
	edge := []string{"gateway.kgateway.dev/TrafficPolicy/infra/edge"}
	tests := []struct {
		rule             int
		owner            string
		shadowed, beside []string
	}{
		{0, "gateway.kgateway.dev/TrafficPolicy/infra/other", nil, edge},
		{1, "gateway.kgateway.dev/TrafficPolicy/infra/off", edge, nil},
	}
	for _, tt := range tests {
		got := explain.Rule(c.Result, rt, rt.Rules[tt.rule], rt.Parents[0].Listeners[0], explain.Options{Field: "extAuth"})
		if len(got.Fields) != 1 {
			t.Fatalf("rule %d: want one extAuth field, got %+v", tt.rule, got.Fields)
		}
		f := got.Fields[0]
		if diff := cmp.Diff([]any{tt.owner, tt.shadowed, tt.beside}, []any{f.Owner, f.Shadowed, f.AlsoInEffect}); diff != "" {
			t.Errorf("rule %d owner/shadowed/alsoInEffect (-want +got):\n%s", tt.rule, diff)
		}
	}
}

// TestReplacedNote: an invalid policy merging into a rule replaces its
// route with a 500, and explain says so in the serving controller's words:
// kgateway replaces all the route configures (nothing listed applies);
// Envoy Gateway answers 500.
func TestReplacedNote(t *testing.T) {
	const base = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: CLASS
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: infra}
spec: {ports: [{port: 80}]}
`
	tests := []struct {
		name, class, policies, want string
	}{
		{"kgateway", "kgateway", `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: good, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  retry: {attempts: 2}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: bad, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  timeouts: {request: soon}
`, "replaced by a direct response (500): the invalid policy gateway.kgateway.dev/TrafficPolicy/infra/bad merges here, so none of the fields listed take effect (kgateway replaces what an invalid policy configures)"},
		{"Envoy Gateway", "eg", "---\n" + egClass + `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyExtensionPolicy
metadata: {name: bad, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  lua: [{type: Inline, inline: "function envoy_on_request(h) end end"}]
`, "replaced by a direct response (500): the invalid policy gateway.envoyproxy.io/EnvoyExtensionPolicy/infra/bad merges here, and gateway.envoyproxy.io/gatewayclass-controller answers 500 on the routes an invalid policy applies to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Replace(base, "CLASS", tt.class, 1) + tt.policies
			objs, err := manifest.Parse("t.yaml", []byte(in), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
			rt := c.Graph.Route("HTTPRoute", "infra", "r")
			got := explain.Rule(c.Result, rt, rt.Rules[0], rt.Parents[0].Listeners[0], explain.Options{})
			if diff := cmp.Diff([]string{tt.want}, got.Notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMatchField(t *testing.T) {
	tests := []struct {
		key, want string
		match     bool
	}{
		{"rateLimit.local", "", true},
		{"rateLimit.local", "rateLimit", true},
		{"rateLimit.local", "rateLimit.local", true},
		{"rateLimit.local", "rate", false},
		{"timeouts", "timeout", false},
		{"cors", "cors.x", false},
		{"perPortPolicy[8080]", "perPortPolicy", true}, // a field family: every port's
		{"perPortPolicy[8080]", "perPortPolicy[80]", false},
	}
	for _, tt := range tests {
		if got := explain.MatchField(tt.key, tt.want); got != tt.match {
			t.Errorf("MatchField(%q, %q) = %v, want %v", tt.key, tt.want, got, tt.match)
		}
	}
}

// TestRefusedRoutePolicyYieldsToTheGateway: an Envoy Gateway
// SecurityPolicy that validateSecurityPolicy refuses on its route is not
// translated there (processSecurityPolicyForRoute returns), so the route
// takes its Gateway's SecurityPolicy and is not answered 500; a policy
// refused by its builders (a missing Secret) still answers 500.
func TestRefusedRoutePolicyYieldsToTheGateway(t *testing.T) {
	base := egRoute + `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: gw-sp, namespace: app}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  cors: {allowOrigins: ["https://a.example.com"]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: route-sp, namespace: app}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
`
	tests := []struct {
		name, routePolicy string
		owner             string
		status            int
	}{
		{"refused by validateSecurityPolicy: the Gateway's applies",
			"  oidc: {provider: {issuer: 'https://idp.example.com'}, clientID: c, clientSecret: {name: s}, passThroughAuthHeader: true}\n",
			"gateway.envoyproxy.io/SecurityPolicy/app/gw-sp", 0},
		{"refused by a builder: the route answers 500",
			"  basicAuth: {users: {name: missing}}\n",
			"", 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := manifest.Parse("t.yaml", []byte(base+tt.routePolicy), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
			rt := c.Graph.Route("HTTPRoute", "app", "r")
			got := explain.Rule(c.Result, rt, rt.Rules[0], c.Graph.Gateway("app", "gw").Listeners[0], explain.Options{})
			owner := ""
			for _, f := range got.Fields {
				if f.Field == "cors" {
					owner = f.Owner
				}
			}
			answers := got.FixedStatus
			if slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "replaced by a direct response (500)") }) {
				answers = 500
			}
			if tt.owner != "" && owner != tt.owner || answers != tt.status {
				t.Errorf("cors from %q, answers %d; want from %q, answers %d (notes %v)", owner, answers, tt.owner, tt.status, got.Notes)
			}
		})
	}
}
