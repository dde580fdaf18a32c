package haptic_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/golden"
	"github.com/gwpol/gwpol/internal/linttest"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy/haptic"
	"github.com/gwpol/gwpol/internal/status"
)

// fixturesDir holds one directory per case: input.yaml (with `# want`
// comments and a `# broken:` line) and status.json, the golden status.
const fixturesDir = "../../../testdata/haptic"

// statusGoldens are the fixture directories: everything in one but its
// input is a golden TestFixtures writes (all of it, once the input is
// gone).
var statusGoldens = func() *golden.Dirs {
	entries, _ := os.ReadDir(fixturesDir)
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(fixturesDir, e.Name()))
		}
	}
	return golden.Own(dirs, []string{"input.yaml"}, "TestFixtures")
}()

// compile runs the pipeline up to status the way the CLI runs it.
func compile(t *testing.T, file string) *pipeline.Compiled {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := manifest.Parse(filepath.ToSlash(file), data, manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &pipeline.Config{Namespace: "default",
		Settings: map[string]any{"haptic": fixtureDeployment}}
	return families.Compile(&manifest.Set{Objects: objs}, cfg)
}

// fixtureDeployment are the chart values the fixtures run with: every
// feature a route policy can use switched on, self-service catalogs
// without limits (the chart's defaults switch them off, which the
// fixtures are not about).
var fixtureDeployment = map[string]any{
	"rateLimit": map[string]any{"shared": map[string]any{"enabled": true}},
	"cache":     map[string]any{"varnish": map[string]any{"enabled": true}},
	"waf": map[string]any{"enabled": true, "policies": map[string]any{
		"selfService": map[string]any{"enabled": true, "limits": map[string]any{"maxPoliciesPerNamespace": 0, "maxTotalPolicies": 0}}}},
}

// brokenRules are the runtime identities of the rules that fail closed.
func brokenRules(c *pipeline.Compiled) []string {
	var out []string
	for _, rt := range c.Graph.Routes {
		for _, rule := range rt.Rules {
			if len(c.Result.Attach.Broken[rule]) > 0 {
				out = append(out, haptic.RuleIdentity(rt.Kind, rt.Meta.Namespace, rt.Meta.Name, rule.Index))
			}
		}
	}
	slices.Sort(out)
	return out
}

var brokenRE = regexp.MustCompile(`(?m)^#\s*broken:(.*)$`)

// broken reads the `# broken:` line: the rules that fail closed.
func broken(data []byte) []string {
	var out []string
	if m := brokenRE.FindSubmatch(data); m != nil {
		out = strings.Fields(string(m[1]))
	}
	slices.Sort(out)
	return out
}

// TestFixtures checks every case like analysistest (linttest): each
// finding must be announced by a `# want` comment on its line and each
// comment must be met; the rules failing closed must be exactly those on
// the `# broken:` line; and status must match status.json.
func TestFixtures(t *testing.T) {
	statusGoldens.Start(t)
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, "*", "input.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no fixtures")
	}
	for _, in := range dirs {
		dir := filepath.Dir(in)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			wants, err := linttest.Parse(filepath.Clean(in), data)
			if err != nil {
				t.Fatal(err)
			}
			c := compile(t, in)
			if r := linttest.Report(linttest.Check(wants, linttest.Findings(c.Diagnostics()))); r != "" {
				t.Errorf("findings:\n%s", r)
			}
			if gotBroken, wantBroken := brokenRules(c), broken(data); !slices.Equal(gotBroken, wantBroken) {
				t.Errorf("rules failing closed = %v, want %v", gotBroken, wantBroken)
			}
			statusGoldens.Check(t, filepath.Join(dir, "status.json"), statusJSON(t, c))
		})
	}
}

func statusJSON(t *testing.T, c *pipeline.Compiled) []byte {
	t.Helper()
	rep := status.Compute(c.Result, status.Options{ControllerName: "haproxy-haptic.org/controller"})
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestStatus spells out what the status goldens must say, so that an
// -update cannot quietly change it: policy Accepted with its reason on the
// Gateways of the routes that use it (no Attached condition for this
// kind), and route conditions for rules that fail closed.
func TestStatus(t *testing.T) {
	type cond struct{ typ, status, reason string }
	conds := func(cs []status.Condition) []cond {
		var out []cond
		for _, c := range cs {
			out = append(out, cond{c.Type, c.Status, c.Reason})
		}
		return out
	}
	for _, tc := range []struct {
		fixture, policy string
		policyConds     []cond // on ancestor Gateway infra/public; nil: no ancestors
		route           string
		routeConds      []cond
	}{
		{"working", "orders-access", []cond{{"Accepted", "True", "Valid"}},
			"orders", []cond{{"Accepted", "True", "Accepted"}, {"ResolvedRefs", "True", "ResolvedRefs"}}},
		// HAPTIC sets ResolvedRefs False only for a reference that does
		// not resolve (issue 19); a bad value is UnsupportedValue.
		{"targetrefs", "targeted", []cond{{"Accepted", "False", "Invalid"}},
			"orders", []cond{{"Accepted", "False", "UnsupportedValue"}, {"ResolvedRefs", "True", "ResolvedRefs"}}},
		// HAPTIC's own reasons (issue 19): RefNotPermitted for a credential
		// it may not use, PolicyNotFound for a missing policy.
		{"secret-missing", "orders-access", []cond{{"Accepted", "False", "Invalid"}},
			"orders", []cond{{"Accepted", "False", "UnsupportedValue"}, {"ResolvedRefs", "False", "RefNotPermitted"}}},
		{"missing-policy", "orders-access", []cond{{"Accepted", "True", "Valid"}},
			"orders", []cond{{"Accepted", "True", "Accepted"}, {"ResolvedRefs", "False", "PolicyNotFound"}, {"PartiallyInvalid", "True", "UnsupportedValue"}}},
		{"grpc", "cached", []cond{{"Accepted", "True", "Valid"}},
			"rpc", []cond{{"Accepted", "True", "Accepted"}, {"ResolvedRefs", "True", "ResolvedRefs"}, {"PartiallyInvalid", "True", "UnsupportedValue"}}},
		{"two-filters", "a", []cond{{"Accepted", "True", "Valid"}},
			"orders", []cond{{"Accepted", "True", "Accepted"}, {"ResolvedRefs", "True", "ResolvedRefs"}, {"PartiallyInvalid", "True", "IncompatibleFilters"}}},
		{"empty", "nothing", nil, "", nil},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			c := compile(t, filepath.Join(fixturesDir, tc.fixture, "input.yaml"))
			rep := status.Compute(c.Result, status.Options{})
			for _, p := range rep.Policies {
				if p.Name != tc.policy {
					continue
				}
				if tc.policyConds == nil {
					if len(p.Ancestors) != 0 {
						t.Errorf("policy %s: ancestors %v, want none", p.Name, p.Ancestors)
					}
					continue
				}
				if len(p.Ancestors) != 1 || p.Ancestors[0].AncestorRef.String() != "Gateway/infra/public" {
					t.Fatalf("policy %s: ancestors %+v, want Gateway/infra/public", p.Name, p.Ancestors)
				}
				if got := conds(p.Ancestors[0].Conditions); !slices.Equal(got, tc.policyConds) {
					t.Errorf("policy %s: conditions %v, want %v", p.Name, got, tc.policyConds)
				}
			}
			for _, r := range rep.Routes {
				if r.Name != tc.route {
					continue
				}
				if got := conds(r.Parents[0].Conditions); !slices.Equal(got, tc.routeConds) {
					t.Errorf("route %s: conditions %v, want %v", r.Name, got, tc.routeConds)
				}
				// The route's parent is a Gateway of HAPTIC's class: HAPTIC
				// writes its status, whatever controllerName is configured.
				if got := r.Parents[0].ControllerName; got != "haproxy-haptic.org/controller" {
					t.Errorf("route %s: controllerName %q, want the GatewayClass's", r.Name, got)
				}
			}
		})
	}
}
