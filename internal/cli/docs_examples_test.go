package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// docBlock is one fenced code block of a Markdown file.
type docBlock struct {
	file string
	line int // of the opening fence
	lang string
	text string
}

// docFiles are README.md, SECURITY.md and every Markdown file under docs/:
// walked, so a new document is covered without a list to update.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"../../README.md"}
	if _, err := os.Stat("../../SECURITY.md"); err == nil {
		files = append(files, "../../SECURITY.md")
	}
	err := filepath.WalkDir("../../docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var fence = regexp.MustCompile("^```([a-z]*)\\s*$")

func docBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []docBlock
	var cur *docBlock
	var body []string
	for i, l := range strings.Split(string(data), "\n") {
		m := fence.FindStringSubmatch(l)
		switch {
		case cur == nil && m != nil:
			cur, body = &docBlock{file: path, line: i + 1, lang: m[1]}, nil
		case cur != nil && l == "```":
			cur.text = strings.Join(body, "\n") + "\n"
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body = append(body, l)
		}
	}
	return out
}

// TestDocExamplesLoad: every YAML example in the README and docs/ is
// loaded as what it is — a gwpol config through the config loader (a
// duplicated key or an unknown setting fails), manifests through lint (no
// finding that the document does not read: GWP100–GWP102, GWP109), a
// GitHub workflow using the Action with inputs action.yml declares, a
// pre-commit config with hooks .pre-commit-hooks.yaml declares — and
// every JSON example parses.
func TestDocExamplesLoad(t *testing.T) {
	var action struct{ Inputs map[string]any }
	readYAML(t, "../../action.yml", &action)
	var hooks []struct{ ID string }
	readYAML(t, "../../.pre-commit-hooks.yaml", &hooks)
	var yamlBlocks int
	for _, f := range docFiles(t) {
		for _, b := range docBlocks(t, f) {
			where := strings.TrimPrefix(b.file, "../../") + ":" + strconv.Itoa(b.line)
			switch b.lang {
			case "json":
				if !json.Valid([]byte(b.text)) {
					t.Errorf("%s: JSON example does not parse", where)
				}
				continue
			case "yaml", "yml":
			default:
				continue
			}
			yamlBlocks++
			var top map[string]any
			if err := yaml.Unmarshal([]byte(b.text), &top); err != nil {
				t.Errorf("%s: not valid YAML: %v", where, err)
				continue
			}
			switch {
			case top["apiVersion"] != nil && top["kind"] != nil:
				checkManifestExample(t, where, b.text)
			case top["jobs"] != nil:
				checkWorkflowExample(t, where, b.text, action.Inputs)
			case top["repos"] != nil:
				var cfg struct {
					Repos []struct{ Hooks []struct{ ID string } }
				}
				_ = yaml.Unmarshal([]byte(b.text), &cfg)
				for _, r := range cfg.Repos {
					for _, h := range r.Hooks {
						if !slices.ContainsFunc(hooks, func(x struct{ ID string }) bool { return x.ID == h.ID }) {
							t.Errorf("%s: pre-commit hook %q is not in .pre-commit-hooks.yaml", where, h.ID)
						}
					}
				}
			case top["gwpol"] != nil && strings.Contains(b.text, "script:"):
				// another CI system's job: valid YAML is what can be checked
			default:
				path := filepath.Join(t.TempDir(), DefaultConfigFile)
				if err := os.WriteFile(path, []byte(b.text), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, _, err := loadConfig(path); err != nil {
					t.Errorf("%s: config example does not load: %v", where, err)
				}
			}
		}
	}
	if yamlBlocks < 5 {
		t.Errorf("found only %d YAML examples; is the walk broken?", yamlBlocks)
	}
}

// checkManifestExample lints a manifest example: it may be partial
// (references to objects it does not hold are fine), but every document
// must read as its kind.
func checkManifestExample(t *testing.T, where, text string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "example.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, "lint", "-f", path, "-o", "json", "--fail-on", "none")
	if code != 0 {
		t.Errorf("%s: manifest example: lint exit %d: %s", where, code, stderr)
		return
	}
	var rep jsonReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	for _, d := range rep.Diagnostics {
		if slices.Contains([]string{"GWP100", "GWP101", "GWP102", "GWP104", "GWP107", "GWP108", "GWP109", "GWP111"}, d.Code) {
			t.Errorf("%s: manifest example, line %d: %s %s", where, d.Line, d.Code, d.Message)
		}
	}
}

// checkWorkflowExample: a GitHub workflow step using the Action passes
// only inputs action.yml declares.
func checkWorkflowExample(t *testing.T, where, text string, inputs map[string]any) {
	t.Helper()
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string
				With map[string]any
			}
		}
	}
	if err := yaml.Unmarshal([]byte(text), &wf); err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	for _, j := range wf.Jobs {
		for _, s := range j.Steps {
			if !strings.HasPrefix(s.Uses, "gwpol/gwpol@") {
				continue
			}
			for k := range s.With {
				if _, ok := inputs[k]; !ok {
					t.Errorf("%s: the Action has no input %q", where, k)
				}
			}
		}
	}
}

// TestReadmeSampleOutput: the README's sample output is what gwpol prints
// (each shown line, its table cells' spacing aside, is a line of the
// command's output; "…" marks what is left out).
func TestReadmeSampleOutput(t *testing.T) {
	blocks := docBlocks(t, "../../README.md")
	norm := func(s string) string {
		return strings.Join(strings.Fields(strings.TrimRight(strings.TrimSpace(s), "│")), " ")
	}
	var checked int
	for _, b := range blocks {
		if b.lang != "text" {
			continue
		}
		var got []string
		for _, l := range strings.Split(b.text, "\n") {
			switch {
			case strings.HasPrefix(l, "$ gwpol "):
				cmdLine, _, _ := strings.Cut(strings.TrimPrefix(l, "$ gwpol "), "#")
				cmd := exec.Command(gwpolBin, strings.Fields(cmdLine)...)
				cmd.Dir = "../.."
				cmd.Env = append(os.Environ(), "NO_COLOR=1")
				out, _ := cmd.Output()
				got = nil
				for _, o := range strings.Split(string(out), "\n") {
					got = append(got, norm(o))
				}
			case l == "" || l == "…":
			default:
				if !slices.Contains(got, norm(l)) {
					t.Errorf("README sample line is not in the output: %q", l)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no sample output checked")
	}
}

// TestReadmeFrontDoor: the README stays a front door (at most 250 lines)
// and every relative link in it and in docs/ leads to a file that exists.
func TestReadmeFrontDoor(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 250 {
		t.Errorf("README.md has %d lines; keep it at most 250 and put detail under docs/", n)
	}
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	for _, f := range docFiles(t) {
		data, _ := os.ReadFile(f)
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", strings.TrimPrefix(f, "../../"), target)
			}
		}
	}
}
