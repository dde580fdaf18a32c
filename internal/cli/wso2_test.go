package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	extprocv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_proc/v3"
	"github.com/google/go-cmp/cmp"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	goldenfile "github.com/gwpol/gwpol/internal/golden"
	"github.com/gwpol/gwpol/internal/linttest"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/wso2"
	"github.com/gwpol/gwpol/internal/topology"
)

// wso2Dir holds the WSO2 fixtures: shared policy definitions (defs/) and
// engine build (build-manifest.yaml), one lint case per code (lint/), and
// a Gateway API platform with APIPolicies (platform/).
const wso2Dir = "../../testdata/wso2"

func wso2Path(p string) string { return filepath.Join(wso2Dir, p) }

// mainWSO2 runs the CLI in memory.
func mainWSO2(args ...string) (stdout, stderr string, code int) {
	ios, out, errOut := Test("", false)
	code = Main(args, ios)
	return out.String(), errOut.String(), code
}

type lintJSON struct {
	Diagnostics []struct {
		Code     string `json:"code"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
		Field    string `json:"field"`
		File     string `json:"file"`
		Line     int    `json:"line"`
		Column   int    `json:"column"`
	} `json:"diagnostics"`
	Summary map[string]int `json:"summary"`
	Skipped []string       `json:"skipped"`
}

func lintWSO2(t *testing.T, args ...string) (lintJSON, int) {
	t.Helper()
	out, errOut, code := mainWSO2(append([]string{"lint", "-o", "json"}, args...)...)
	var rep lintJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("lint %v: exit %d, %v\nstdout: %s\nstderr: %s", args, code, err, out, errOut)
	}
	return rep, code
}

// TestWSO2LintWants runs lint on each case and checks that it finds
// exactly the findings the fixtures' `# want` comments name, at those
// lines (linttest): extra findings and missing ones both fail.
func TestWSO2LintWants(t *testing.T) {
	defs, engine := wso2Path("defs"), wso2Path("build-manifest.yaml")
	type tc struct {
		name string
		args []string
		scan []string // files whose # want comments are the expectation
	}
	var cases []tc
	lintCases, _ := filepath.Glob(wso2Path("lint/*.yaml"))
	if len(lintCases) < 6 {
		t.Fatalf("expected the GWP501–GWP506 cases in %s, found %v", wso2Path("lint"), lintCases)
	}
	for _, f := range lintCases {
		cases = append(cases, tc{name: filepath.Base(f), args: []string{"-f", f, "--policy-definitions", defs, "--engine-manifest", engine}, scan: []string{f}})
	}
	notSemver := wso2Path("defs-notsemver")
	cases = append(cases,
		tc{name: "507-definition-version", args: []string{"-f", wso2Path("notsemver/apis.yaml"), "--policy-definitions", notSemver, "--engine-manifest", engine},
			scan: []string{wso2Path("notsemver/apis.yaml"), wso2Path("defs-notsemver/rewrite/policy-definition.yaml"),
				wso2Path("defs-notsemver/host-rewrite/policy-definition.yaml"), wso2Path("defs-notsemver/set-headers/policy-definition.yaml"),
				wso2Path("defs-notsemver/multi-doc/policy-definition.yaml")}},
		tc{name: "system-policies", args: []string{"-f", wso2Path("system/apis.yaml"), "--config", wso2Path("system/gwpol.yaml"), "--policy-definitions", defs, "--engine-manifest", engine},
			scan: []string{wso2Path("system/apis.yaml"), wso2Path("system/gwpol.yaml")}},
		tc{name: "operator-at-the-pin", args: []string{"-f", wso2Path("operator/routes.yaml"), "--policy-definitions", defs, "--engine-manifest", engine},
			scan: []string{wso2Path("operator/routes.yaml")}},
		tc{name: "gatewayclass-not-accepted", args: []string{"-f", wso2Path("classes/classes.yaml"), "--policy-definitions", defs, "--engine-manifest", engine},
			scan: []string{wso2Path("classes/classes.yaml")}},
		tc{name: "gateway-never-registers", args: []string{"-f", wso2Path("pending/gateways.yaml"), "--policy-definitions", defs, "--engine-manifest", engine},
			scan: []string{wso2Path("pending/gateways.yaml")}},
		tc{name: "route-rejected-as-a-whole", args: []string{"-f", wso2Path("reject/routes.yaml"), "--policy-definitions", wso2Path("defs"), "--engine-manifest", wso2Path("build-manifest.yaml")},
			scan: []string{wso2Path("reject/routes.yaml")}},
		tc{name: "503-engine-duplicate-major", args: []string{"-f", wso2Path("engine-dup/apis.yaml"), "--policy-definitions", defs, "--engine-manifest", wso2Path("engine-dup/build-manifest.yaml")},
			scan: []string{wso2Path("engine-dup/apis.yaml"), wso2Path("engine-dup/build-manifest.yaml")}},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, code := lintWSO2(t, append(c.args, "--fail-on", "none")...)
			if code != ExitOK {
				t.Errorf("exit %d with --fail-on none", code)
			}
			var got []linttest.Finding
			for _, d := range rep.Diagnostics {
				got = append(got, linttest.Finding{File: filepath.Clean(d.File), Line: d.Line, Code: d.Code, Message: d.Message})
				if d.Line == 0 || d.Column == 0 {
					t.Errorf("%s %s has no line:column", d.Code, d.Message)
				}
				if strings.HasPrefix(d.Code, "GWP50") && d.Code != "GWP507" && !strings.Contains(d.Message, "; fix: ") {
					t.Errorf("%s at %s:%d has no fix hint: %s", d.Code, d.File, d.Line, d.Message)
				}
			}
			wants, err := linttest.Read(c.scan...)
			if err != nil {
				t.Fatal(err)
			}
			if r := linttest.Report(linttest.Check(wants, got)); r != "" {
				t.Errorf("findings:\n%s", r)
			}
			if len(rep.Skipped) > 0 {
				t.Errorf("nothing should be skipped with definitions and an engine manifest: %v", rep.Skipped)
			}
		})
	}
	// Every WSO2 file with want comments is one a case checks.
	scanned := map[string]bool{}
	for _, c := range cases {
		for _, f := range c.scan {
			scanned[filepath.Clean(f)] = true
		}
	}
	err := filepath.WalkDir(wso2Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		ws, err := linttest.Read(path)
		if err == nil && len(ws) > 0 && !scanned[filepath.Clean(path)] {
			t.Errorf("%s has `# want` comments that no case checks; add it to a case's scan list", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWSO2LintExitCodes: drift is a warning (exit 0 at --fail-on error), a
// missing major in the engine an error (exit 1), definition files that do
// not parse an input error (exit 3) naming FILE:LINE:COL.
func TestWSO2LintExitCodes(t *testing.T) {
	defs, engine := []string{"--policy-definitions", wso2Path("defs")}, []string{"--engine-manifest", wso2Path("build-manifest.yaml")}
	lintFile := func(name string) []string { return []string{"lint", "-f", wso2Path("lint/" + name)} }
	cases := []struct {
		name     string
		args     []string
		code     int
		stdout   []string
		stderr   string
		noStdout []string
	}{
		{"drift is a warning", slices.Concat(lintFile("504-drift.yaml"), defs, engine, []string{"--fail-on", "error"}), ExitOK,
			[]string{"GWP504", "v0.1.3", "v0.1.2", "runs that (its registry keys api-key-auth:v0 by major alone", "compatible under major identity, but drifted"}, "", nil},
		{"drift fails at warning", slices.Concat(lintFile("504-drift.yaml"), defs, engine, []string{"--fail-on", "warning"}), ExitFindings, []string{"GWP504"}, "", nil},
		{"engine missing a major", slices.Concat(lintFile("505-engine-missing.yaml"), defs, engine), ExitFindings,
			[]string{"GWP505", `"policy not found: cors:v2"`, "answers that route's requests 500"}, "", nil},
		{"duplicate major", slices.Concat(lintFile("503-duplicate-major.yaml"), defs, engine), ExitFindings, []string{"GWP503", "jwt-auth v1.0.0", "jwt-auth v1.1.0"}, "", nil},
		{"params fail the schema", slices.Concat(lintFile("506-params.yaml"), defs, engine), ExitFindings, []string{"GWP506", "params.limits[0].requests"}, "", nil},
		{"full semver", slices.Concat(lintFile("501-major-only.yaml"), defs), ExitFindings, []string{"GWP501", "fix: use version: v1"}, "", nil},
		{"github format", slices.Concat(lintFile("505-engine-missing.yaml"), defs, engine, []string{"-o", "github"}), ExitFindings,
			[]string{"::error file=../../testdata/wso2/lint/505-engine-missing.yaml,line=19,col=20,title=GWP505::"}, "", nil},
		{"without engine manifest 504 and 505 are skipped", slices.Concat(lintFile("505-engine-missing.yaml"), defs), ExitOK,
			[]string{"skipped: GWP504, GWP505: no engine build manifest"}, "", []string{"GWP505  "}},
		{"without definitions only the form is checked", lintFile("502-no-definition.yaml"), ExitOK,
			[]string{"skipped: GWP502, GWP503, GWP506: no policy definitions", "skipped: GWP504, GWP505"}, "", []string{"GWP502  "}},
		{"config names definitions and engine", slices.Concat(lintFile("504-drift.yaml"), []string{"--config", wso2Path("gwpol-versions.yaml")}), ExitOK,
			[]string{"GWP504"}, "", []string{"skipped"}},
		{"no WSO2 input, nothing skipped", []string{"lint", "-f", wso2Path("platform/gateway.yaml")}, ExitOK, nil, "", []string{"skipped"}},
		{"unparseable definition", slices.Concat(lintFile("504-drift.yaml"), []string{"--policy-definitions", wso2Path("defs-broken")}), ExitInput,
			nil, "defs-broken/policy-definition.yaml:6:5: invalid YAML", nil},
		{"missing definitions dir", slices.Concat(lintFile("504-drift.yaml"), []string{"--policy-definitions", wso2Path("no-such-dir")}), ExitInput,
			nil, "no-such-dir: cannot read policy definitions", nil},
		{"engine manifest that is not one", slices.Concat(lintFile("504-drift.yaml"), []string{"--engine-manifest", wso2Path("defs/cors/v1/policy-definition.yaml")}), ExitInput,
			nil, "policy-definition.yaml:1:1: not an engine build manifest", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := mainWSO2(c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, out, errOut)
			}
			for _, s := range c.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			for _, s := range c.noStdout {
				if strings.Contains(out, s) {
					t.Errorf("stdout has %q:\n%s", s, out)
				}
			}
			if !strings.Contains(errOut, c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, errOut)
			}
		})
	}
}

// compileWSO2 compiles the platform fixture with definitions, engine build
// and the system policies of testdata/wso2/gwpol.yaml.
func compileWSO2(t *testing.T) *pipeline.Compiled {
	t.Helper()
	cfg, _, err := loadConfig(wso2Path("gwpol.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.PolicyDefinitions, cfg.EngineManifest = wso2Path("defs"), wso2Path("build-manifest.yaml")
	v, err := families.LoadVersions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	set, err := manifest.Load([]string{wso2Path("platform")}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return families.CompileWith(set, cfg, v)
}

// apiPolicyKind is the APIPolicy kind c compiled with (resolving against
// its policy definitions and engine build).
func apiPolicyKind(c *pipeline.Compiled) *wso2.APIPolicyKind {
	k, _ := c.Registry.Lookup(model.GroupKind{Group: wso2.Group, Kind: wso2.KindAPIPolicy})
	ak, _ := k.(*wso2.APIPolicyKind)
	return ak
}

// ownValues are a rule's merged values of APIPolicy fields, as explain
// hands them to policy.RuleNoter.
func ownValues(c *pipeline.Compiled, rule *topology.Rule) func(string) []any {
	return func(key string) []any {
		if rp := c.Result.Rule(rule); rp != nil {
			if f := rp.Own.Of(apiPolicyKind(c)).Field(key); f != nil {
				return f.Values
			}
		}
		return nil
	}
}

// ruleChain is the chain the policy engine runs for a rule.
func ruleChain(c *pipeline.Compiled, rule *topology.Rule) []wso2.Entry {
	return apiPolicyKind(c).RuleChain(rule, ownValues(c, rule))
}

func identities(es []wso2.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Identity+"@"+string(e.Level)+"="+e.Definition+"/"+e.Engine)
	}
	return out
}

// TestWSO2RuleChains: system policies, then API level (APIPolicy with
// targetRef), then rule level (ExtensionRefs in filter order, not name
// order); an invalid APIPolicy contributes nothing.
func TestWSO2RuleChains(t *testing.T) {
	c := compileWSO2(t)
	rt := c.Graph.Route("HTTPRoute", "demo", "hello")
	if rt == nil {
		t.Fatal("HTTPRoute demo/hello not in the graph")
	}
	system := "wso2_apip_sys_analytics:v1@system=v1.0.0/v1.0.0"
	api := []string{"api-key-auth:v0@api=v0.1.3/v0.1.2", "set-headers:v1@api=v1.0.0/v1.0.0"}
	want := map[string][]string{
		"limited": slices.Concat([]string{system}, api, []string{"basic-ratelimit:v1@rule=v1.1.1/v1.1.1", "cors:v1@rule=v1.0.2/v1.0.2"}),
		"plain":   slices.Concat([]string{system}, api),
	}
	for _, rule := range rt.Rules {
		if diff := cmp.Diff(want[rule.Name], identities(ruleChain(c, rule))); diff != "" {
			t.Errorf("rule %s chain (-want +got):\n%s", rule.Name, diff)
		}
	}
	// The merged field lists its contributors parent first, too.
	f := c.Result.Rule(rt.Rules[0]).Own.Of(apiPolicyKind(c)).Field(wso2.FieldChain)
	var ids []string
	for _, ct := range f.Contributors {
		ids = append(ids, ct.Policy.Obj.Name)
	}
	if diff := cmp.Diff([]string{"hello-api-level", "hello-ratelimit", "hello-cors"}, ids); diff != "" {
		t.Errorf("contributors (-want +got):\n%s", diff)
	}
	notes := apiPolicyKind(c).RuleNotes(rt.Rules[0], ownValues(c, rt.Rules[0]))
	// The operation the operator builds comes first: its path under the
	// route's context annotation (operations.go).
	if len(notes) != 7 || !strings.Contains(notes[0], "WSO2 operator operation from spec.rules[0].matches[0]: GET /hello/limited, served as exactly /hello/hello/limited") ||
		!strings.Contains(notes[3], "api-key-auth:v0 → definition v0.1.3, engine v0.1.2 [api, APIPolicy/demo/hello-api-level] GWP504") {
		t.Errorf("notes:\n%s", strings.Join(notes, "\n"))
	}
}

// TestWSO2APILevelJoinedByName: the operator joins the API-level
// APIPolicies of a route in name order (httproute_policies.go:
// apiPoliciesFromTargetRef, sort.Strings, at 1c84e11c), whatever their
// age, and the gateway-controller keys that list by name
// (pkg/policy/builder.go: DerivePolicyFromAPIConfig), so a name both
// list runs the later object's listing at each place: the explain note
// and the rendered chain say so (row C3).
func TestWSO2APILevelJoinedByName(t *testing.T) {
	cfg, _, err := loadConfig(wso2Path("gwpol.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.PolicyDefinitions = wso2Path("defs")
	v, err := families.LoadVersions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := os.ReadFile(wso2Path("platform/gateway.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	apiPolicy := func(name, created, policies string) string {
		return "---\napiVersion: gateway.api-platform.wso2.com/v1alpha1\nkind: APIPolicy\nmetadata: {name: " + name + ", namespace: demo, creationTimestamp: '" + created + "'}\n" +
			"spec:\n  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: hello}\n  policies: " + policies + "\n"
	}
	docs := string(gw) + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: hello, namespace: demo}\n" +
		"spec:\n  parentRefs: [{name: platform-gw}]\n  rules: [{backendRefs: [{name: hello-backend, port: 9080}]}]\n" +
		apiPolicy("zz-oldest", "2024-01-01T00:00:00Z", `[{name: set-headers, version: v1, params: {request: {headers: [{name: X-From, value: zz}]}}}]`) +
		apiPolicy("aa-newest", "2025-01-01T00:00:00Z", `[{name: cors, version: v1, params: {allowedOrigins: ["https://a.example.com"]}}, {name: set-headers, version: v1, params: {request: {headers: [{name: X-From, value: aa}]}}}]`)
	objs, err := manifest.Parse("in.yaml", []byte(docs), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.CompileWith(&manifest.Set{Objects: objs}, cfg, v)
	rt := c.Graph.Route("HTTPRoute", "demo", "hello")
	if rt == nil {
		t.Fatal("HTTPRoute demo/hello not in the graph")
	}
	var got []string
	for _, e := range ruleChain(c, rt.Rules[0]) {
		s := e.Identity + "@" + string(e.Level) + " " + e.Source
		if e.Name == "set-headers" {
			s += " " + string(e.Params)
		}
		if e.ListedBy != "" {
			s += " listed by " + e.ListedBy
		}
		got = append(got, s)
	}
	const zz = `{"request":{"headers":[{"name":"X-From","value":"zz"}]}}`
	want := []string{
		"wso2_apip_sys_analytics:v1@system config",
		"cors:v1@api gateway.api-platform.wso2.com/APIPolicy/demo/aa-newest",
		"set-headers:v1@api gateway.api-platform.wso2.com/APIPolicy/demo/zz-oldest " + zz + " listed by gateway.api-platform.wso2.com/APIPolicy/demo/aa-newest",
		"set-headers:v1@api gateway.api-platform.wso2.com/APIPolicy/demo/zz-oldest " + zz,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chain (-want +got):\n%s", diff)
	}
}

// TestWSO2Render: a rule's chain renders as the policy engine's ext_proc
// filter, enabled on the route, with the resolved chain in its metadata.
func TestWSO2Render(t *testing.T) {
	c := compileWSO2(t)
	rt := c.Graph.Route("HTTPRoute", "demo", "hello")
	f := c.Result.Rule(rt.Rules[0]).Own.Of(apiPolicyKind(c)).Field(wso2.FieldChain)
	in := policy.FieldInput{Key: f.Key, Strategy: f.Strategy, Values: f.Values, Scope: policy.ScopeRoute}
	for _, ct := range f.Contributors {
		in.Contributors = append(in.Contributors, ct.Policy.ID())
	}
	var r policy.Renderer = apiPolicyKind(c)
	frags, err := r.RenderField(in, &policy.Env{Model: c.Model, Config: c.Config.PolicyConfig()})
	if err != nil || len(frags) != 1 {
		t.Fatalf("RenderField: %v, %d fragments", err, len(frags))
	}
	fr := frags[0]
	if fr.Capability != "ext_proc" || fr.Filter == nil || fr.Filter.Name != wso2.FilterName {
		t.Errorf("fragment: %+v", fr)
	}
	ep, _ := fr.Filter.Typed.(*extprocv3.ExternalProcessor)
	cl, _ := fr.TypedClusters[0].(*clusterv3.Cluster)
	if grpc := ep.GetGrpcService().GetEnvoyGrpc(); grpc.GetClusterName() != "wso2-policy-engine" || cl.GetName() != "wso2-policy-engine" {
		t.Errorf("cluster: %v / %v", grpc, cl.GetName())
	}
	if _, ok := fr.TypedPerFilterConfig[wso2.FilterName]; !ok {
		t.Errorf("the route does not enable the filter: %v", fr.TypedPerFilterConfig)
	}
	route, _ := fr.TypedRoute.(*routev3.Route)
	md := route.GetMetadata().GetFilterMetadata()["merge.gateway.api-platform.wso2.com/APIPolicy"].AsMap()
	got, _ := json.Marshal(md)
	want := `{"chain":["wso2_apip_sys_analytics:v1","api-key-auth:v0","set-headers:v1","basic-ratelimit:v1","cors:v1"],` +
		`"engine":{"api-key-auth:v0":"v0.1.2","basic-ratelimit:v1":"v1.1.1","cors:v1":"v1.0.2","set-headers:v1":"v1.0.0","wso2_apip_sys_analytics:v1":"v1.0.0"},` +
		`"policies":["gateway.api-platform.wso2.com/APIPolicy/demo/hello-api-level","gateway.api-platform.wso2.com/APIPolicy/demo/hello-cors","gateway.api-platform.wso2.com/APIPolicy/demo/hello-ratelimit"],` +
		`"resolved":{"api-key-auth:v0":"v0.1.3","basic-ratelimit:v1":"v1.1.1","cors:v1":"v1.0.2","set-headers:v1":"v1.0.0","wso2_apip_sys_analytics:v1":"v1.0.0"}}`
	if string(got) != want {
		t.Errorf("metadata:\n got %s\nwant %s", got, want)
	}
}

// TestWSO2Status: APIPolicy Accepted is Valid, Invalid (a reference the
// controller rejects) or TargetNotFound, through the generic status stage.
func TestWSO2Status(t *testing.T) {
	out, errOut, code := mainWSO2("status", "-o", "json", "-f", wso2Path("platform"), "--policy-definitions", wso2Path("defs"))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Policies []struct {
			Kind, Name string
			Ancestors  []struct {
				AncestorRef struct{ Kind, Name string } `json:"ancestorRef"`
				Conditions  []struct{ Type, Status, Reason string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range rep.Policies {
		if p.Kind != "APIPolicy" {
			continue
		}
		for _, a := range p.Ancestors {
			var cs []string
			for _, c := range a.Conditions {
				cs = append(cs, c.Type+"="+c.Status+"/"+c.Reason)
			}
			got[p.Name] = a.AncestorRef.Kind + "/" + a.AncestorRef.Name + " " + strings.Join(cs, ",")
		}
	}
	want := map[string]string{
		"hello-api-level":   "Gateway/platform-gw Accepted=True/Valid",
		"hello-ratelimit":   "Gateway/platform-gw Accepted=True/Valid",
		"hello-cors":        "Gateway/platform-gw Accepted=True/Valid",
		"hello-invalid":     "Gateway/platform-gw Accepted=False/Invalid",
		"goodbye-api-level": "StatusSummary/StatusSummary Accepted=False/TargetNotFound",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("APIPolicy status (-want +got):\n%s", diff)
	}
}

// TestExplainRestAPI compares explain's RestApi view with its goldens
// (rewrite them with -update).
func TestExplainRestAPI(t *testing.T) {
	wso2Goldens.Start(t)
	c := compileWSO2(t)
	for _, format := range []string{"text", "json"} {
		var b bytes.Buffer
		if err := explainRestAPI(c, "demo", "petstore-v1.0", &b, format, false, 0); err != nil {
			t.Fatal(err)
		}
		got := strings.ReplaceAll(b.String(), filepath.ToSlash(wso2Dir)+"/", "testdata/wso2/")
		goldenWSO2(t, "explain-restapi."+map[string]string{"text": "txt", "json": "json"}[format], got)
	}
	err := explainRestAPI(c, "demo", "petstore-v1", &bytes.Buffer{}, "text", false, 0)
	if diag.KindOf(err) != diag.NotFound || !strings.Contains(err.Error(), `did you mean "demo/petstore-v1.0"?`) {
		t.Errorf("unknown RestApi: %v", err)
	}
}

// explainRestAPI runs explain restapi/NS/NAME on c, the way the command
// does once it has compiled the input.
func explainRestAPI(c *pipeline.Compiled, ns, name string, w io.Writer, format string, showValues bool, width int) error {
	o := &explainOptions{globalOptions: &globalOptions{IO: &IOStreams{Out: w, Width: width}}, Target: "restapi/" + ns + "/" + name, Output: format, ShowValues: showValues}
	k, ok := explain.PolicyKindOf(o.Target, c.Result.Registry)
	if !ok {
		return fmt.Errorf("restapi names no registered kind")
	}
	ox, ok := k.(policy.ObjectExplainer)
	if !ok {
		return fmt.Errorf("%s has no view of its own", k.GroupKind().Kind)
	}
	return explainObject(o, c, ox)
}

// TestExplainRestAPIOperationForms: every operation form gets a heading
// (the match form's was blank) and --show-values adds each entry's params
// (it showed none).
func TestExplainRestAPIOperationForms(t *testing.T) {
	wso2Goldens.Start(t)
	for _, tt := range []struct{ golden, format string }{
		{"explain-match.txt", "text"}, {"explain-match.json", "json"},
	} {
		out, errOut, code := mainWSO2("explain", "restapi/shop/orders-v1.0", "-f", wso2Path("match/api.yaml"),
			"--policy-definitions", wso2Path("defs"), "--engine-manifest", wso2Path("build-manifest.yaml"), "--show-values", "-o", tt.format)
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		goldenWSO2(t, tt.golden, strings.ReplaceAll(out, filepath.ToSlash(wso2Dir)+"/", "testdata/wso2/"))
	}
	out, _, _ := mainWSO2("explain", "restapi/shop/orders-v1.0", "-f", wso2Path("match/api.yaml"), "--policy-definitions", wso2Path("defs"))
	for _, want := range []string{"\nGET /orders\n", "\nPOST /orders/bulk (PathPrefix) [headers X-Tenant=acme, X-Trace~^t-.*]\n", "\nDELETE /orders/{id}\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain does not have heading %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "params:") {
		t.Errorf("params shown without --show-values:\n%s", out)
	}
}

// wso2Goldens is testdata/wso2/golden, written by the RestApi explain
// tests.
var wso2Goldens = goldenfile.Own([]string{wso2Path("golden")}, nil, "TestExplainRestAPI", "TestExplainRestAPIOperationForms")

// goldenWSO2 checks got against testdata/wso2/golden/NAME (-update
// rewrites it).
func goldenWSO2(t *testing.T, name, got string) {
	t.Helper()
	wso2Goldens.Check(t, wso2Path("golden/"+name), []byte(got))
}

// TestWSO2EngineManifests: --engine-manifest repeats, and the files are
// one engine build (merged, never last-wins): the analytics system policy
// built from system-build-lock.yaml (a filePath entry, version from its
// policy definition) is found once that file is given beside
// build-manifest.yaml. Before, a repeated flag kept only the last file and
// the lock file alone gave GWP507.
func TestWSO2EngineManifests(t *testing.T) {
	main, lock := wso2Path("system-lock/build-manifest.yaml"), wso2Path("system-lock/system-build-lock.yaml")
	tests := []struct {
		name      string
		manifests []string
		want      []string // codes of the findings
	}{
		{name: "build manifest alone lacks the system policy", manifests: []string{main}, want: []string{"GWP505"}},
		{name: "build manifest and system lock", manifests: []string{main, lock}},
		{name: "system lock and build manifest", manifests: []string{lock, main}},
		{name: "system lock alone", manifests: []string{lock}},
		{name: "the same file twice is one file", manifests: []string{lock, lock}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"-f", wso2Path("system/apis.yaml"), "--config", wso2Path("system-lock/gwpol.yaml"), "--policy-definitions", wso2Path("defs"), "--fail-on", "none"}
			for _, m := range tt.manifests {
				args = append(args, "--engine-manifest", m)
			}
			rep, _ := lintWSO2(t, args...)
			var got []string
			for _, d := range rep.Diagnostics {
				got = append(got, d.Code)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings = %v, want %v (%+v)", got, tt.want, rep.Diagnostics)
			}
		})
	}
}

// TestRenderRestAPIOnlySaysWhy: render on input with RestApis and no
// Gateway still prints gateways: [] on stdout, and says on stderr why
// (it used to say nothing); with a Gateway it adds no such note.
func TestRenderRestAPIOnlySaysWhy(t *testing.T) {
	out, errOut, code := mainWSO2("render", "-f", wso2Path("system/apis.yaml"))
	if code != ExitOK || !strings.Contains(out, "gateways: []") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"the input has no Gateway", "1 RestApi", "not Gateway API resources"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q does not say %q", errOut, want)
		}
	}
	_, errOut, _ = mainWSO2("render", "-f", "../../testdata/kustomize/gateway.yaml")
	if strings.Contains(errOut, "no Gateway") {
		t.Errorf("with a Gateway, stderr says %q", errOut)
	}
}

// TestRestAPIStatus: status reports a RestApi (and the other API kinds the
// operator deploys) with the conditions the operator writes: Accepted,
// then Programmed=True, or Programmed=False/Invalid "Deployment failed: …"
// when the gateway-controller rejects the configuration. It reported no
// conditions at all before.
func TestRestAPIStatus(t *testing.T) {
	tests := []struct {
		file string
		want map[string]string // Kind/name → conditions
	}{
		{"lint/506-params.yaml", map[string]string{
			"RestApi/billing-api-v1.0": "Accepted=True/Accepted Programmed=False/Invalid",
			"RestApi/billing-api-v2.0": "Accepted=True/Accepted Programmed=True/Programmed",
			// "20" for an integer: the controller coerces nothing (1c84e11c).
			"RestApi/billing-api-v3.0": "Accepted=True/Accepted Programmed=False/Invalid",
		}},
		{"lint/511-other-api-kinds.yaml", map[string]string{
			"LlmProvider/openai":      "Accepted=True/Accepted Programmed=False/Invalid",
			"LlmProxy/assistant":      "Accepted=True/Accepted Programmed=False/Invalid",
			"Mcp/tools":               "Accepted=True/Accepted Programmed=True/Programmed",
			"WebSubApi/github-events": "",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			out, errOut, code := mainWSO2("status", "-o", "json", "-f", wso2Path(tt.file), "--policy-definitions", wso2Path("defs"))
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var rep struct {
				Policies []struct {
					Kind, Name string
					Conditions []struct{ Type, Status, Reason, Message string }
				}
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, p := range rep.Policies {
				var cs []string
				for _, c := range p.Conditions {
					cs = append(cs, c.Type+"="+c.Status+"/"+c.Reason)
					if c.Reason == "Invalid" && !strings.HasPrefix(c.Message, "Deployment failed: spec.") {
						t.Errorf("%s/%s: message %q", p.Kind, p.Name, c.Message)
					}
				}
				got[p.Kind+"/"+p.Name] = strings.Join(cs, " ")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWSO2OperatorAtThePin: the gateway operator at the family's pin
// (1c84e11c) builds one API from an HTTPRoute and generates no policy of
// its own; what it cannot build from — several Gateway parents, no rules,
// backendRefs resolving to more than one Service port or to none, a
// Service port the Service lacks, a rule with an empty matches list, an
// APIPolicy ExtensionRef that is missing or whose targetRef names another
// route — it refuses whole (GWP512 at the field, every rule failing).
// Until hap34 gwpol modelled a later operator (2026-07-11), which realized
// filters and weighted backends as generated policies and served several
// Services.
func TestWSO2OperatorAtThePin(t *testing.T) {
	const head = wso2OperatorPlatform + `apiVersion: v1
kind: Service
metadata: {name: items, namespace: shop}
spec: {ports: [{port: 8080}, {port: 9090}]}
---
apiVersion: v1
kind: Service
metadata: {name: cart, namespace: shop}
spec: {ports: [{port: 8080}]}
---
apiVersion: gateway.api-platform.wso2.com/v1
kind: APIPolicy
metadata: {name: elsewhere, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: other}
  policies: [{name: cors, version: v1}]
---
apiVersion: gateway.api-platform.wso2.com/v1
kind: APIPolicy
metadata: {name: mine, namespace: shop}
spec:
  policies: [{name: cors, version: v1}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: store, namespace: shop}
spec:
`
	tests := []struct {
		name, spec   string
		field, words string // "" words: no refusal
	}{
		{"filters and a backend-less rule beside one Service: built, nothing generated", `  parentRefs: [{name: platform}]
  rules:
    - matches: [{path: {type: PathPrefix, value: /items}}]
      filters:
        - {type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: X-Env, value: prod}], remove: [X-Debug]}}
        - {type: ExtensionRef, extensionRef: {group: gateway.api-platform.wso2.com, kind: APIPolicy, name: mine}}
      backendRefs: [{name: items, port: 8080}]
    - matches: [{path: {type: PathPrefix, value: /old}}]
      filters: [{type: RequestRedirect, requestRedirect: {hostname: new.example.com}}]
    - matches: [{path: {type: PathPrefix, value: /gone}}]
`, "", ""},
		{"one Service port in every rule", `  parentRefs: [{name: platform}]
  rules:
    - backendRefs: [{name: items, port: 8080, weight: 90}, {name: items, port: 8080, weight: 10}]
    - matches: [{path: {value: /b}}]
      backendRefs: [{name: items, port: 8080}]
`, "", ""},
		{"weighted backends to two Services", `  parentRefs: [{name: platform}]
  rules:
    - backendRefs: [{name: items, port: 8080, weight: 90}, {name: cart, port: 8080, weight: 10}]
`, "spec.rules[0].backendRefs[1]", "must resolve to a single Service backend (first shop/items:8080, found shop/cart:8080)"},
		{"one Service, two ports in two rules", `  parentRefs: [{name: platform}]
  rules:
    - backendRefs: [{name: items, port: 8080}]
    - matches: [{path: {value: /admin}}]
      backendRefs: [{name: items, port: 9090}]
`, "spec.rules[1].backendRefs[0]", "(first shop/items:8080, found shop/items:9090)"},
		{"a port the Service lacks", `  parentRefs: [{name: platform}]
  rules:
    - backendRefs: [{name: cart, port: 9999}]
`, "spec.rules[0].backendRefs[0].port", "service shop/cart has no port 9999 in spec.ports"},
		{"a Service not in the namespace: retried", `  parentRefs: [{name: platform}]
  rules:
    - backendRefs: [{name: nowhere, port: 80}]
`, "spec.rules[0].backendRefs[0].name", "reason Retrying): get backend Service shop/nowhere: not found"},
		{"no Service backendRef at all", `  parentRefs: [{name: platform}]
  rules:
    - filters: [{type: RequestRedirect, requestRedirect: {hostname: new.example.com}}]
`, "spec.rules", "no Service backendRef found on HTTPRoute"},
		{"an empty rules list", `  parentRefs: [{name: platform}]
  rules: []
`, "spec.rules", "HTTPRoute has no rules"},
		{"two parentRefs to one Gateway", `  parentRefs: [{name: platform, sectionName: http}, {name: platform, sectionName: alt}]
  rules:
    - backendRefs: [{name: cart, port: 8080}]
`, "spec.parentRefs", "multiple Gateway parentRefs is not supported"},
		{"an explicitly empty matches list", `  parentRefs: [{name: platform}]
  rules:
    - backendRefs: [{name: cart, port: 8080}]
    - matches: []
      backendRefs: [{name: cart, port: 8080}]
`, "spec.rules[1].matches", "rule[1] has no matches"},
		{"an APIPolicy ExtensionRef to no object: retried", `  parentRefs: [{name: platform}]
  rules:
    - filters: [{type: ExtensionRef, extensionRef: {group: gateway.api-platform.wso2.com, kind: APIPolicy, name: absent}}]
      backendRefs: [{name: cart, port: 8080}]
`, "spec.rules[0].filters[0].extensionRef.name", "reason Retrying): APIPolicy shop/absent not found"},
		{"another controller's route with an APIPolicy: not the operator's to refuse", `  parentRefs: [{name: other-gw}]
  rules:
    - filters: [{type: ExtensionRef, extensionRef: {group: gateway.api-platform.wso2.com, kind: APIPolicy, name: mine}}]
      backendRefs: [{name: items, port: 8080, weight: 90}, {name: cart, port: 8080, weight: 10}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: other}
spec: {controllerName: example.com/other}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: other-gw, namespace: shop}
spec:
  gatewayClassName: other
  listeners: [{name: http, protocol: HTTP, port: 80}]
`, "", ""},
		{"an APIPolicy ExtensionRef whose targetRef names another route", `  parentRefs: [{name: platform}]
  rules:
    - filters: [{type: ExtensionRef, extensionRef: {group: gateway.api-platform.wso2.com, kind: APIPolicy, name: elsewhere}}]
      backendRefs: [{name: cart, port: 8080}]
`, "spec.rules[0].filters[0].extensionRef.name", `APIPolicy "elsewhere" spec.targetRef must name this HTTPRoute (shop/store)`},
		// ensureCrossNamespaceServiceReferenceGrant: a Service in another
		// namespace needs a ReferenceGrant there from HTTPRoutes (group
		// gateway.networking.k8s.io) of the route's namespace to core
		// Services (group written "", the Service's name or none);
		// without one the route is retried
		{"a Service of another namespace with a grant to it: built", `  parentRefs: [{name: platform}]
  rules:
    - backendRefs: [{name: stock, namespace: depot, port: 80}]
` + wso2Depot(`[{group: "", kind: Service, name: stock}]`), "", ""},
		{"a Service of another namespace with a grant to another Service: retried", `  parentRefs: [{name: platform}]
  rules:
    - backendRefs: [{name: stock, namespace: depot, port: 80}]
` + wso2Depot(`[{group: "", kind: Service, name: other}]`), "spec.rules[0].backendRefs[0].namespace", "reason Retrying)"},
		{"a Service of another namespace with a grant to group core: retried", `  parentRefs: [{name: platform}]
  rules:
    - backendRefs: [{name: stock, namespace: depot, port: 80}]
` + wso2Depot(`[{group: core, kind: Service}]`), "spec.rules[0].backendRefs[0].namespace", "reason Retrying)"},
		// apiPolicyTargetRefMatchesHTTPRoute compares the namespace too:
		// a targetRef naming the route by name in another namespace is
		// not this route's (before hap42 gwpol compared the name alone)
		{"an APIPolicy ExtensionRef whose targetRef names this route's name in another namespace", `  parentRefs: [{name: platform}]
  rules:
    - filters: [{type: ExtensionRef, extensionRef: {group: gateway.api-platform.wso2.com, kind: APIPolicy, name: pinned}}]
      backendRefs: [{name: cart, port: 8080}]
---
apiVersion: gateway.api-platform.wso2.com/v1
kind: APIPolicy
metadata: {name: pinned, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: store, namespace: warehouse}
  policies: [{name: cors, version: v1}]
`, "spec.rules[0].filters[0].extensionRef.name", `APIPolicy "pinned" spec.targetRef must name this HTTPRoute (shop/store)`},
		{"an APIPolicy ExtensionRef whose targetRef names this route with its namespace: built", `  parentRefs: [{name: platform}]
  rules:
    - filters: [{type: ExtensionRef, extensionRef: {group: gateway.api-platform.wso2.com, kind: APIPolicy, name: pinned}}]
      backendRefs: [{name: cart, port: 8080}]
---
apiVersion: gateway.api-platform.wso2.com/v1
kind: APIPolicy
metadata: {name: pinned, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: store, namespace: shop}
  policies: [{name: cors, version: v1}]
`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(f, []byte(head+tt.spec), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, _ := lintWSO2(t, "-f", f, "--fail-on", "none")
			var refusals []string
			for _, d := range rep.Diagnostics {
				if d.Code == "GWP512" {
					refusals = append(refusals, d.Field+": "+d.Message)
					if !strings.Contains(d.Message, tt.words) || d.Field != tt.field || tt.words == "" {
						t.Errorf("GWP512 at %s: %s\nwant at %q: %q", d.Field, d.Message, tt.field, tt.words)
					}
				}
				if strings.Contains(d.Message, "realizes") {
					t.Errorf("a generated policy: %s %s", d.Code, d.Message)
				}
			}
			if tt.words != "" && len(refusals) != 1 {
				t.Errorf("refusals %q, want one at %s", refusals, tt.field)
			}
			cfg := &Config{Namespace: "default"}
			set, err := manifest.Load([]string{f}, manifest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.CompileWith(set, cfg, nil)
			for _, rt := range c.Graph.Routes {
				for _, rule := range rt.Rules {
					for _, e := range ruleChain(c, rule) {
						if e.Level != wso2.LevelRule && e.Level != wso2.LevelAPI {
							t.Errorf("rule %d: %s at level %s, which the operator at the pin does not add", rule.Index, e.Identity, e.Level)
						}
					}
				}
			}
		})
	}
}

// TestWSO2RouteRejectedAsAWhole: one rule's invalid APIPolicy makes the
// operator's whole API invalid, so render answers 500 on every rule of the
// HTTPRoute; before, the rule without a policy still forwarded.
func TestWSO2RouteRejectedAsAWhole(t *testing.T) {
	out, errOut, code := mainWSO2("render", "-o", "json", "-f", wso2Path("reject/routes.yaml"), "--policy-definitions", wso2Path("defs"))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	statuses := map[string]float64{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if name, ok := x["name"].(string); ok && x["match"] != nil {
				statuses[name] = -1
				if dr, ok := x["direct_response"].(map[string]any); ok {
					if st, ok := dr["status"].(float64); ok {
						statuses[name] = st
					}
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(doc)
	if len(statuses) != 2 {
		t.Fatalf("routes = %v, want the two rules of shop/store", statuses)
	}
	for name, st := range statuses {
		if st != 500 {
			t.Errorf("%s: status %v, want a 500 direct response", name, st)
		}
	}
	if !strings.Contains(errOut, "GWP512") {
		t.Errorf("stderr does not report GWP512:\n%s", errOut)
	}
}

// TestExplainRestAPIFitsTerminal: the chain table fits a terminal of 40,
// 80 and 200 columns (a list where the table is wider), and cuts no value.
func TestExplainRestAPIFitsTerminal(t *testing.T) {
	c := compileWSO2(t)
	var whole bytes.Buffer
	if err := explainRestAPI(c, "demo", "petstore-v1.0", &whole, "text", false, 0); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{40, 80, 200} {
		var b bytes.Buffer
		if err := explainRestAPI(c, "demo", "petstore-v1.0", &b, "text", false, width); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		for _, l := range strings.Split(got, "\n") {
			if strings.ContainsAny(l, "│┌└") && lipgloss.Width(l) > width {
				t.Errorf("width %d: table line of %d columns: %q", width, lipgloss.Width(l), l)
			}
		}
		if isTable := strings.Contains(got, "│"); isTable != (width == 200) {
			t.Errorf("width %d: table = %v, want %v", width, isTable, width == 200)
		}
		if strings.Contains(got, "…") {
			t.Errorf("width %d: a value was cut:\n%s", width, got)
		}
		// Every policy identity of the unwrapped view is still there whole.
		for _, id := range []string{"wso2_apip_sys_analytics", "cors"} {
			if strings.Contains(whole.String(), id) && !strings.Contains(strings.ReplaceAll(got, "\n", ""), id) {
				t.Errorf("width %d: %s was cut", width, id)
			}
		}
	}
}

// wso2OperatorPlatform is the WSO2 gateway operator's GatewayClass (by its
// default class name) and a Gateway of it in shop with two HTTP listeners:
// the platform the operator tests build their routes on.
// wso2Depot is the namespace depot with its Service stock (port 80) and
// a ReferenceGrant there from the shop namespace's HTTPRoutes to the
// targets written as to.
func wso2Depot(to string) string {
	return `---
apiVersion: v1
kind: Namespace
metadata: {name: depot}
---
apiVersion: v1
kind: Service
metadata: {name: stock, namespace: depot}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: from-shop, namespace: depot}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}]
  to: ` + to + "\n"
}

const wso2OperatorPlatform = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: wso2-api-platform}
spec: {controllerName: gateway.api-platform.wso2.com/gateway-operator}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: platform, namespace: shop}
spec:
  gatewayClassName: wso2-api-platform
  listeners: [{name: http, protocol: HTTP, port: 80}, {name: alt, protocol: HTTP, port: 8080}]
---
`
