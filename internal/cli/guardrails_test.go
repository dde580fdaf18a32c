package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/lint"
	"github.com/gwpol/gwpol/internal/linttest"
	"github.com/gwpol/gwpol/internal/manifest"
)

// guardrailFamilies are the controller families with guardrail fixtures
// (testdata/guardrails/FAMILY/RULE-TYPE/{gwpol.yaml,input.yaml}); each
// family's _*.yaml is its platform, loaded with every case.
var guardrailFamilies = []string{"kgateway", "envoygateway", "haptic", "wso2"}

// TestGuardrailFixtures checks every guardrail fixture like analysistest:
// with the case's config (read as the CLI reads it), each `# want` on a
// line of input.yaml must be met there, and no other guardrail finding
// (GWP6xx) may be made in the case's files — the platform's own
// policies included. Other codes are other rules' business.
func TestGuardrailFixtures(t *testing.T) {
	root := "../../testdata/guardrails"
	for _, fam := range guardrailFamilies {
		cases, _ := filepath.Glob(filepath.Join(root, fam, "*", "input.yaml"))
		if len(cases) == 0 {
			t.Errorf("%s: no guardrail fixture", fam)
		}
		platform, _ := filepath.Glob(filepath.Join(root, fam, "_*.yaml"))
		for _, in := range cases {
			dir := filepath.Dir(in)
			t.Run(fam+"/"+filepath.Base(dir), func(t *testing.T) {
				got := guardrailFindings(t, filepath.Join(dir, "gwpol.yaml"), append(slices.Clone(platform), in)...)
				wants, err := linttest.Read(in)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range got {
					if f.File != filepath.Clean(in) {
						t.Errorf("guardrail finding outside the case's input: %s", f)
					}
				}
				got = slices.DeleteFunc(got, func(f linttest.Finding) bool { return f.File != filepath.Clean(in) })
				if r := linttest.Report(linttest.Check(wants, got)); r != "" {
					t.Errorf("findings:\n%s", r)
				}
			})
		}
	}
}

// guardrailFindings lints files under the config file's guardrails and
// returns the guardrail findings (GWP6xx).
func guardrailFindings(t *testing.T, config string, files ...string) []linttest.Finding {
	t.Helper()
	cfg, _, err := loadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Guardrails) == 0 {
		t.Fatalf("%s: no guardrails", config)
	}
	set, err := manifest.Load(files, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.Compile(set, cfg)
	rep := lint.Run(&lint.Input{Result: c.Result, Stage: c.Diagnostics(), Guardrails: cfg.Guardrails}, lint.Config{})
	var out []linttest.Finding
	for _, f := range linttest.Findings(rep.Diagnostics) {
		if strings.HasPrefix(f.Code, "GWP6") {
			out = append(out, f)
		}
	}
	return out
}

// TestGuardrailFixtureLayout: every case has its config beside it.
func TestGuardrailFixtureLayout(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/guardrails/*/*")
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		for _, f := range []string{"gwpol.yaml", "input.yaml"} {
			if _, err := os.Stat(filepath.Join(d, f)); err != nil {
				t.Errorf("%s: %v", d, err)
			}
		}
	}
}
