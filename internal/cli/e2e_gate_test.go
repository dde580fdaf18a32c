package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyInputFails: a CI gate pointed at an empty directory, an empty
// file or empty stdin must not pass silently, in any output format.
func TestEmptyInputFails(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	emptyDir := filepath.Join(dir, "nothing")
	if err := os.Mkdir(emptyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{empty, emptyDir} {
		for _, format := range []string{"text", "json", "sarif", "github"} {
			_, errOut, code := run(t, "lint", "-f", in, "-o", format)
			if code != ExitInput || !strings.Contains(errOut, "no Kubernetes objects found in "+in) {
				t.Errorf("lint -f %s -o %s: exit %d, stderr %q; want exit 3 naming the input", in, format, code, errOut)
			}
		}
		if _, errOut, code := run(t, "lint", "-f", in, "--allow-empty"); code != ExitOK {
			t.Errorf("lint -f %s --allow-empty: exit %d, stderr %q; want 0", in, code, errOut)
		}
	}
	cmd := exec.Command(gwpolBin, "status", "-f", "-")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitInput || !strings.Contains(string(out), "no Kubernetes objects found in <stdin>") {
		t.Errorf("status -f - on empty stdin: %v, %q; want exit 3 naming <stdin>", err, out)
	}
}

// TestConfigTypoFails: a misspelled config key is a usage error naming
// the key, with the nearest valid one.
func TestConfigTypoFails(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "gwpol.yaml")
	if err := os.WriteFile(cfg, []byte("lint:\n  failOnn: warning\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := run(t, "lint", "-f", "testdata/examples", "--config", cfg)
	if code != ExitUsage || !strings.Contains(errOut, `unknown key "lint.failOnn"; did you mean "lint.failOn"?`) {
		t.Errorf("exit %d, stderr %q; want exit 2 with a suggestion", code, errOut)
	}
}
