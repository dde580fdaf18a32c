package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gwpol/gwpol/internal/cli"
	"github.com/gwpol/gwpol/internal/golden"
)

// One fixture per feature, found by the feature's name:
//
//	testdata/render/<kind>/<field>/input.yaml   a policy over testdata/base
//	testdata/render/<kind>/<field>/xds.yaml     what it adds to or changes in
//	                                            the Envoy config of the base
//	testdata/explain/<feature>/input.yaml       objects over testdata/base
//	testdata/explain/<feature>/explain.txt      gwpol explain's output
//
// A line `# gwpol render FLAGS…` or `# gwpol explain TARGET FLAGS…` in
// input.yaml gives the command (render's default is plain `gwpol render`,
// with the target the Gateway's class names); the files come after it as
// -f testdata/base/platform.yaml -f input.yaml, from the repository root.
// Anything the command writes to stderr is the golden stderr.txt.
const (
	baseManifests = "testdata/base/platform.yaml"
	repoRoot      = "../.."
)

// featureDirs are the fixture directories with an input.yaml, relative to
// the repository root.
func featureDirs() (render, explain []string) {
	render, _ = filepath.Glob(filepath.Join(repoRoot, "testdata/render/*/*/input.yaml"))
	explain, _ = filepath.Glob(filepath.Join(repoRoot, "testdata/explain/*/input.yaml"))
	for _, list := range [][]string{render, explain} {
		for i, in := range list {
			rel, _ := filepath.Rel(repoRoot, filepath.Dir(in))
			list[i] = filepath.ToSlash(rel)
		}
	}
	return render, explain
}

// featureGoldens: every file in a fixture directory but its input is a
// golden of TestFeatureFixtures. They include the directories whose input
// is gone, so that their goldens are orphans. The paths are absolute so
// that the test's change of directory does not move them.
var featureGoldens = func() *golden.Dirs {
	var dirs []string
	kinds, _ := filepath.Glob(filepath.Join(repoRoot, "testdata/render/*"))
	for _, k := range kinds {
		if _, err := os.Stat(filepath.Join(k, "input.yaml")); err == nil {
			continue // a multi-feature case of render/envoy's TestGolden
		}
		fixtures, _ := filepath.Glob(filepath.Join(k, "*"))
		dirs = append(dirs, fixtures...)
	}
	explain, _ := filepath.Glob(filepath.Join(repoRoot, "testdata/explain/*"))
	dirs = append(dirs, explain...)
	var owned []string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			panic(err)
		}
		owned = append(owned, abs)
	}
	return golden.Own(owned, []string{"input.yaml"}, "TestFeatureFixtures")
}()

// TestFeatureFixtures renders or explains every one-feature fixture and
// checks the result with its goldens (go test -update rewrites them).
func TestFeatureFixtures(t *testing.T) {
	featureGoldens.Start(t)
	render, explain := featureDirs()
	if len(render) == 0 || len(explain) == 0 {
		t.Fatalf("found %d render and %d explain fixtures; want some of each", len(render), len(explain))
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root) // paths in the output read as from the repository root
	bases := map[string]any{}
	for _, dir := range render {
		t.Run(dir, func(t *testing.T) {
			args := command(t, dir, "render")
			key := strings.Join(args, " ")
			if _, ok := bases[key]; !ok {
				bases[key] = renderJSON(t, args, "")
			}
			got := renderJSON(t, args, dir)
			excerpt := excerptOf(bases[key], got)
			if len(excerpt) == 0 {
				t.Errorf("%s changes nothing in the render of the base", dir)
			}
			check(t, dir, "xds.yaml", excerptYAML(t, excerpt))
		})
	}
	for _, dir := range explain {
		t.Run(dir, func(t *testing.T) {
			args := command(t, dir, "explain")
			if len(args) < 2 {
				t.Fatalf("%s/input.yaml: want a `# gwpol explain TARGET` line", dir)
			}
			out := runGwpol(t, append(args, "-f", baseManifests, "-f", dir+"/input.yaml"), dir)
			check(t, dir, "explain.txt", out)
		})
	}
}

// command is the fixture's `# gwpol VERB …` line, split into arguments, or
// just VERB.
func command(t *testing.T, dir, verb string) []string {
	t.Helper()
	f, err := os.Open(dir + "/input.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		rest, ok := strings.CutPrefix(sc.Text(), "# gwpol ")
		if !ok {
			continue
		}
		args := strings.Fields(rest)
		if len(args) == 0 || args[0] != verb {
			t.Fatalf("%s/input.yaml:%d: want `# gwpol %s …`, the command of a fixture in this directory", dir, line, verb)
		}
		return args
	}
	return []string{verb}
}

// runGwpol runs the CLI in process; the command must succeed, and what
// it writes to stderr is the golden stderr.txt of the fixture in dir (the
// base alone, dir "", must write nothing there).
func runGwpol(t *testing.T, args []string, dir string) []byte {
	t.Helper()
	ios, out, errOut := cli.Test("", false)
	if code := cli.Main(args, ios); code != cli.ExitOK {
		t.Fatalf("gwpol %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	switch {
	case dir != "" && errOut.Len() > 0:
		check(t, dir, "stderr.txt", errOut.Bytes())
	case errOut.Len() > 0:
		t.Errorf("gwpol %s wrote to stderr:\n%s", strings.Join(args, " "), errOut)
	}
	return out.Bytes()
}

// renderJSON renders the base, and the fixture in dir over it unless dir
// is empty, as JSON.
func renderJSON(t *testing.T, args []string, dir string) any {
	t.Helper()
	full := append(slices.Clone(args), "-o", "json", "-f", baseManifests)
	if dir != "" {
		full = append(full, "-f", dir+"/input.yaml")
	}
	var v any
	if err := json.Unmarshal(runGwpol(t, full, dir), &v); err != nil {
		t.Fatalf("gwpol %s: %v", strings.Join(full, " "), err)
	}
	return v
}

func check(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	featureGoldens.Check(t, filepath.Join(dir, name), got)
}

// change is one difference between the render of the base and of the
// fixture: a value added, removed or changed at a path.
type change struct {
	kind  string // added, removed or changed
	path  string
	value any // added, removed, or what it changed to
	was   any // what a changed value was
	index int // of an element added to a list, -1 otherwise
}

// excerptOf walks both configs and lists what differs. A list whose
// elements all carry a distinct name is matched by name (Envoy's
// listeners, filters, virtual hosts and routes are named), any other list
// by position.
func excerptOf(base, got any) []change {
	var out []change
	diffValue("", base, got, &out)
	return out
}

func diffValue(path string, a, b any, out *[]change) {
	switch bv := b.(type) {
	case map[string]any:
		av, ok := a.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(av)+len(bv))
		for k := range av {
			keys = append(keys, k)
		}
		for k := range bv {
			if _, ok := av[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := joinPath(path, k)
			x, inA := av[k]
			y, inB := bv[k]
			switch {
			case !inA:
				*out = append(*out, change{kind: "added", path: p, value: y, index: -1})
			case !inB:
				*out = append(*out, change{kind: "removed", path: p, value: x, index: -1})
			default:
				diffValue(p, x, y, out)
			}
		}
		return
	case []any:
		av, ok := a.([]any)
		if !ok {
			break
		}
		diffList(path, av, bv, out)
		return
	}
	if !equalJSON(a, b) {
		*out = append(*out, change{kind: "changed", path: path, value: b, was: a, index: -1})
	}
}

// diffList matches the elements of two lists by name when every element
// of both has a distinct one, else by position.
func diffList(path string, a, b []any, out *[]change) {
	an, bn := names(a), names(b)
	if an == nil || bn == nil {
		for i := range max(len(a), len(b)) {
			p := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case i >= len(a):
				*out = append(*out, change{kind: "added", path: p, value: b[i], index: i})
			case i >= len(b):
				*out = append(*out, change{kind: "removed", path: p, value: a[i], index: -1})
			default:
				diffValue(p, a[i], b[i], out)
			}
		}
		return
	}
	at := map[string]int{}
	for i, n := range an {
		at[n] = i
	}
	for i, n := range bn {
		p := fmt.Sprintf("%s[%s]", path, n)
		if j, ok := at[n]; ok {
			diffValue(p, a[j], b[i], out)
			continue
		}
		*out = append(*out, change{kind: "added", path: p, value: b[i], index: i})
	}
	for i, n := range an {
		if !slices.Contains(bn, n) {
			*out = append(*out, change{kind: "removed", path: fmt.Sprintf("%s[%s]", path, n), value: a[i], index: -1})
		}
	}
}

// names are the elements' names (a gateway's is namespace/name), or nil
// when one has none or two share one.
func names(list []any) []string {
	out := make([]string, 0, len(list))
	seen := map[string]bool{}
	for _, e := range list {
		m, _ := e.(map[string]any)
		n, _ := m["name"].(string)
		if g, ok := m["gateway"].(map[string]any); ok && n == "" {
			ns, _ := g["namespace"].(string)
			name, _ := g["name"].(string)
			n = ns + "/" + name
		}
		if n == "" || seen[n] {
			return nil
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// excerptYAML writes each change as a YAML document headed by a comment
// that says where it is and what happened there.
func excerptYAML(t *testing.T, cs []change) []byte {
	t.Helper()
	var b bytes.Buffer
	for i, c := range cs {
		if i > 0 {
			b.WriteString("---\n")
		}
		switch {
		case c.kind == "added" && c.index >= 0:
			fmt.Fprintf(&b, "# added at %s, position %d\n", c.path, c.index)
		case c.kind == "changed":
			was, err := json.Marshal(c.was)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "# changed at %s, was %s\n", c.path, was)
		default:
			fmt.Fprintf(&b, "# %s at %s\n", c.kind, c.path)
		}
		y, err := yaml.Marshal(c.value)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(y)
	}
	return b.Bytes()
}

// TestExcerptOf: named list elements are matched by name wherever they
// move, others by position; added, removed and changed values are told
// apart.
func TestExcerptOf(t *testing.T) {
	var base, got any
	for v, doc := range map[*any]string{
		&base: `{"filters": [{"name": "router"}], "routes": [{"name": "a", "timeout": "1s"}, {"name": "b"}], "ports": [80], "gone": true}`,
		&got:  `{"filters": [{"name": "cors", "x": 1}, {"name": "router"}], "routes": [{"name": "b"}, {"name": "a", "timeout": "2s"}], "ports": [80, 443]}`,
	} {
		if err := json.Unmarshal([]byte(doc), v); err != nil {
			t.Fatal(err)
		}
	}
	var lines []string
	for _, c := range excerptOf(base, got) {
		lines = append(lines, fmt.Sprintf("%s %s %d", c.kind, c.path, c.index))
	}
	want := []string{
		"added filters[cors] 0",
		"removed gone -1",
		"added ports[1] 1",
		"changed routes[a].timeout -1",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("excerpt:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if out := string(excerptYAML(t, excerptOf(base, got)[3:])); out != "# changed at routes[a].timeout, was \"1s\"\n2s\n" {
		t.Errorf("excerptYAML: %q", out)
	}
}
