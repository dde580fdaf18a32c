package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files the tests check, and remove orphaned ones")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Check compares got with the golden file at path; with -update it writes
// got there instead (creating the directory). A golden checked this way
// belongs to no Dirs, so nothing removes it when it is orphaned; use it for
// a golden that lives among other files.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v (go test -update creates it)", err)
		return
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the golden (-want +got; if the change is intended, go test -update rewrites it):\n%s", path, Diff(string(want), string(got)))
	}
}

// Dirs is a set of golden directories and the top-level tests that write
// them. Every file directly in one of the directories is a golden that one
// of those tests checks through Check, except the inputs named by the keep
// patterns. Once every owner test has run to its end in this process,
// passed, and had none of its subtests filtered out by -run or -skip, a
// golden that nothing checked is an orphan: -update removes it, and
// without -update it is an error. A partial run (some owner not run, a
// subtest filter, a failure) leaves the directories alone, so running one
// test never deletes another's goldens. An owner test must not skip a
// subtest that writes a golden.
type Dirs struct {
	dirs   map[string]bool // absolute, cleaned
	owners []string
	keep   []string

	mu       sync.Mutex
	checked  map[string]bool // absolute paths
	started  map[string]bool
	finished map[string]bool
	dirty    bool // an owner failed, was skipped or ran filtered
}

// Own declares dirs (read non-recursively) as written by the top-level
// tests named by owners; keep are filepath.Match patterns of the file
// names in them that are inputs, not goldens. A directory may hold
// goldens of a case that is gone (its input removed): every file in it is
// then an orphan, and -update removes the directory once it is empty.
func Own(dirs []string, keep []string, owners ...string) *Dirs {
	d := &Dirs{dirs: map[string]bool{}, owners: owners, keep: keep,
		checked: map[string]bool{}, started: map[string]bool{}, finished: map[string]bool{}}
	for _, dir := range dirs {
		d.dirs[abs(dir)] = true
	}
	return d
}

// Start is called at the beginning of each owner test with its *testing.T;
// it arranges the orphan sweep for when the test and its subtests end.
func (d *Dirs) Start(t *testing.T) {
	t.Helper()
	name := t.Name()
	if !slices.Contains(d.owners, name) {
		t.Fatalf("golden: %s is not an owner of these golden directories (owners: %v)", name, d.owners)
	}
	d.mu.Lock()
	d.started[name] = true
	d.mu.Unlock()
	t.Cleanup(func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.finished[name] = true
		if t.Failed() || t.Skipped() || subtestsFiltered() {
			d.dirty = true
		}
		if d.dirty || len(d.finished) < len(d.owners) {
			return
		}
		d.sweep(t)
	})
}

// Check is the package's Check for a golden in one of the directories,
// recording that it is not an orphan. Only an owner test (or one of its
// subtests) that called Start may check here.
func (d *Dirs) Check(t testing.TB, path string, got []byte) {
	t.Helper()
	p := abs(path)
	d.mu.Lock()
	inDir, started := d.dirs[filepath.Dir(p)], slices.ContainsFunc(d.owners, func(o string) bool {
		return d.started[o] && (t.Name() == o || strings.HasPrefix(t.Name(), o+"/"))
	})
	if inDir {
		d.checked[p] = true
	}
	d.mu.Unlock()
	switch {
	case !inDir:
		t.Fatalf("golden: %s is not in the directories these goldens own", path)
	case !started:
		t.Fatalf("golden: %s checks %s without calling Start (owners: %v)", t.Name(), path, d.owners)
	}
	Check(t, path, got)
}

// sweep removes (with -update) or reports the orphans; d.mu is held.
func (d *Dirs) sweep(t *testing.T) {
	var orphans []string
	for dir := range d.dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // a directory no golden was written to yet
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if e.Type().IsRegular() && !d.checked[p] && !d.kept(e.Name()) {
				orphans = append(orphans, p)
			}
		}
	}
	slices.Sort(orphans)
	for _, p := range orphans {
		if !*update {
			t.Errorf("golden: %s is checked by no test (go test -update removes it)", rel(p))
			continue
		}
		if err := os.Remove(p); err != nil {
			t.Errorf("golden: removing orphan: %v", err)
			continue
		}
		t.Logf("golden: removed orphan %s", rel(p))
	}
	if !*update {
		return
	}
	for dir := range d.dirs {
		if entries, err := os.ReadDir(dir); err == nil && len(entries) == 0 {
			os.Remove(dir) // a fixture whose input is gone leaves nothing behind
		}
	}
}

func (d *Dirs) kept(name string) bool {
	for _, pat := range d.keep {
		if ok, _ := filepath.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// subtestsFiltered reports whether -run or -skip may have left out a
// subtest: a -run pattern with a subtest part (a '/'), or any -skip.
func subtestsFiltered() bool {
	run, skip := flagValue("test.run"), flagValue("test.skip")
	return strings.Contains(run, "/") || skip != ""
}

func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return a
}

// rel is p relative to the working directory when that is shorter.
func rel(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil {
		return r
	}
	return p
}

// Diff lists the first lines that differ between want and got, numbered.
func Diff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	n := 0
	for i := 0; i < max(len(wl), len(gl)) && n < 20; i++ {
		var x, y string
		if i < len(wl) {
			x = wl[i]
		}
		if i < len(gl) {
			y = gl[i]
		}
		if x != y {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, x, y)
			n++
		}
	}
	return b.String()
}
