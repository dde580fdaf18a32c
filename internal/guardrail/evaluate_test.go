package guardrail_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/guardrail"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
)

// evaluate compiles files and returns the guardrail findings as
// "FILE:LINE CODE".
func evaluate(t *testing.T, config string, files ...string) []string {
	t.Helper()
	rules, err := parse(t, config)
	if err != nil {
		t.Fatal(err)
	}
	set, err := manifest.Load(files, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.Compile(set, &pipeline.Config{Namespace: "default"})
	var out []string
	for _, d := range guardrail.Evaluate(c.Result, rules) {
		out = append(out, fmt.Sprintf("%s:%d %s", d.Pos.File[strings.LastIndex(d.Pos.File, "/")+1:], d.Pos.Line, d.Code))
	}
	return out
}

// TestRequireSkipsRulesLeftOut: a rule the controller leaves out of the
// Envoy config (an empty regular expression) has nothing in effect and
// is not checked; a rule replaced by a direct response still is.
func TestRequireSkipsRulesLeftOut(t *testing.T) {
	got := evaluate(t, "guardrails:\n- {name: limited, require: [rateLimit.local]}\n", "../../testdata/lint/_base.yaml", "../../testdata/lint/GWP212.yaml")
	want := []string{"GWP212.yaml:9 GWP604", "_base.yaml:23 GWP604"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}

// TestOneFindingPerPolicyField: a route policy's value in effect on the
// route's rule on two listeners is one finding naming both.
func TestOneFindingPerPolicyField(t *testing.T) {
	rules, err := parse(t, "guardrails:\n- {name: cap, fields: [timeouts.request], max: 1s}\n")
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "p.yaml")
	pol := "apiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: slow, namespace: app}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: base}]\n  timeouts: {request: 5s}\n"
	if err := os.WriteFile(f, []byte(pol), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := manifest.Load([]string{"../../testdata/lint/_base.yaml", f}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.Compile(set, &pipeline.Config{Namespace: "default"})
	ds := guardrail.Evaluate(c.Result, rules)
	if len(ds) != 1 || ds[0].Pos.Line != 6 || !strings.Contains(ds[0].Message, "(listener infra/gw/http); HTTPRoute app/base rule main (listener infra/gw/web)") {
		t.Errorf("findings %v, want one at line 6 naming both listeners", ds)
	}
}
