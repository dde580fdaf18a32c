package families

import (
	"fmt"
	"github.com/gwpol/gwpol/internal/pipeline"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
)

// TestPredecodeChangesNoAnswer: compiling objects decoded while they were
// read (Predecode, which releases the trees of the kinds nothing later
// reads) finds what compiling the same input read whole finds — every
// finding with its position, the refused names and lists (GWP113,
// GWP101) included — and types the same objects; for every input under
// testdata/ and a generated platform, under the default namespace and
// another one.
func TestPredecodeChangesNoAnswer(t *testing.T) {
	dir := t.TempDir()
	platform := filepath.Join(dir, "platform.yaml")
	if err := os.WriteFile(platform, benchgen.Platform(300), 0o600); err != nil {
		t.Fatal(err)
	}
	inputs := []string{platform}
	err := filepath.WalkDir("../../testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".json") {
			return err
		}
		inputs = append(inputs, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	refusals, released := 0, 0
	for _, ns := range []string{"", "team-a"} {
		cfg := &pipeline.Config{Namespace: ns}
		for _, in := range inputs {
			whole, err := manifest.Load([]string{in}, manifest.Options{})
			if err != nil {
				continue // an input made to fail loading: nothing to compile
			}
			early, err := manifest.Load([]string{in}, manifest.Options{Each: Predecode(cfg)})
			if err != nil {
				t.Fatalf("%s: loads whole but not with Predecode: %v", in, err)
			}
			for _, o := range early.Objects {
				if o.Released() {
					released++
				}
			}
			want, got := Compile(whole, cfg), Compile(early, cfg)
			wd, gd := findings(want.Diagnostics()), findings(got.Diagnostics())
			if wd != gd {
				t.Errorf("%s (namespace %q): findings with Predecode:\n%s\nwithout:\n%s", in, ns, gd, wd)
			}
			if w, g := typed(want), typed(got); w != g {
				t.Errorf("%s (namespace %q): typed objects with Predecode %s, without %s", in, ns, g, w)
			}
			refusals += strings.Count(wd, "GWP113") + strings.Count(wd, "GWP101")
		}
	}
	if refusals == 0 || released < 1000 {
		t.Errorf("%d refusals and %d released trees: the inputs no longer cover early decoding", refusals, released)
	}
}

func findings(ds []diag.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s %s %s %s %s %s\n", d.Pos, d.Code, d.Severity, d.Object, d.Field, d.Message)
	}
	return b.String()
}

// typed summarises the model: how many objects of each view, and the
// namespace and name of every route.
func typed(c *pipeline.Compiled) string {
	m := c.Model
	var b strings.Builder
	fmt.Fprintf(&b, "%d classes %d gateways %d listenersets %d grants %d services %d namespaces %d secrets %d configmaps %d routes:",
		len(m.GatewayClasses), len(m.Gateways), len(m.ListenerSets), len(m.ReferenceGrants), len(m.Services), len(m.Namespaces), len(m.Secrets), len(m.ConfigMaps), len(m.Routes))
	for _, r := range m.Routes {
		fmt.Fprintf(&b, " %s", r.Src.Ref())
	}
	return b.String()
}
