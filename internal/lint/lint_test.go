package lint_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/lint"
	"github.com/gwpol/gwpol/internal/linttest"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestRules checks every fixture in testdata/lint like analysistest: each
// `# want` must be met on its line, and nothing else may be reported in
// that file (extra and missing findings both fail). ok.yaml is the
// negative fixture. Fixtures are rendered for the envoy target (upstream
// filters), as lint does for a Gateway of no known controller, so
// render's findings (GWP404) are checked too.
func TestRules(t *testing.T) {
	dir := "../../testdata/lint"
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "_") {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			set, err := manifest.Load([]string{filepath.Join(dir, "_base.yaml"), f}, manifest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.Compile(set, &pipeline.Config{Namespace: "default"})
			out, err := envoy.Render(c.Result, envoy.Options{Target: "envoy", Config: c.Config.PolicyConfig()})
			if err != nil {
				t.Fatal(err)
			}
			rep := lint.Run(&lint.Input{Result: c.Result, Stage: c.Diagnostics(), Extra: out.Diagnostics}, lint.Config{})
			var got []linttest.Finding
			for _, d := range linttest.Findings(rep.Diagnostics) {
				if d.File == filepath.Clean(f) {
					got = append(got, d)
				}
			}
			wants, err := linttest.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			if r := linttest.Report(linttest.Check(wants, got)); r != "" {
				t.Errorf("findings:\n%s", r)
			}
		})
	}
}

// fixtureFolders are the lint fixture folders, each checked by its own
// test through linttest: testdata/lint (TestRules), testdata/wso2
// (cli's TestWSO2LintWants), testdata/haptic (haptic's TestFixtures) and
// testdata/guardrails (cli's TestGuardrailFixtures).
var fixtureFolders = []string{"../../testdata/lint", "../../testdata/wso2", "../../testdata/haptic", "../../testdata/guardrails"}

// fixtureless are the rules a YAML fixture cannot show, each with the
// test that does.
var fixtureless = map[string]string{
	"GWP114": "a FIFO, socket or device cannot be committed; manifest's TestLoadRefusesSpecialFiles and TestSpecialFileNeverOpened make them",
	"GWP115": "a fixture's symlink out of testdata would point at the machine's own files; manifest's TestSymlinkOutsideNotFollowed and cli's TestSymlinkOutsideInputDirectory make them",
}

// TestEveryRuleHasAFixture: every rule of lint's registry has a `# want`
// line in a lint fixture folder, so every code is shown to fire where it
// should, on the line it should; and no `# want` line sits outside those
// folders, where no test would check it.
func TestEveryRuleHasAFixture(t *testing.T) {
	var inFolders []linttest.Want
	err := filepath.WalkDir("../../testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return err
		}
		wants, err := linttest.Read(path)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(fixtureFolders, func(dir string) bool { return strings.HasPrefix(path, dir+string(filepath.Separator)) }) {
			inFolders = append(inFolders, wants...)
		} else if len(wants) > 0 {
			t.Errorf("%s: `# want` outside the lint fixture folders %v; no test checks it", wants[0], fixtureFolders)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	covered := linttest.Codes(inFolders)
	for _, r := range lint.Rules(families.Registry()) {
		if why, ok := fixtureless[r.Code]; ok {
			t.Logf("%s: no fixture: %s", r.Code, why)
			continue
		}
		if !slices.Contains(covered, r.Code) {
			t.Errorf("%s (%s) has no fixture: add a case with a `# want %s` line to a lint fixture folder", r.Code, r.Name, r.Code)
		}
	}
}

// TestRegistry: codes are unique, sorted, documented.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range lint.Rules(families.Registry()) {
		if seen[r.Code] || r.Name == "" || r.Title == "" || r.Doc == "" || r.Severity == 0 {
			t.Errorf("rule %s: duplicate or incomplete", r.Code)
		}
		seen[r.Code] = true
	}
}

// TestRuleNotesNameRules: every family's note on a generic rule
// (policy.Family.RuleNotes) names a registered rule and ends its
// documentation.
func TestRuleNotesNameRules(t *testing.T) {
	reg := families.Registry()
	docs := map[string]string{}
	for _, r := range lint.Rules(reg) {
		docs[r.Name] = r.Doc
	}
	for name, notes := range reg.RuleNotes() {
		doc, ok := docs[name]
		if !ok {
			t.Errorf("a family notes the rule %q, which is not registered", name)
			continue
		}
		if want := strings.Join(notes, " "); !strings.HasSuffix(doc, " "+want) {
			t.Errorf("rule %s's documentation %q does not end with its families' notes %q", name, doc, want)
		}
	}
}

// TestSuppression: config ignores and the object annotation both suppress,
// and suppressed findings are counted.
func TestSuppression(t *testing.T) {
	set, err := manifest.Load([]string{"../../testdata/lint/_base.yaml", "../../testdata/lint/GWP201.yaml"}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.Compile(set, &pipeline.Config{Namespace: "default"})
	in := &lint.Input{Result: c.Result, Stage: c.Diagnostics()}
	rep := lint.Run(in, lint.Config{Ignore: []lint.Ignore{{Code: "GWP201", Object: "TrafficPolicy/app/*"}}})
	if len(rep.Diagnostics) != 0 || rep.Suppressed != 1 {
		t.Errorf("ignore by glob: %d findings, %d suppressed", len(rep.Diagnostics), rep.Suppressed)
	}
	rep = lint.Run(in, lint.Config{Ignore: []lint.Ignore{{Code: "GWP201", Object: "TrafficPolicy/other/*"}}})
	if rep.Suppressed != 0 || len(rep.Diagnostics) != 1 {
		t.Errorf("non-matching glob suppressed something: %d findings, %d suppressed", len(rep.Diagnostics), rep.Suppressed)
	}
}

// TestTooManyAncestors: a route policy reaching 17 Gateways (GWP208).
func TestTooManyAncestors(t *testing.T) {
	var b strings.Builder
	var parents []string
	for i := range 17 {
		fmt.Fprintf(&b, "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw%d, namespace: app}\nspec:\n  gatewayClassName: x\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n", i)
		parents = append(parents, fmt.Sprintf("{name: gw%d}", i))
	}
	fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: app}\nspec: {ports: [{port: 80}]}\n")
	fmt.Fprintf(&b, "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n  parentRefs: [%s]\n  rules: [{backendRefs: [{name: svc, port: 80}]}]\n", strings.Join(parents, ", "))
	fmt.Fprintf(&b, "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: p, namespace: app}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n  timeouts: {request: 1s}\n")
	objs, err := manifest.Parse("gen.yaml", []byte(b.String()), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
	rep := lint.Run(&lint.Input{Result: c.Result, Stage: c.Diagnostics()}, lint.Config{})
	var codes []string
	for _, d := range rep.Diagnostics {
		codes = append(codes, d.Code)
	}
	if !slices.Contains(codes, "GWP208") {
		t.Errorf("GWP208 not reported; got %v", codes)
	}
	// With 16 it must not fire.
	c = families.Compile(&manifest.Set{Objects: objs[1:]}, &pipeline.Config{Namespace: "default"})
	rep = lint.Run(&lint.Input{Result: c.Result, Stage: c.Diagnostics()}, lint.Config{})
	for _, d := range rep.Diagnostics {
		if d.Code == "GWP208" {
			t.Errorf("GWP208 with 16 ancestors: %s", d.Message)
		}
	}
}

// TestTieHintExtensionWeights: two policies tied by name that call
// different GatewayExtensions get GWP303 advice naming the extensions'
// weights as ones that would not settle the tie (kgateway orders only their
// filters by them); a tie on another field gets no such note.
func TestTieHintExtensionWeights(t *testing.T) {
	const ext = `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: %[1]s, namespace: app, annotations: {kgateway.dev/policy-weight: "%[2]d"}}
spec: {extAuth: {grpcService: {backendRef: {name: svc, port: 80}}}}
`
	const pol = `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: %s, namespace: app}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: base}]
  %s
`
	tests := []struct {
		name, a, b string
		note       bool
	}{
		{"different extensions", "extAuth: {extensionRef: {name: heavy}}", "extAuth: {extensionRef: {name: light}}", true},
		{"same extension", "extAuth: {extensionRef: {name: heavy}}", "extAuth: {extensionRef: {name: heavy}}", false},
		{"not an extension field", "timeouts: {request: 1s}", "timeouts: {request: 2s}", false},
	}
	for _, tt := range tests {
		input := fmt.Sprintf(ext, "heavy", 10) + fmt.Sprintf(ext, "light", -10) + fmt.Sprintf(pol, "alpha", tt.a) + fmt.Sprintf(pol, "beta", tt.b)
		f := filepath.Join(t.TempDir(), "in.yaml")
		if err := os.WriteFile(f, []byte(input), 0o644); err != nil {
			t.Fatal(err)
		}
		set, err := manifest.Load([]string{"../../testdata/lint/_base.yaml", f}, manifest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := families.Compile(set, &pipeline.Config{Namespace: "default"})
		var msgs []string
		for _, d := range lint.Run(&lint.Input{Result: c.Result, Stage: c.Diagnostics()}, lint.Config{}).Diagnostics {
			if d.Code == "GWP303" {
				msgs = append(msgs, d.Message)
			}
		}
		if len(msgs) != 1 {
			t.Fatalf("%s: GWP303 findings %q, want one", tt.name, msgs)
		}
		got := strings.Contains(msgs[0], "weight 10 (annotation kgateway.dev/policy-weight on GatewayExtension app/heavy) and the weight -10") &&
			strings.Contains(msgs[0], "do not decide which policy wins")
		if got != tt.note || !strings.Contains(msgs[0], "Set the kgateway.dev/policy-weight annotation (higher wins) on the policy") {
			t.Errorf("%s: GWP303 %q; extension note %v, want %v, and the policy-weight advice", tt.name, msgs[0], got, tt.note)
		}
	}
}
