package explain_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/topology"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		in, ns  string
		want    explain.TargetSpec
		wantErr bool
	}{
		{"httproute/shop/orders", "", explain.TargetSpec{Kind: "HTTPRoute", Namespace: "shop", Name: "orders"}, false},
		{"HTTPRoutes/shop/orders/#1", "", explain.TargetSpec{Kind: "HTTPRoute", Namespace: "shop", Name: "orders", Section: "#1"}, false},
		{"hr/orders", "shop", explain.TargetSpec{Kind: "HTTPRoute", Namespace: "shop", Name: "orders"}, false},
		{"httproute/orders/create", "shop", explain.TargetSpec{Kind: "HTTPRoute", Namespace: "shop", Name: "orders", Section: "create"}, false},
		{"gw/infra/public/https", "", explain.TargetSpec{Kind: "Gateway", Namespace: "infra", Name: "public", Section: "https"}, false},
		{"grpcroutes/payments/ledger-api", "", explain.TargetSpec{Kind: "GRPCRoute", Namespace: "payments", Name: "ledger-api"}, false},
		{"tcproutes/db/postgres", "", explain.TargetSpec{Kind: "TCPRoute", Namespace: "db", Name: "postgres"}, false},
		{"TLSRoute/orders/#0", "db", explain.TargetSpec{Kind: "TLSRoute", Namespace: "db", Name: "orders", Section: "#0"}, false},
		{"udproutes/infra/dns", "", explain.TargetSpec{Kind: "UDPRoute", Namespace: "infra", Name: "dns"}, false},
		{"service/shop/orders:8080", "", explain.TargetSpec{Kind: "Service", Namespace: "shop", Name: "orders", Section: "8080"}, false},
		{"svc/orders:http", "shop", explain.TargetSpec{Kind: "Service", Namespace: "shop", Name: "orders", Section: "http"}, false},
		{"services/shop/orders", "", explain.TargetSpec{Kind: "Service", Namespace: "shop", Name: "orders"}, false},
		{"backend/infra/orders-fn", "", explain.TargetSpec{Kind: "Backend", Namespace: "infra", Name: "orders-fn"}, false},
		{"service/shop/:8080", "", explain.TargetSpec{}, true},
		{"deployment/x/y", "", explain.TargetSpec{}, true},
		{"httproute/orders", "", explain.TargetSpec{}, true},
		{"httproute", "", explain.TargetSpec{}, true},
	}
	if _, err := explain.ParseTarget("httproute/orders", ""); err == nil || !strings.Contains(err.Error(), "or -n NAMESPACE") {
		t.Errorf("httproute/orders without -n: %v, want a hint at -n", err)
	}
	for _, tt := range tests {
		got, err := explain.ParseTarget(tt.in, tt.ns)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v", tt.in, err)
			continue
		}
		if err != nil && diag.KindOf(err) != diag.Usage {
			t.Errorf("%s: %v is not a usage error", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestPolicyKindOf(t *testing.T) {
	reg := families.Registry()
	tests := []struct {
		target, want string
	}{
		{"trafficpolicy/a/b", "TrafficPolicy"},
		{"TrafficPolicies/a/b", "TrafficPolicy"},
		{"haproxyroutepolicy/b", "HAProxyRoutePolicy"},
		{"apipolicies/a/b", "APIPolicy"},
		{"restapis/a/b", "RestApi"},
		{"httproute/a/b", ""},
		{"policy/a/b", ""},
	}
	for _, tt := range tests {
		k, ok := explain.PolicyKindOf(tt.target, reg)
		got := ""
		if ok {
			got = k.GroupKind().Kind
		}
		if got != tt.want {
			t.Errorf("PolicyKindOf(%q) = %q, want %q", tt.target, got, tt.want)
		}
	}
}

// compileFile compiles one manifest file with the test settings.
func compileFile(t *testing.T, path string) *pipeline.Compiled {
	t.Helper()
	set, err := manifest.Load([]string{path}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return families.Compile(set, &pipeline.Config{Namespace: "default"})
}

// TestExplainResolvesTargets: a target that is in the input is explained
// (a route on every listener serving each rule, a rule by name or #N); one
// that is not is a not-found error naming the nearest; an unknown --field
// and a malformed policy reference are usage errors.
func TestExplainResolvesTargets(t *testing.T) {
	c := compileFile(t, "../../testdata/explain/deep-merge.yaml")
	for _, tt := range []struct {
		target  explain.TargetSpec
		targets int
		err     diag.Kind
		msg     string
	}{
		{explain.TargetSpec{Kind: "HTTPRoute", Namespace: "app", Name: "api"}, 1, "", ""},
		{explain.TargetSpec{Kind: "HTTPRoute", Namespace: "app", Name: "api", Section: "admin"}, 1, "", ""},
		{explain.TargetSpec{Kind: "HTTPRoute", Namespace: "app", Name: "api", Section: "#0"}, 1, "", ""},
		{explain.TargetSpec{Kind: "Gateway", Namespace: "infra", Name: "gw"}, 1, "", ""},
		{explain.TargetSpec{Kind: "HTTPRoute", Namespace: "app", Name: "apj"}, 0, diag.NotFound, `HTTPRoute app/apj not found; did you mean "app/api"?`},
		{explain.TargetSpec{Kind: "HTTPRoute", Namespace: "app", Name: "api", Section: "admn"}, 0, diag.NotFound, `section admn not found; did you mean "admin"?`},
		{explain.TargetSpec{Kind: "Gateway", Namespace: "infra", Name: "gw", Section: "htp"}, 0, diag.NotFound, `did you mean "http"?`},
		// The name exists, in another namespace: say which, and -n.
		{explain.TargetSpec{Kind: "HTTPRoute", Namespace: "default", Name: "api"}, 0, diag.NotFound, `HTTPRoute api not found in namespace default; it is in namespace app: add -n app (or name it httproute/app/api)`},
	} {
		rep, err := explain.Explain(c.Result, tt.target, explain.Options{})
		if tt.err == "" {
			if err != nil || len(rep.Targets) != tt.targets {
				t.Errorf("%+v: %v, %d targets, want %d", tt.target, err, len(rep.Targets), tt.targets)
			}
			continue
		}
		if diag.KindOf(err) != tt.err || err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%+v: error %v, want %s %q", tt.target, err, tt.err, tt.msg)
		}
	}
	if err := explain.CheckField("retyr", c.Result.Registry); diag.KindOf(err) != diag.Usage || !strings.Contains(err.Error(), `did you mean "retry"?`) {
		t.Errorf("CheckField(retyr) = %v", err)
	}
	if err := explain.CheckField("rateLimit", c.Result.Registry); err != nil {
		t.Errorf("CheckField(rateLimit) = %v: a parent of rateLimit.local is a field", err)
	}
	p, err := explain.LookupPolicy(c.Model, c.Result.Registry, c.Policies, "trafficpolicy/vpn", "app")
	if err != nil || p.Obj.Name != "vpn" {
		t.Errorf("LookupPolicy with -n: %v", err)
	}
	if _, err := explain.LookupPolicy(c.Model, c.Result.Registry, c.Policies, "trafficpolicy/vpn", ""); diag.KindOf(err) != diag.Usage {
		t.Errorf("LookupPolicy without a namespace: %v, want a usage error", err)
	}
	if _, err := explain.LookupPolicy(c.Model, c.Result.Registry, c.Policies, "trafficpolicies/app/vnp", ""); diag.KindOf(err) != diag.NotFound || !strings.Contains(err.Error(), `did you mean "app/vpn"?`) {
		t.Errorf("LookupPolicy of a misspelled name: %v", err)
	}
}

// TestNotesAskTheKinds: a rule's notes carry what a kind adds through
// policy.RuleNoter — WSO2's chain for a rule its APIPolicies reach.
func TestNotesAskTheKinds(t *testing.T) {
	c := compileFile(t, "../../testdata/wso2/platform")
	rt := c.Graph.Route("HTTPRoute", "demo", "hello")
	if rt == nil {
		t.Fatal("HTTPRoute demo/hello not in the graph")
	}
	notes := explain.Notes(c.Result)(rt, rt.Rules[0], nil)
	if len(notes) == 0 || !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, "WSO2 policy chain (") }) {
		t.Errorf("notes of demo/hello rule 0 lack the WSO2 chain:\n%s", strings.Join(notes, "\n"))
	}
	rep, err := explain.Explain(c.Result, explain.TargetSpec{Kind: "HTTPRoute", Namespace: "demo", Name: "hello", Section: rt.Rules[0].Section()}, explain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range rep.Targets {
		if !slices.Equal(tg.Notes[len(tg.Notes)-len(notes):], notes) {
			t.Errorf("Explain's notes do not end with Notes':\n%s", strings.Join(tg.Notes, "\n"))
		}
	}
}

// TestExplainStreamRoutes: a TCPRoute or TLSRoute rule lists no field —
// the Gateway's TrafficPolicy does not reach its connections — and says
// whether its listener programs it, as render and lint (GWP213) do.
func TestExplainStreamRoutes(t *testing.T) {
	for _, tt := range []struct {
		input, ns, name, listener, note string
	}{
		// a TrafficPolicy on the whole Gateway sets timeouts
		{"../../testdata/explain/tcp-listener/input.yaml", "infra", "pg", "infra/l4/postgres", "proxied as bytes (tcp_proxy)"},
		{"../../testdata/render/tcproute/input.yaml", "db", "postgres-late", "infra/gw/postgres", "carries no connection (GWP213): a TCP listener serves one route, the oldest"},
	} {
		c := compileFile(t, tt.input)
		rep, err := explain.Explain(c.Result, explain.TargetSpec{Kind: "TCPRoute", Namespace: tt.ns, Name: tt.name}, explain.Options{})
		if err != nil || len(rep.Targets) != 1 {
			t.Fatalf("%s: %v, %+v", tt.name, err, rep)
		}
		got := rep.Targets[0]
		if len(got.Fields) != 0 || got.Listener != tt.listener || len(got.Notes) != 1 || !strings.Contains(got.Notes[0], tt.note) {
			t.Errorf("%s: fields %v, listener %q, notes %q; want no field, %s, a note with %q", tt.name, got.Fields, got.Listener, got.Notes, tt.listener, tt.note)
		}
	}
}

// TestPolicyFailingOpen: a policy invalid only in parts that fail open is
// reported not accepted, with its problem, yet its fields take part where
// it attaches, as render applies them.
func TestPolicyFailingOpen(t *testing.T) {
	c := compileFile(t, "../../testdata/explain/failopen-extproc.yaml")
	p := c.Policies.Get(model.Key{Group: "gateway.envoyproxy.io", Kind: "EnvoyExtensionPolicy", Namespace: "default", Name: "procs"})
	if p == nil {
		t.Fatal("policy not decoded")
	}
	rep := explain.Policy(c.Result, p)
	if rep.Accepted || !rep.PartlyApplied {
		t.Errorf("accepted %v, partly applied %v; want not accepted, partly applied", rep.Accepted, rep.PartlyApplied)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "service default/gone not found") {
		t.Errorf("problems %v", rep.Problems)
	}
	if len(rep.Targets) != 1 || rep.Targets[0].Invalid || len(rep.Targets[0].Fields) != 1 || rep.Targets[0].Fields[0].Field != "extProc" || rep.Targets[0].Fields[0].Outcome != "won" {
		t.Errorf("targets %+v, want the route rule with extProc won", rep.Targets)
	}
}

// TestAbsentSaysWhyTheAPIServerRefusedIt: a target the input holds but
// the model left out, as the API server refuses it (a version its CRD
// does not serve, a name it refuses), is not found with the refusal's
// position and message instead of a nearest name; one of another name
// still gets the nearest.
func TestAbsentSaysWhyTheAPIServerRefusedIt(t *testing.T) {
	const input = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: c
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1alpha9
kind: HTTPRoute
metadata: {name: old, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: infra}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: Bad_Name, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: infra}]
`
	objs, err := manifest.Parse("in.yaml", []byte(input), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
	for _, tt := range []struct {
		name, want string
	}{
		{"old", "HTTPRoute app/old is in the input but the API server refuses it, so a cluster never holds it and gwpol leaves it out: in.yaml:8:"},
		{"Bad_Name", "HTTPRoute app/Bad_Name is in the input but the API server refuses it"},
		{"olt", `HTTPRoute app/olt not found`},
	} {
		_, err := explain.Explain(c.Result, explain.TargetSpec{Kind: "HTTPRoute", Namespace: "app", Name: tt.name}, explain.Options{})
		if diag.KindOf(err) != diag.NotFound || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want a not-found error with %q", tt.name, err, tt.want)
		}
	}
}

// TestNotesPerGateway: a rule's notes name only the policies that take
// part where the rule is served — a HAProxyRoutePolicy a rule's
// ExtensionRef names has a runtime identity on HAPTIC's Gateway, and none
// on kgateway's, which does not resolve the kind (the rule answers 500
// there).
func TestNotesPerGateway(t *testing.T) {
	c := compileFile(t, "../../testdata/explain/extensionref-other-controller/input.yaml")
	rt := c.Graph.Route("HTTPRoute", "app", "web")
	if rt == nil {
		t.Fatal("HTTPRoute app/web not in the graph")
	}
	notes := explain.Notes(c.Result)
	for _, tc := range []struct {
		gw       string
		identity bool
	}{{"kgw", false}, {"hgw", true}, {"", true}} {
		var gw *topology.Gateway
		if tc.gw != "" {
			gw = c.Graph.Gateway("app", tc.gw)
		}
		got := slices.ContainsFunc(notes(rt, rt.Rules[0], gw), func(n string) bool { return strings.HasPrefix(n, "runtime identity of this rule") })
		if got != tc.identity {
			t.Errorf("Gateway %q: a runtime identity note %v, want %v", tc.gw, got, tc.identity)
		}
	}
}
