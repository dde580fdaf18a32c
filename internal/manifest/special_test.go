//go:build unix

package manifest

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gwpol/gwpol/internal/diag"
)

// TestLoadRefusesSpecialFiles: a FIFO, a socket or a device named with
// -f is refused with an error naming it; found while walking a directory,
// it is skipped unread with a GWP114 warning naming the file (no made-up
// line), and the directory's other files are read.
func TestLoadRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"ok.yaml": svc("a")})
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ path, kind string }{{fifo, "a FIFO"}}
	sockDir := t.TempDir()
	sock := filepath.Join(sockDir, "s.yaml")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cases = append(cases, struct{ path, kind string }{sock, "a socket"})
	devDir := t.TempDir()
	zero := filepath.Join(devDir, "zero.yaml")
	// A copy of /dev/zero's node, in the temporary directory (needs root).
	if err := syscall.Mknod(zero, syscall.S_IFCHR|0o444, 1<<8|5); err == nil {
		cases = append(cases, struct{ path, kind string }{zero, "a character device"})
	} else {
		t.Logf("no device node (%v): the device case is not run", err)
	}
	for _, c := range cases {
		set, err := loadWithin(t, c.path, nil)
		if err == nil {
			t.Errorf("%s: read %d objects, want an error", c.path, len(set.Objects))
		} else if msg := err.Error(); !strings.Contains(msg, c.path) || !strings.Contains(msg, c.kind) || diag.KindOf(err) != diag.Invalid {
			t.Errorf("%s: error %q (kind %v); want Invalid naming %s and %q", c.path, msg, diag.KindOf(err), c.path, c.kind)
		}
		set, err = loadWithin(t, filepath.Dir(c.path), nil)
		if err != nil {
			t.Errorf("%s: %v; want the directory read and the file skipped", filepath.Dir(c.path), err)
			continue
		}
		if len(set.Problems) != 1 || set.Problems[0].Code != LintNotARegularFile.Code || set.Problems[0].Pos != (diag.Position{File: c.path}) ||
			!strings.Contains(set.Problems[0].Message, c.kind) || set.Unreadable() {
			t.Errorf("%s: problems %v; want one GWP114 at the file naming %q", c.path, set.Problems, c.kind)
		}
	}
	if set, _ := loadWithin(t, dir, nil); set == nil || len(set.Objects) != 1 {
		t.Errorf("the directory's manifest was not read beside the FIFO")
	}
}

// TestSpecialFileNeverOpened: a FIFO in an input directory is not opened,
// excluded or not (a writer blocked opening it would wake if a reader
// did), and an excluded one raises no finding. The test cannot hang: the
// writer is released at the end, and Load runs under a deadline.
func TestSpecialFileNeverOpened(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"ok.yaml": svc("a")})
	fifo := filepath.Join(dir, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	opened := make(chan struct{})
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until a reader opens
		if err == nil {
			f.Close()
		}
		close(opened)
	}()
	for _, exclude := range [][]string{nil, {"**/pipe.yaml"}} {
		set, err := loadWithin(t, dir, exclude)
		if err != nil {
			t.Fatal(err)
		}
		if want := len(exclude) == 0; (len(set.Problems) == 1) != want || len(set.Objects) != 1 {
			t.Errorf("exclude %v: problems %v, objects %d", exclude, set.Problems, len(set.Objects))
		}
	}
	select {
	case <-opened:
		t.Error("Load opened the FIFO")
	case <-time.After(100 * time.Millisecond):
	}
	// Release the writer: a non-blocking reader lets its open return.
	if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		<-opened
		r.Close()
	}
}

// TestReadInputDoesNotBlockOnFIFO: the open itself cannot hang, even on
// a FIFO that appeared after the paths were checked.
func TestReadInputDoesNotBlockOnFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "late.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := readInput(fifo, Options{Limits: Limits{}.withDefaults()})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "a FIFO") {
			t.Errorf("error %v, want one naming a FIFO", err)
		}
	case <-time.After(10 * time.Second):
		os.WriteFile(fifo, nil, 0) // unblock the reader so the test can end
		t.Fatal("reading a FIFO blocked")
	}
}

// loadWithin fails the test instead of hanging when Load blocks.
func loadWithin(t *testing.T, path string, exclude []string) (*Set, error) {
	t.Helper()
	type result struct {
		set *Set
		err error
	}
	done := make(chan result, 1)
	go func() {
		set, err := Load([]string{path}, Options{Exclude: exclude})
		done <- result{set, err}
	}()
	select {
	case r := <-done:
		return r.set, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: Load blocked", path)
		return nil, nil
	}
}
