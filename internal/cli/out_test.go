//go:build unix

package cli

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gwpol/gwpol/internal/benchgen"
)

// TestOutRefusesNonRegular: --out replaces only a regular file; anything
// else (made here, in a temporary directory) is refused with exit 3 and
// left as it was.
func TestOutRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere", "x"), dangling); err != nil {
		t.Fatal(err)
	}
	linkToFIFO := filepath.Join(dir, "link-to-fifo")
	if err := os.Symlink(fifo, linkToFIFO); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ path, want string }{
		{fifo, "a FIFO"}, {sock, "a socket"}, {sub, "a directory"}, {linkToFIFO, "a FIFO"}, {dangling, "cannot be followed"},
	}
	// A copy of /dev/full's node, in the temporary directory (needs root).
	full := filepath.Join(dir, "full")
	if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, 1<<8|7); err == nil {
		cases = append(cases, struct{ path, want string }{full, "a character device"})
	} else {
		t.Logf("no device node (%v): the device case is not run", err)
	}
	for _, c := range cases {
		before, _ := os.Lstat(c.path)
		_, stderr, code := run(t, "status", "-f", "testdata/examples", "--out", c.path)
		if code != ExitInput || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "--out") {
			t.Errorf("%s: exit %d, stderr %q; want 3 naming %q", c.path, code, stderr, c.want)
		}
		after, _ := os.Lstat(c.path)
		if before.Mode() != after.Mode() {
			t.Errorf("%s: replaced (%v → %v)", c.path, before.Mode(), after.Mode())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != len(cases) {
		t.Errorf("refused writes left files behind: %v", entries)
	}
}

// TestOutKeepsModeAndLink: the file written keeps the mode of the one it
// replaces, and a symlink stays a symlink to the file that was written.
func TestOutKeepsModeAndLink(t *testing.T) {
	dir := t.TempDir()
	private := filepath.Join(dir, "private.json")
	if err := os.WriteFile(private, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, "status", "-f", "testdata/examples", "-o", "json", "--out", private); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if st, err := os.Stat(private); err != nil || st.Mode().Perm() != 0o600 || st.Size() <= 3 {
		t.Errorf("private output: %v, %v; want mode 0600 and the new content", st, err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("private.json", link); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, "lint", "-f", "testdata/examples", "-o", "json", "--fail-on", "none", "--out", link); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v, %v", st, err)
	}
	if data, err := os.ReadFile(private); err != nil || !strings.Contains(string(data), `"findings"`) && !strings.Contains(string(data), `"diagnostics"`) {
		t.Errorf("the link's target was not written: %v %.80s", err, data)
	}
}

// TestOutSignalRemovesTemporary sends SIGTERM and SIGINT to the built
// binary while it writes a large render to --out: the temporary file is
// gone afterwards, the old file intact, and the process ended by the
// signal.
func TestOutSignalRemovesTemporary(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a large platform; skipped with -short")
	}
	dir := t.TempDir()
	input := filepath.Join(dir, "platform.yaml")
	if err := os.WriteFile(input, benchgen.Platform(600), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		outDir := t.TempDir()
		out := filepath.Join(outDir, "envoy.yaml")
		if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(gwpolBin, "render", "-f", input, "--out", out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if !waitForTemporary(outDir, 60*time.Second) {
			cmd.Wait()
			t.Fatalf("%v: no temporary file appeared while rendering", sig)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ok || !status.Signaled() || status.Signal() != sig {
			t.Errorf("%v: the process did not end by the signal: %v", sig, err)
		}
		entries, _ := os.ReadDir(outDir)
		if len(entries) != 1 {
			t.Errorf("%v: files left behind: %v", sig, entries)
		}
		if data, _ := os.ReadFile(out); string(data) != "old\n" {
			t.Errorf("%v: the old file was changed: %.40q", sig, data)
		}
	}
}

func waitForTemporary(dir string, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp-") {
				return true
			}
		}
	}
	return false
}
