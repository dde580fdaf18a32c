package cli

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
)

// codeRun is one input set the pipeline and the views run on.
type codeRun struct {
	files       []string
	config      string // a gwpol.yaml beside the input, "" for the defaults
	defs        string // WSO2 policy definitions, "" for none
	engine      string // WSO2 engine build manifest, "" for none
	allTargets  bool   // render for every target, not only the inferred one
	description string
}

// codeRuns are the input sets of every fixture folder under testdata (each
// folder as a whole; a folder with a _base.yaml also each file with it, as
// lint's fixtures run; the WSO2 folders with each definitions set and
// engine build there is) and every case of the shared conformance sets
// when they are present.
func codeRuns(t *testing.T) []codeRun {
	t.Helper()
	const root = "../../testdata"
	var dirs, defs, engines []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir() && strings.HasPrefix(d.Name(), "defs") && strings.Contains(path, "wso2"):
			defs = append(defs, path)
		case d.IsDir():
			dirs = append(dirs, path)
		case d.Name() == "build-manifest.yaml":
			engines = append(engines, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var runs []codeRun
	for _, dir := range dirs {
		files := inputFiles(t, dir)
		if len(files) == 0 {
			continue
		}
		cfg := ""
		if _, err := os.Stat(filepath.Join(dir, "gwpol.yaml")); err == nil {
			cfg = filepath.Join(dir, "gwpol.yaml")
		}
		runs = append(runs, codeRun{files: []string{dir}, config: cfg, allTargets: true, description: dir})
		if base := filepath.Join(dir, "_base.yaml"); slices.Contains(files, base) {
			for _, f := range files {
				if f != base {
					runs = append(runs, codeRun{files: []string{base, f}, allTargets: true, description: f})
				}
			}
		}
		if strings.Contains(dir, "wso2") {
			for _, d := range defs {
				for _, e := range engines {
					runs = append(runs, codeRun{files: []string{dir}, config: cfg, defs: d, engine: e, description: dir + " with " + d + " and " + e})
				}
			}
		}
	}
	shared, _ := filepath.Glob("../../../shared/conformance/*/cases/*/case.json")
	more, _ := filepath.Glob("../../../shared/conformance/*/more/*/case.json")
	for _, c := range slices.Concat(shared, more) {
		dir := filepath.Dir(c)
		in := filepath.Join(dir, "input.yaml")
		if _, err := os.Stat(in); err != nil {
			continue
		}
		r := codeRun{files: []string{in}, description: dir}
		var cc wso2Case
		if data, err := os.ReadFile(c); err == nil && json.Unmarshal(data, &cc) == nil && cc.Definitions != "" {
			r.defs, r.engine = filepath.Join(dir, cc.Definitions), filepath.Join(dir, cc.EngineManifest)
		}
		runs = append(runs, r)
	}
	return runs
}

// inputFiles are the manifests directly in dir.
func inputFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// TestEmittedCodesRegistered runs the pipeline and the views that make
// findings (render's capability and rendering checks, for every target)
// over every fixture and conformance input, and fails on a finding or a
// rule-breaking reason whose code lint's registry does not list: lint
// would drop it, and --list-rules, the README and SARIF would not
// document it.
func TestEmittedCodesRegistered(t *testing.T) {
	registered := map[string]bool{}
	for _, r := range lintRules() {
		registered[r.Code] = true
	}
	seen := map[string]bool{}
	runs := codeRuns(t)
	for _, run := range runs {
		cfg, _, err := loadConfig(run.config)
		if err != nil {
			t.Fatalf("%s: %v", run.description, err)
		}
		cfg.PolicyDefinitions, cfg.EngineManifest = run.defs, run.engine
		v, err := families.LoadVersions(cfg)
		if err != nil {
			continue // a broken definitions set is an input error, no finding
		}
		set, err := manifest.Load(run.files, manifest.Options{})
		if err != nil {
			t.Fatalf("%s: %v", run.description, err)
		}
		c := families.CompileWith(set, cfg, v)
		ds := c.Diagnostics()
		targets := []string{inferredTarget}
		if run.allTargets {
			targets = targetChoices()
		}
		for _, target := range targets {
			extra, err := lintExtra(c, target)
			var ke *diag.KindError
			if err != nil && !errors.As(err, &ke) {
				t.Fatalf("%s: render %s: %v", run.description, target, err)
			}
			ds = append(ds, extra...)
		}
		for _, broken := range c.Result.Attach.Broken {
			for _, b := range broken {
				ds = append(ds, diag.Diagnostic{Code: b.Code, Message: "rule broken: " + b.Reason})
			}
		}
		for _, d := range ds {
			seen[d.Code] = true
			if !registered[d.Code] {
				t.Errorf("%s: %s %s %q: code %q is not a registered lint rule", run.description, d.Pos, d.Object, d.Message, d.Code)
			}
		}
	}
	if len(runs) == 0 || len(seen) == 0 {
		t.Errorf("%d runs made findings of %d codes: the inputs were not read", len(runs), len(seen))
	}
	t.Logf("%d runs, %d codes seen of %d registered", len(runs), len(seen), len(registered))
}
