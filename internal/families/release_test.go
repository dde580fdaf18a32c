package families

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/status"
)

// TestReleasedTreesChangeNoAnswer: compiling with pipeline.Config.ReleaseTrees
// (every tree let go once the policies are decoded, as render and lint
// compile) finds what compiling with the trees held finds — every finding
// with its position, read again from the objects' texts — and reports
// the same status, for every input under testdata/ and generated
// platforms of both flavours.
func TestReleasedTreesChangeNoAnswer(t *testing.T) {
	dir := t.TempDir()
	inputs := []string{}
	for name, data := range map[string][]byte{"kgateway.yaml": benchgen.Platform(300), "envoygateway.yaml": benchgen.PlatformEnvoyGateway(300)} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, p)
	}
	err := filepath.WalkDir("../../testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".json") {
			return err
		}
		inputs = append(inputs, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	compile := func(in string, release bool) (*pipeline.Compiled, bool) {
		set, err := manifest.Load([]string{in}, manifest.Options{})
		if err != nil {
			return nil, false // an input made to fail loading: nothing to compile
		}
		return Compile(set, &pipeline.Config{ReleaseTrees: release}), true
	}
	released, positioned := 0, 0
	for _, in := range inputs {
		want, ok := compile(in, false)
		if !ok {
			continue
		}
		got, _ := compile(in, true)
		for _, o := range got.Set.Objects {
			if o.Released() {
				released++
			}
		}
		wd, gd := findings(want.Diagnostics()), findings(got.Diagnostics())
		if wd != gd {
			t.Errorf("%s: findings with the trees released:\n%s\nheld:\n%s", in, gd, wd)
		}
		for _, d := range want.Diagnostics() {
			if d.Pos.Line > 0 {
				positioned++
			}
		}
		ws, gs := statusJSON(t, want), statusJSON(t, got)
		if ws != gs {
			t.Errorf("%s: status with the trees released:\n%s\nheld:\n%s", in, gs, ws)
		}
	}
	t.Logf("%d inputs, %d trees released, %d findings with a position", len(inputs), released, positioned)
	if released < 1000 || positioned < 100 {
		t.Errorf("%d released trees and %d positioned findings: the inputs no longer cover releasing", released, positioned)
	}
}

func statusJSON(t *testing.T, c *pipeline.Compiled) string {
	b, err := json.Marshal(status.Compute(c.Result, status.Options{ControllerName: c.Config.ControllerName}))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
