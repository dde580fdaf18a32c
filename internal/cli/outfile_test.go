package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// TestWriteDerivedStaysInside: a file name derived from the input is
// written only as one plain name inside the --out directory; "..",
// absolute names, separators and hidden names are refused, and a symlink
// in the directory pointing outside is never followed.
func TestWriteDerivedStaysInside(t *testing.T) {
	base := t.TempDir()
	outDir := filepath.Join(base, "out")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(base, "victim.yaml")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(outDir, "default-gw.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(base, filepath.Join(outDir, "up")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(outDir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ios, _, _ := Test("", false)
	g := &globalOptions{IO: ios}
	for _, name := range []string{"../victim.yaml", "/" + victim, victim, "up/victim.yaml", "a/../../victim.yaml", `..\victim.yaml`, ".hidden", "", "..", "default-gw.yaml", "up"} {
		if err := writeDerived(g, root, outDir, name, writeString("evil\n")); err == nil {
			t.Errorf("%q: written", name)
		}
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
		t.Errorf("the file outside --out was changed: %q", data)
	}
	if st, err := os.Lstat(filepath.Join(outDir, "default-gw.yaml")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink in the out directory was replaced: %v %v", st, err)
	}
	if err := writeDerived(g, root, outDir, "infra-public.yaml", writeString("ok\n")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(outDir, "infra-public.yaml")); string(data) != "ok\n" {
		t.Errorf("plain name: %q", data)
	}
}

// TestBootstrapFileName: the bootstrap file name is built only from a
// namespace and a name the API server would accept.
func TestBootstrapFileName(t *testing.T) {
	for _, c := range []struct{ ns, name string }{
		{"default", "/../../../../../../victim"}, {"..", "gw"}, {"default", ".."}, {"a/b", "gw"}, {"default", "gw/x"},
		{"default", "gw\n"}, {"", "gw"}, {"default", ""}, {"default", strings.Repeat("a", 254)}, {"Default", "gw"},
	} {
		if got, err := bootstrapFileName(c.ns, c.name, "yaml"); err == nil {
			t.Errorf("%q/%q: named %q", c.ns, c.name, got)
		}
	}
	if got, err := bootstrapFileName("infra", "public.v2", "json"); err != nil || got != "infra-public.v2.json" {
		t.Errorf("valid: %q, %v", got, err)
	}
}

// TestNamedTemporary: the portable path (a named temporary renamed over
// the output) writes the output with its mode and leaves no temporary,
// committed or discarded.
func TestNamedTemporary(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	guard := guardTemporary(root)
	f, err := createNamed(root, "out.yaml", 0o640, guard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, "data\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.commit(); err != nil {
		t.Fatal(err)
	}
	f.discard() // after a commit: nothing to undo
	g2, err := createNamed(root, "other.yaml", 0o644, guard)
	if err != nil {
		t.Fatal(err)
	}
	g2.discard()
	guard.stop()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "out.yaml" {
		t.Fatalf("directory holds %v, want only out.yaml", entries)
	}
	st, _ := os.Stat(filepath.Join(dir, "out.yaml"))
	if data, _ := os.ReadFile(filepath.Join(dir, "out.yaml")); string(data) != "data\n" || st.Mode().Perm() != 0o640 {
		t.Errorf("out.yaml: %q mode %v", data, st.Mode().Perm())
	}
}
