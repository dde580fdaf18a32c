package lint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/lint"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
)

var want = regexp.MustCompile(`#\s*want\s+((?:"GWP\d+"\s*)+)`)

// wants reads `# want "GWPnnn"` comments: file:line → codes, the way
// analysistest reads `// want`.
func wants(t *testing.T, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, line := range strings.Split(string(data), "\n") {
		m := want.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, c := range regexp.MustCompile(`GWP\d+`).FindAllString(m[1], -1) {
			out = append(out, fmt.Sprintf("%s:%d %s", filepath.Base(path), i+1, c))
		}
	}
	return out
}

// TestRules checks every fixture in testdata/lint: each `# want` must be
// found on its line, and nothing else may be reported in that file (extra
// and missing findings both fail). ok.yaml is the negative fixture.
func TestRules(t *testing.T) {
	dir := "../../testdata/lint"
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	covered := map[string]bool{}
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "_") {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			set, err := manifest.Load([]string{filepath.Join(dir, "_base.yaml"), f}, manifest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c := pipeline.Compile(set, &pipeline.Config{Namespace: "default", ReferenceGrantMode: "Permissive", ValidationMode: "Standard"})
			rep := lint.Run(&lint.Input{Result: c.Result, Stage: c.Diagnostics()}, lint.Config{})
			var got []string
			for _, d := range rep.Diagnostics {
				if d.Pos.File == f {
					got = append(got, fmt.Sprintf("%s:%d %s", filepath.Base(f), d.Pos.Line, d.Code))
					covered[d.Code] = true
				}
			}
			slices.Sort(got)
			got = slices.Compact(got)
			w := wants(t, f)
			slices.Sort(w)
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
	for _, code := range []string{"GWP101", "GWP102", "GWP103", "GWP104", "GWP106", "GWP201", "GWP202", "GWP203", "GWP204", "GWP205", "GWP211", "GWP301", "GWP302", "GWP303", "GWP304", "GWP305", "GWP401", "GWP405"} {
		if !covered[code] {
			t.Errorf("no fixture makes %s fire", code)
		}
	}
}

// TestRegistry: codes are unique, sorted, documented.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range lint.Rules(pipeline.Registry()) {
		if seen[r.Code] || r.Name == "" || r.Title == "" || r.Doc == "" || r.Severity == 0 {
			t.Errorf("rule %s: duplicate or incomplete", r.Code)
		}
		seen[r.Code] = true
	}
}

// TestSuppression: config ignores and the object annotation both suppress,
// and suppressed findings are counted.
func TestSuppression(t *testing.T) {
	set, err := manifest.Load([]string{"../../testdata/lint/_base.yaml", "../../testdata/lint/GWP201.yaml"}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := pipeline.Compile(set, &pipeline.Config{Namespace: "default", ReferenceGrantMode: "Permissive", ValidationMode: "Standard"})
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
	c := pipeline.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default", ReferenceGrantMode: "Permissive", ValidationMode: "Standard"})
	rep := lint.Run(&lint.Input{Result: c.Result, Stage: c.Diagnostics()}, lint.Config{})
	var codes []string
	for _, d := range rep.Diagnostics {
		codes = append(codes, d.Code)
	}
	if !slices.Contains(codes, "GWP208") {
		t.Errorf("GWP208 not reported; got %v", codes)
	}
	// With 16 it must not fire.
	c = pipeline.Compile(&manifest.Set{Objects: objs[1:]}, &pipeline.Config{Namespace: "default", ReferenceGrantMode: "Permissive", ValidationMode: "Standard"})
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
		c := pipeline.Compile(set, &pipeline.Config{Namespace: "default", ReferenceGrantMode: "Permissive", ValidationMode: "Standard"})
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
