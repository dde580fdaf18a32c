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

// TestLoadRefusesSpecialFiles: a FIFO, a socket or a device, named with
// -f or found while walking a directory, is refused with an error naming
// it, and never read (a FIFO with no writer would block forever).
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
		for _, input := range []string{c.path, filepath.Dir(c.path)} {
			set, err := loadWithin(t, input)
			if err == nil {
				t.Errorf("%s: read %d objects, want an error", input, len(set.Objects))
				continue
			}
			if msg := err.Error(); !strings.Contains(msg, c.path) || !strings.Contains(msg, c.kind) || diag.KindOf(err) != diag.Invalid {
				t.Errorf("%s: error %q (kind %v); want Invalid naming %s and %q", input, msg, diag.KindOf(err), c.path, c.kind)
			}
		}
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
func loadWithin(t *testing.T, path string) (*Set, error) {
	t.Helper()
	type result struct {
		set *Set
		err error
	}
	done := make(chan result, 1)
	go func() {
		set, err := Load([]string{path}, Options{})
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
