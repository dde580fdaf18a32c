//go:build unix

package cli

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
	type refused struct {
		path, want string
		follow     bool
	}
	cases := []refused{
		{fifo, "a FIFO", false}, {sock, "a socket", false}, {sub, "a directory", false},
		{linkToFIFO, "is a symlink", false}, {linkToFIFO, "a FIFO", true}, {dangling, "cannot be followed", true},
	}
	// A copy of /dev/full's node, in the temporary directory (needs root).
	full := filepath.Join(dir, "full")
	if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, 1<<8|7); err == nil {
		cases = append(cases, refused{full, "a character device", false})
	} else {
		t.Logf("no device node (%v): the device case is not run", err)
	}
	for _, c := range cases {
		before, _ := os.Lstat(c.path)
		args := []string{"status", "-f", "testdata/examples", "--out", c.path}
		if c.follow {
			args = append(args, "--out-follow-symlinks")
		}
		_, stderr, code := run(t, args...)
		if code != ExitInput || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "--out") {
			t.Errorf("%s: exit %d, stderr %q; want 3 naming %q", c.path, code, stderr, c.want)
		}
		after, _ := os.Lstat(c.path)
		if before.Mode() != after.Mode() {
			t.Errorf("%s: replaced (%v → %v)", c.path, before.Mode(), after.Mode())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != len(cases)-1 { // two cases share a link
		t.Errorf("refused writes left files behind: %v", entries)
	}
}

// TestOutKeepsModeAndLink: the file written keeps the mode of the one it
// replaces; a symlink at --out is refused, and with --out-follow-symlinks
// stays a symlink to the file that was written.
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
	if _, stderr, code := run(t, "lint", "-f", "testdata/examples", "-o", "json", "--fail-on", "none", "--out", link); code != ExitInput || !strings.Contains(stderr, "--out-follow-symlinks") {
		t.Errorf("a symlink at --out: exit %d, %q; want 3 naming --out-follow-symlinks", code, stderr)
	}
	if data, _ := os.ReadFile(private); !strings.HasPrefix(string(data), "{") || strings.Contains(string(data), `"findings"`) {
		t.Errorf("the refused write changed the link's target: %.80s", data)
	}
	if _, stderr, code := run(t, "lint", "-f", "testdata/examples", "-o", "json", "--fail-on", "none", "--out-follow-symlinks", "--out", link); code != ExitOK {
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
// binary while it writes a render to --out. Whenever the signal lands —
// while the data is written, during the rename, or after — the process
// ends by the signal (or, if it finished first, with exit 0), never with
// an error exit of its own; no temporary is left; and the output is
// either the old file or the complete new one, never a partial one.
func TestOutSignalRemovesTemporary(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a large platform; skipped with -short")
	}
	input, want := signalReference(t)
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
		if !waitForWriting(cmd.Process.Pid, outDir, 60*time.Second) {
			cmd.Wait()
			t.Fatalf("%v: gwpol was never seen writing its output", sig)
		}
		sent := cmd.Process.Signal(sig) == nil
		cmd.Wait()
		status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		switch {
		case !ok:
			t.Fatalf("%v: no wait status", sig)
		case status.Signaled() && status.Signal() == sig:
		case sent && status.Exited() && status.ExitStatus() == 0:
			t.Logf("%v: gwpol finished before the signal arrived", sig)
		default:
			t.Errorf("%v: want the process ended by the signal (or exit 0 when it finished first), got %v", sig, cmd.ProcessState)
		}
		entries, _ := os.ReadDir(outDir)
		if len(entries) != 1 {
			t.Errorf("%v: files left behind: %v", sig, entries)
		}
		if data, _ := os.ReadFile(out); string(data) != "old\n" && !bytes.Equal(data, want) {
			t.Errorf("%v: the output is neither the old file nor the complete render (%d bytes, want %d): %.40q", sig, len(data), len(want), data)
		}
	}
}

// TestOutSignalIgnoredStaysIgnored starts gwpol with SIGINT ignored, as a
// shell does for a background job: SIGINT during --out then changes
// nothing, and the run completes.
func TestOutSignalIgnoredStaysIgnored(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a large platform; skipped with -short")
	}
	input, want := signalReference(t)
	outDir := t.TempDir()
	out := filepath.Join(outDir, "envoy.yaml")
	cmd := exec.Command("/bin/sh", "-c", `trap "" INT; exec "$0" "$@"`, gwpolBin, "render", "-f", input, "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitForWriting(cmd.Process.Pid, outDir, 60*time.Second) {
		cmd.Wait()
		t.Fatalf("gwpol was never seen writing its output: %s", stderr.String())
	}
	for range 3 {
		cmd.Process.Signal(syscall.SIGINT)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("with SIGINT ignored, the run ended %v: %s", err, stderr.String())
	}
	if data, _ := os.ReadFile(out); !bytes.Equal(data, want) {
		t.Errorf("the output is not the complete render (%d bytes, want %d)", len(data), len(want))
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 1 {
		t.Errorf("files left behind: %v", entries)
	}
}

// signalReference is the signal tests' input and its complete render,
// made once per test binary.
func signalReference(t *testing.T) (input string, want []byte) {
	t.Helper()
	signalRef.once.Do(func() {
		dir, err := os.MkdirTemp("", "gwpol-signal")
		if err != nil {
			signalRef.err = err
			return
		}
		signalRef.input = filepath.Join(dir, "platform.yaml")
		if signalRef.err = os.WriteFile(signalRef.input, benchgen.Platform(600), 0o644); signalRef.err != nil {
			return
		}
		out := filepath.Join(dir, "envoy.yaml")
		if msg, err := exec.Command(gwpolBin, "render", "-f", signalRef.input, "--out", out).CombinedOutput(); err != nil {
			signalRef.err = fmt.Errorf("reference render: %v: %s", err, msg)
			return
		}
		signalRef.want, signalRef.err = os.ReadFile(out)
	})
	if signalRef.err != nil {
		t.Fatal(signalRef.err)
	}
	return signalRef.input, signalRef.want
}

var signalRef struct {
	once  sync.Once
	input string
	want  []byte
	err   error
}

// waitForWriting waits until process pid has its output open in dir:
// an unnamed O_TMPFILE there (Linux: /proc/PID/fd shows "DIR/#N
// (deleted)"), or a named temporary.
func waitForWriting(pid int, dir string, limit time.Duration) bool {
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(100 * time.Microsecond) {
		if fds, err := os.ReadDir(fdDir); err == nil {
			for _, fd := range fds {
				if l, err := os.Readlink(filepath.Join(fdDir, fd.Name())); err == nil && strings.HasPrefix(l, dir+"/#") && strings.HasSuffix(l, " (deleted)") {
					return true
				}
			}
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp-") {
				return true
			}
		}
	}
	return false
}

// TestOutWriteFailureIsInputError: a write that fails (here: past the
// file size limit, as on a full disk) is exit 3 naming the file, never
// the usage hint, and leaves nothing behind.
func TestOutWriteFailureIsInputError(t *testing.T) {
	input, _ := signalReference(t)
	outDir := t.TempDir()
	out := filepath.Join(outDir, "envoy.yaml")
	cmd := exec.Command("/bin/sh", "-c", `ulimit -f 4; exec "$0" "$@"`, gwpolBin, "render", "-f", input, "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != ExitInput || !strings.Contains(stderr.String(), "cannot write "+out) || strings.Contains(stderr.String(), "--help") {
		t.Errorf("exit %d, stderr %q; want 3 naming %s without the usage hint", code, stderr.String(), out)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
		t.Errorf("files left behind: %v", entries)
	}
}

// TestOutKillLeavesNothing: SIGKILL while gwpol writes --out leaves the
// old file and nothing else (Linux: the data is in an unnamed O_TMPFILE
// until it is complete).
func TestOutKillLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a large platform; skipped with -short")
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc: unnamed temporaries are not used here")
	}
	input, _ := signalReference(t)
	outDir := t.TempDir()
	out := filepath.Join(outDir, "envoy.yaml")
	if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gwpolBin, "render", "-f", input, "--out", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitForWriting(cmd.Process.Pid, outDir, 60*time.Second) {
		cmd.Wait()
		t.Fatal("gwpol was never seen writing its output")
	}
	cmd.Process.Kill()
	cmd.Wait()
	entries, _ := os.ReadDir(outDir)
	if len(entries) != 1 {
		t.Errorf("files left behind: %v", entries)
	}
}

// TestOutRemovesStaleTemporaries: a temporary a killed run left beside
// the output (.NAME.tmp-PID-N of a process that is gone) is removed by
// the next run; one of a live process, and files gwpol did not name, stay.
func TestOutRemovesStaleTemporaries(t *testing.T) {
	dead := exec.Command("/bin/sh", "-c", "exit 0")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	out := filepath.Join(outDir, "status.txt")
	stale := fmt.Sprintf(".status.txt.tmp-%d-abc", dead.Process.Pid)
	live := fmt.Sprintf(".status.txt.tmp-%d-abc", os.Getpid())
	foreign := ".status.txt.tmp-notgwpol"
	other := fmt.Sprintf(".other.txt.tmp-%d-abc", dead.Process.Pid)
	for _, n := range []string{stale, live, foreign, other} {
		if err := os.WriteFile(filepath.Join(outDir, n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, code := run(t, "status", "-f", "testdata/examples", "--out", out); code != ExitInput && code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var names []string
	entries, _ := os.ReadDir(outDir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{live, other, foreign, "status.txt"}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("after the run: %v, want %v", names, want)
	}
}
