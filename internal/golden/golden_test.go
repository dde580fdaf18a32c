package golden

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const importPath = "github.com/gwpol/gwpol/internal/golden"

// TestEveryTestPackageLinksGolden keeps `go test ./... -update` working: a
// test binary that does not define -update refuses it, so every directory
// with tests must import this package from one of its test files.
func TestEveryTestPackageLinksGolden(t *testing.T) {
	root := "../.."
	testFiles := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && p != root && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !e.IsDir() && strings.HasSuffix(p, "_test.go") {
			testFiles[filepath.Dir(p)] = append(testFiles[filepath.Dir(p)], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(testFiles) < 2 {
		t.Fatalf("found tests in %d directories; is the walk rooted at the repository?", len(testFiles))
	}
	var missing []string
	for dir, files := range testFiles {
		if abs(dir) == abs(".") {
			continue // this package defines the flag
		}
		if !slices.ContainsFunc(files, importsGolden(t)) {
			missing = append(missing, filepath.ToSlash(strings.TrimPrefix(dir, root+string(filepath.Separator))))
		}
	}
	slices.Sort(missing)
	for _, dir := range missing {
		t.Errorf("%s has tests but none imports %s: add an update_test.go with a blank import, or `go test ./... -update` fails there", dir, importPath)
	}
}

func importsGolden(t *testing.T) func(string) bool {
	return func(file string) bool {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == importPath {
				return true
			}
		}
		return false
	}
}

// TestOwnersExist: a golden directory's orphans are swept only once every
// owner test ran, so an owner named in an Own call that no longer exists
// (renamed, or moved to another package) would silently stop the sweep.
// Every owner given as a string literal must be a test of the package
// that declares it.
func TestOwnersExist(t *testing.T) {
	calls := 0
	err := filepath.WalkDir("../..", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && p != "../.." && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !e.IsDir() {
			return nil
		}
		files, _ := filepath.Glob(filepath.Join(p, "*_test.go"))
		tests := map[string]bool{}
		type owner struct {
			name string
			pos  token.Position
		}
		var owners []owner
		fset := token.NewFileSet()
		for _, file := range files {
			f, err := parser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			local := ""
			for _, imp := range f.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); path == importPath {
					local = "golden"
					if imp.Name != nil {
						local = imp.Name.Name
					}
				}
			}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Test") {
					tests[fd.Name.Name] = true
				}
			}
			if local == "" || local == "_" {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Own" {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != local {
					return true
				}
				calls++
				for _, arg := range call.Args[min(2, len(call.Args)):] {
					if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						name, _ := strconv.Unquote(lit.Value)
						owners = append(owners, owner{name, fset.Position(lit.Pos())})
					}
				}
				return true
			})
		}
		for _, o := range owners {
			if top, _, _ := strings.Cut(o.name, "/"); !tests[top] {
				t.Errorf("%s: golden owner %s is not a test of this package, so its directories are never swept", o.pos, o.name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Fatal("found no golden.Own call in the repository")
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "out.txt")
	withUpdate(t, false)
	ft := &fakeT{TB: t}
	Check(ft, path, []byte("a\n"))
	if !ft.failed || !strings.Contains(ft.msg, "-update") {
		t.Errorf("missing golden: failed=%v %q", ft.failed, ft.msg)
	}
	withUpdate(t, true)
	Check(t, path, []byte("a\nb\n"))
	withUpdate(t, false)
	Check(t, path, []byte("a\nb\n"))
	ft = &fakeT{TB: t}
	Check(ft, path, []byte("a\nc\n"))
	if !ft.failed || !strings.Contains(ft.msg, "line 2:\n- b\n+ c") {
		t.Errorf("differing golden: failed=%v %q", ft.failed, ft.msg)
	}
}

// TestDirsSweep: orphans go only when every owner ran and passed.
func TestDirsSweep(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"input.yaml", "kept.txt", "orphan.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	withUpdate(t, true)
	// One of two owners ran: nothing is removed.
	d := Own([]string{dir}, []string{"input.yaml"}, t.Name()+"/a", t.Name()+"/b")
	t.Run("a", func(t *testing.T) {
		d.Start(t)
		d.Check(t, filepath.Join(dir, "kept.txt"), []byte("y\n"))
	})
	if !exists(filepath.Join(dir, "orphan.txt")) {
		t.Fatal("orphan removed although owner b has not run")
	}
	t.Run("b", func(t *testing.T) { d.Start(t) })
	if exists(filepath.Join(dir, "orphan.txt")) {
		t.Error("orphan kept after every owner ran")
	}
	if !exists(filepath.Join(dir, "kept.txt")) || !exists(filepath.Join(dir, "input.yaml")) {
		t.Error("a checked golden or an input was removed")
	}
	if err := os.WriteFile(filepath.Join(dir, "late.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A -run pattern that may leave out subtests leaves the directory alone.
	old := flagValue("test.run")
	if err := flag.Set("test.run", old+"/only"); err != nil {
		t.Fatal(err)
	}
	d = Own([]string{dir}, []string{"input.yaml"}, t.Name()+"/c")
	t.Run("c", func(t *testing.T) { d.Start(t) })
	if err := flag.Set("test.run", old); err != nil {
		t.Fatal(err)
	}
	if !exists(filepath.Join(dir, "late.txt")) {
		t.Error("orphan removed in a run that filtered subtests")
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func withUpdate(t *testing.T, v bool) {
	old := *update
	*update = v
	t.Cleanup(func() { *update = old })
}

// fakeT records a failure instead of failing the test.
type fakeT struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Errorf(format string, args ...any) {
	f.failed = true
	f.msg = fmt.Sprintf(format, args...)
}
