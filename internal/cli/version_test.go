package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestCurrentBuild(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "false"}}
	tests := []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want build
	}{
		{"no build info", nil, false, build{"dev", "none", "unknown"}},
		{"go build outside a checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, build{"dev", "none", "unknown"}},
		{"go build in a checkout", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102030405-abc123"}, Settings: vcs}, true,
			build{"v0.0.0-20260102030405-abc123", "abc123", "2026-01-02T03:04:05Z"}},
		{"modified checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: append(vcs[:2:2], debug.BuildSetting{Key: "vcs.modified", Value: "true"})}, true,
			build{"dev", "abc123-dirty", "2026-01-02T03:04:05Z"}},
		{"go install @version", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, build{"v1.2.3", "none", "unknown"}},
	}
	for _, tt := range tests {
		got := currentBuild(func() (*debug.BuildInfo, bool) { return tt.info, tt.ok })
		if got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestVersionOfPlainBuild builds gwpol the way the README says, in a git
// checkout (a fresh clone: the toolchain does not stamp builds in a git
// worktree), and checks that version reports the checked-out revision.
func TestVersionOfPlainBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gwpol from a fresh clone")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root, err := exec.Command("git", "-C", "../..", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "src")
	if out, err := exec.Command("git", "clone", "-q", strings.TrimSpace(string(root)), dir).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	head, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "gwpol")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "./cmd/gwpol")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "-o", "json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var info map[string]string
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if info["commit"] != strings.TrimSpace(string(head)) || info["version"] == "dev" || info["date"] == "unknown" {
		t.Errorf("version of a plain build = %v, want commit %s, a version and a date", info, head)
	}
}
