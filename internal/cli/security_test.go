//go:build unix

package cli

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/gwpol/gwpol/internal/lint"
)

// hostileGateways: Gateways whose names try to leave --out, beside two
// valid ones.
const hostileGateways = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kgateway}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: "/../../../../../../victim", namespace: default}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: "..", namespace: default}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: "VICTIM_ABS", namespace: "/tmp"}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: "escape", namespace: ".."}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: ok, namespace: default}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: linked, namespace: default}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, protocol: HTTP, port: 81}]
`

// TestRenderOutDirConfined: render --bootstrap --out DIR writes one file
// per valid Gateway inside DIR and nothing anywhere else: Gateways named
// "/../…", "..", or in namespace ".." or "/tmp" are GWP113 errors and
// rendered nowhere; a symlink in DIR pointing outside is not followed.
func TestRenderOutDirConfined(t *testing.T) {
	base := t.TempDir()
	deep := filepath.Join(base, "a", "b", "c", "d", "e", "f")
	outDir := filepath.Join(deep, "out")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(base, "in.yaml")
	if err := os.WriteFile(input, []byte(hostileGateways), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "outside.yaml")
	if err := os.WriteFile(outside, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(outDir, "default-linked.yaml")); err != nil {
		t.Fatal(err)
	}
	before := treeOf(t, base)
	_, stderr, code := run(t, "render", "-f", input, "--bootstrap", "--out", outDir)
	if code != ExitInput || !strings.Contains(stderr, "default-linked.yaml is a symlink") {
		t.Errorf("render through a symlink in the out dir: exit %d, %s", code, stderr)
	}
	if got := strings.Count(stderr, "GWP113"); got != 5 {
		t.Errorf("%d GWP113 findings, want 5 (each bad name and namespace):\n%s", got, stderr)
	}
	if data, _ := os.ReadFile(outside); string(data) != "precious\n" {
		t.Errorf("the file outside --out was written: %q", data)
	}
	// Without the link, both valid Gateways are written and nothing else.
	if err := os.Remove(filepath.Join(outDir, "default-linked.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, "render", "-f", input, "--bootstrap", "--out", outDir); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	after := treeOf(t, base)
	want := map[string]bool{"in.yaml": true, "outside.yaml": true, "a/b/c/d/e/f/out/default-ok.yaml": true, "a/b/c/d/e/f/out/default-linked.yaml": true}
	if !maps.Equal(after, want) {
		t.Errorf("files after render: %v, want only %v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(want)))
	}
	for _, p := range []string{"/victim.yaml", "/tmp/tmp-VICTIM_ABS.yaml", filepath.Join(deep, "..-escape.yaml")} {
		if _, err := os.Lstat(p); err == nil && !before[p] {
			t.Errorf("%s exists", p)
		}
	}
	// lint: the names are errors, exit 1.
	if _, _, code := run(t, "lint", "-f", input); code != ExitFindings {
		t.Errorf("lint exit %d, want 1", code)
	}
}

// treeOf lists the files under dir, relative to it.
func treeOf(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out[rel] = true
		}
		return nil
	})
	return out
}

// TestUnpositionedFindings: a file that cannot be read (here: over
// --max-file-size) is reported naming the file, with no made-up 0:0 (or
// 1:1) position in any format.
func TestUnpositionedFindings(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte(strings.Repeat("# padding\n", 50)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ format, bad string }{
		{"json", `"line"`}, {"github", "line="}, {"sarif", `"region"`}, {"text", ":0"},
	} {
		stdout, stderr, code := run(t, "lint", "-f", big, "--max-file-size", "100", "-o", c.format)
		if code != ExitInput || !strings.Contains(stdout+stderr, "big.yaml") || !strings.Contains(stdout, "GWP100") {
			t.Errorf("%s: exit %d, %s %s; want 3 and GWP100 naming big.yaml", c.format, code, stdout, stderr)
		}
		if strings.Contains(stdout, c.bad) {
			t.Errorf("%s: a made-up position (%s) in %s", c.format, c.bad, stdout)
		}
	}
}

// TestFIFOInInputDirectory: a FIFO among the manifests is a GWP114
// warning and the rest is linted; excluded, it is not mentioned. Neither
// run hangs (the FIFO has no writer: opening it would block).
func TestFIFOInInputDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "svc.yaml"), []byte("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: app}\nspec: {ports: [{port: 80}]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, "lint", "-f", dir, "-o", "json")
	if code != ExitOK || !strings.Contains(stdout, "GWP114") || !strings.Contains(stdout, "pipe.yaml") {
		t.Errorf("exit %d: %s %s; want 0 with a GWP114 warning naming pipe.yaml", code, stdout, stderr)
	}
	stdout, stderr, code = run(t, "lint", "-f", dir, "--exclude", "**/pipe.yaml", "-o", "json")
	if code != ExitOK || strings.Contains(stdout, "pipe.yaml") {
		t.Errorf("excluded: exit %d: %s %s; want 0, the FIFO unmentioned", code, stdout, stderr)
	}
}

// TestSymlinkOutsideInputDirectory: a symlink committed among the
// manifests that points outside the -f directory (at the runner's
// credentials, say) is a GWP115 warning in every format, and nothing is
// read through it — not even into a parse error; excluded, it is not
// mentioned.
func TestSymlinkOutsideInputDirectory(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "svc.yaml"), []byte("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: app}\nspec: {ports: [{port: 80}]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file the lint would quote if it read it: a name it refuses and a
	// document that does not parse.
	creds := filepath.Join(outside, "credentials")
	if err := os.WriteFile(creds, []byte("apiVersion: v1\nkind: Service\nmetadata: {name: GWPOL-OUTSIDE-MARKER}\n---\ntoken: GWPOL-OUTSIDE-MARKER\n  : [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(creds, filepath.Join(dir, "creds.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "home")); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json", "sarif", "github"} {
		stdout, stderr, code := run(t, "lint", "-f", dir, "-o", format)
		if code != ExitOK || strings.Count(stdout, "GWP115") < 2 || !strings.Contains(stdout, "creds.yaml") || strings.Contains(stdout+stderr, "MARKER") {
			t.Errorf("%s: exit %d: %s %s; want 0 with GWP115 at creds.yaml and home, nothing read through them", format, code, stdout, stderr)
		}
	}
	stdout, stderr, code := run(t, "lint", "-f", dir, "--exclude", "**/creds.yaml", "--exclude", "**/home", "-o", "json")
	if code != ExitOK || strings.Contains(stdout, "GWP115") || strings.Contains(stdout+stderr, "MARKER") {
		t.Errorf("excluded: exit %d: %s %s; want 0, the links unmentioned", code, stdout, stderr)
	}
}

// TestGitHubNotesInert: the notes of a run that exits 3 (why it could not
// read its input, which may name a file found in an input directory) are
// written as GitHub workflow commands as findings are: control characters
// escaped, one command a line, whatever the name holds.
func TestGitHubNotesInert(t *testing.T) {
	var b strings.Builder
	writeGitHub(&b, &lint.Report{}, []string{"x/\x1b]0;owned\a\x1b[2J\u202e.yaml: cannot read\n::error file=a.yaml::forged\r::add-mask::%0A"})
	if bad := rawControl(b.String()); bad != "" {
		t.Errorf("note has %s raw: %q", bad, b.String())
	}
	if err := checkGitHubCommands(b.String()); err != nil || strings.Count(b.String(), "\n") != 1 {
		t.Errorf("want one well-formed command: %v\n%s", err, b.String())
	}
}
