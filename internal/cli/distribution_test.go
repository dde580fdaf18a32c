package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// actionLint runs the GitHub Action's lint step (action/lint.sh) as the
// runner would, with the locally built gwpol instead of the released one,
// in the repository root; it returns the step outputs and stdout.
func actionLint(t *testing.T, env ...string) (outputs map[string]string, stdout string) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found")
	}
	dir := t.TempDir()
	outFile := filepath.Join(dir, "github-output")
	cmd := exec.Command("bash", "action/lint.sh")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), append([]string{"GWPOL=" + gwpolBin, "GITHUB_OUTPUT=" + outFile, "NO_COLOR=1",
		"INPUT_SARIF_FILE=" + filepath.Join(dir, "gwpol.sarif")}, env...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("action/lint.sh %v: %v\n%s", env, err, errOut.String())
	}
	data, _ := os.ReadFile(outFile)
	outputs = map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			outputs[k] = v
		}
	}
	return outputs, out.String()
}

// TestActionScript exercises the Action's lint step against testdata: it
// always writes a SARIF log that validates (also on exit 3), prints
// annotations, and reports gwpol's exit code, gated by fail-on, as the
// step output the Action exits with.
func TestActionScript(t *testing.T) {
	for _, tt := range []struct {
		name     string
		env      []string
		wantCode string
		wantOut  string
	}{
		{"findings fail the step", []string{"INPUT_PATHS=testdata/examples", "INPUT_FAIL_ON=error"}, "1", "::error file=testdata/examples/"},
		{"fail-on none", []string{"INPUT_PATHS=testdata/examples", "INPUT_FAIL_ON=none"}, "0", "::warning file=testdata/examples/"},
		{"several paths, extra args", []string{"INPUT_PATHS=testdata/assume/platform.yaml\ntestdata/lint/GWP217.yaml", "INPUT_ARGS=--assume-exist Secret --assume-exist Service", "INPUT_FAIL_ON=warning"},
			"1", "title=GWP217::"},
		{"only Helm templates: exit 3, with a report", []string{"INPUT_PATHS=testdata/helm-only"}, "3", "::error title=gwpol::no Kubernetes objects found"},
		{"config file", []string{"INPUT_PATHS=testdata/assume/platform.yaml", "INPUT_CONFIG=testdata/assume/gwpol.yaml"}, "0", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			outputs, stdout := actionLint(t, tt.env...)
			if outputs["exit-code"] != tt.wantCode {
				t.Errorf("exit-code = %q, want %s; stdout:\n%s", outputs["exit-code"], tt.wantCode, stdout)
			}
			if !strings.Contains(stdout, tt.wantOut) {
				t.Errorf("annotations lack %q:\n%s", tt.wantOut, stdout)
			}
			log, err := os.ReadFile(outputs["sarif-file"])
			if err != nil {
				t.Fatalf("no SARIF log: %v", err)
			}
			if err := checkSARIF(log); err != nil {
				t.Errorf("SARIF fails the schema: %v", err)
			}
		})
	}
}

// TestActionDefinition: action.yml is a composite Action whose steps run
// the scripts under action/ with the inputs it declares, uploads the SARIF
// log and exits with gwpol's code; install.sh downloads the archive
// goreleaser names.
func TestActionDefinition(t *testing.T) {
	var action struct {
		Name    string
		Inputs  map[string]struct{ Default string }
		Outputs map[string]struct{ Value string }
		Runs    struct {
			Using string
			Steps []struct {
				ID, Name, Run, Uses, If string
				Shell                   string
				Env                     map[string]string
				With                    map[string]string
			}
		}
	}
	readYAML(t, "../../action.yml", &action)
	if action.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", action.Runs.Using)
	}
	for _, in := range []string{"paths", "config", "fail-on", "version", "args", "sarif-file", "upload-sarif"} {
		if _, ok := action.Inputs[in]; !ok {
			t.Errorf("input %s missing", in)
		}
	}
	used := map[string]bool{}
	var uploads bool
	for _, s := range action.Runs.Steps {
		for _, v := range s.Env {
			for _, m := range regexp.MustCompile(`inputs\.([a-z-]+)`).FindAllStringSubmatch(v, -1) {
				used[m[1]] = true
			}
		}
		if m := regexp.MustCompile(`\$GITHUB_ACTION_PATH/(action/[a-z-]+\.sh)`).FindStringSubmatch(s.Run); m != nil {
			if _, err := os.Stat(filepath.Join("../..", m[1])); err != nil {
				t.Errorf("step %q runs %s: %v", s.Name, m[1], err)
			}
			if err := exec.Command("bash", "-n", filepath.Join("../..", m[1])).Run(); err != nil {
				t.Errorf("%s: bash -n: %v", m[1], err)
			}
		} else if s.Run != "" && !strings.Contains(s.Run, "exit") {
			t.Errorf("step %q runs inline code; keep it in a script under action/ so tests run it", s.Name)
		}
		if strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@") {
			uploads = strings.Contains(s.With["sarif_file"], "steps.lint.outputs.sarif-file")
		}
	}
	for _, in := range []string{"paths", "config", "fail-on", "version", "args", "sarif-file"} {
		if !used[in] {
			t.Errorf("input %s is declared but no step uses it", in)
		}
	}
	if !uploads {
		t.Errorf("no step uploads the SARIF log the lint step wrote")
	}
	install, _ := os.ReadFile("../../action/install.sh")
	var gr goreleaser
	readYAML(t, "../../.goreleaser.yaml", &gr)
	if a := gr.archive("gwpol"); a == nil || a.NameTemplate != "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" ||
		!strings.Contains(string(install), `archive="gwpol_${version}_${os}_${arch}.${ext}"`) {
		t.Errorf("action/install.sh and .goreleaser.yaml disagree on the archive name")
	}
}

type goreleaser struct {
	Builds []struct {
		ID, Main, Binary string
		Goos, Goarch     []string
	}
	Archives []struct {
		ID           string
		IDs          []string `yaml:"ids"`
		NameTemplate string   `yaml:"name_template"`
	}
}

func (g goreleaser) archive(id string) *struct {
	ID           string
	IDs          []string `yaml:"ids"`
	NameTemplate string   `yaml:"name_template"`
} {
	for i := range g.Archives {
		if g.Archives[i].ID == id {
			return &g.Archives[i]
		}
	}
	return nil
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestPreCommitHook: .pre-commit-hooks.yaml declares gwpol-lint, built from
// this repository (language golang), run once over its args (lint needs
// the manifests as a whole), on YAML and JSON changes; its entry and args
// are a lint invocation the built gwpol runs.
func TestPreCommitHook(t *testing.T) {
	var hooks []struct {
		ID            string   `yaml:"id"`
		Name          string   `yaml:"name"`
		Entry         string   `yaml:"entry"`
		Language      string   `yaml:"language"`
		Args          []string `yaml:"args"`
		PassFilenames *bool    `yaml:"pass_filenames"`
		Files         string   `yaml:"files"`
	}
	readYAML(t, "../../.pre-commit-hooks.yaml", &hooks)
	if len(hooks) != 1 || hooks[0].ID != "gwpol-lint" {
		t.Fatalf("hooks = %+v, want one gwpol-lint", hooks)
	}
	h := hooks[0]
	if h.Language != "golang" || h.PassFilenames == nil || *h.PassFilenames || h.Name == "" {
		t.Errorf("hook %+v: want language golang, pass_filenames false and a name", h)
	}
	files := regexp.MustCompile(h.Files)
	for name, want := range map[string]bool{"deploy/gw.yaml": true, "a.yml": true, "b.json": true, "main.go": false, "yaml.txt": false} {
		if files.MatchString(name) != want {
			t.Errorf("files %q matches %s: %v, want %v", h.Files, name, !want, want)
		}
	}
	entry := strings.Fields(h.Entry)
	if len(entry) < 2 || entry[0] != "gwpol" || entry[1] != "lint" {
		t.Fatalf("entry %q: want gwpol lint", h.Entry)
	}
	if !slices.Equal(h.Args, []string{"-f", "."}) {
		t.Errorf("args = %v, want -f . (the whole repository, which users narrow)", h.Args)
	}
	// The entry with the args a user gives, run by the built binary.
	args := append(slices.Clone(entry[1:]), "-f", "testdata/examples")
	_, stderr, code := run(t, args...)
	if code != ExitFindings {
		t.Errorf("%v: exit %d, want 1 (the examples hold errors): %s", args, code, stderr)
	}
}

// TestKrewManifest: the krew template names, for every platform goreleaser
// builds the plugin for, the kubectl-gwpol archive goreleaser makes, with
// the kubectl-gwpol binary in it.
func TestKrewManifest(t *testing.T) {
	var gr goreleaser
	readYAML(t, "../../.goreleaser.yaml", &gr)
	krew, err := os.ReadFile("../../.krew.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a := gr.archive("kubectl-gwpol")
	if a == nil || a.NameTemplate != "kubectl-gwpol_{{ .Os }}_{{ .Arch }}" {
		t.Fatalf("goreleaser has no kubectl-gwpol archive named kubectl-gwpol_OS_ARCH")
	}
	var built bool
	for _, b := range gr.Builds {
		if b.ID != "kubectl-gwpol" {
			continue
		}
		built = b.Binary == "kubectl-gwpol" && b.Main == "./cmd/gwpol"
		for _, os := range b.Goos {
			for _, arch := range b.Goarch {
				ext := "tar.gz"
				if os == "windows" {
					ext = "zip"
				}
				url := fmt.Sprintf("/releases/download/{{ .TagName }}/kubectl-gwpol_%s_%s.%s", os, arch, ext)
				if !strings.Contains(string(krew), url) || !strings.Contains(string(krew), fmt.Sprintf("{os: %s, arch: %s}", os, arch)) {
					t.Errorf(".krew.yaml lacks the %s/%s platform (%s)", os, arch, url)
				}
			}
		}
	}
	if !built {
		t.Errorf("goreleaser builds no kubectl-gwpol binary from ./cmd/gwpol")
	}
	if !strings.Contains(string(krew), "kind: Plugin") || !strings.Contains(string(krew), "bin: kubectl-gwpol") {
		t.Errorf(".krew.yaml is not a krew Plugin manifest for kubectl-gwpol")
	}
}
