package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// objSummary is what the good-input cases compare: identity and position.
type objSummary struct {
	Kind, Name, Namespace string
	Line, Col             int
}

func summarize(objs []*Object) []objSummary {
	var out []objSummary
	for _, o := range objs {
		out = append(out, objSummary{o.Kind, o.Name, o.Namespace, o.Pos.Line, o.Pos.Col})
	}
	return out
}

func TestParseGood(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []objSummary
	}{
		{
			name: "multi-doc YAML with comments",
			src: `# leading comment
apiVersion: v1
kind: Service
metadata:
  name: a   # trailing comment
---
# only a comment before the object
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: infra
--- # separator with a comment
apiVersion: v1
kind: Secret
metadata: {name: s}
`,
			want: []objSummary{
				{"Service", "a", "", 2, 1},
				{"Gateway", "gw", "infra", 8, 1},
				{"Secret", "s", "", 14, 1},
			},
		},
		{
			name: "JSON file",
			src: `{
  "apiVersion": "v1",
  "kind": "Service",
  "metadata": {"name": "web", "namespace": "apps"},
  "spec": {"ports": [{"port": 80}]}
}
`,
			want: []objSummary{{"Service", "web", "apps", 1, 1}},
		},
		{
			name: "kind List expands to its items",
			src: `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata:
    name: one
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: two
    namespace: ns
metadata:
  resourceVersion: ""
`,
			want: []objSummary{
				{"Service", "one", "", 4, 3},
				{"ConfigMap", "two", "ns", 8, 3},
			},
		},
		{
			name: "empty List",
			src:  "apiVersion: v1\nkind: List\nitems: []\n",
		},
		{
			name: "empty documents are skipped",
			src: `---
---
# nothing here
---
~
---
apiVersion: v1
kind: Namespace
metadata:
  name: ns
---
`,
			want: []objSummary{{"Namespace", "ns", "", 7, 1}},
		},
		{
			name: "comment-only file",
			src:  "# just a comment\n",
		},
		{
			name: "empty file",
			src:  "",
		},
		{
			name: "anchors and merge keys",
			src: `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: &meta
    name: first
    namespace: shared
    labels: &labels
      app: web
- apiVersion: v1
  kind: ConfigMap
  metadata:
    <<: *meta
    name: second
    labels: *labels
`,
			want: []objSummary{
				{"ConfigMap", "first", "shared", 4, 3},
				{"ConfigMap", "second", "shared", 11, 3},
			},
		},
		{
			name: "document end markers and CRLF",
			src:  "apiVersion: v1\r\nkind: Service\r\nmetadata:\r\n  name: a\r\n...\r\n---\r\napiVersion: v1\r\nkind: Service\r\nmetadata:\r\n  name: b\r\n",
			want: []objSummary{
				{"Service", "a", "", 1, 1},
				{"Service", "b", "", 7, 1},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Parse("in.yaml", []byte(tt.src), Limits{})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := summarize(objs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("objects:\n got %+v\nwant %+v", got, tt.want)
			}
			for _, o := range objs {
				if o.File != "in.yaml" || o.Pos.File != "in.yaml" {
					t.Errorf("%s: file = %q / %q, want in.yaml", o.Name, o.File, o.Pos.File)
				}
				data, err := o.JSON()
				if err != nil || !json.Valid(data) {
					t.Errorf("%s: JSON() = %s, %v", o.Name, data, err)
				}
			}
		})
	}
}

func TestParseMergeKeys(t *testing.T) {
	src := `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: &meta
    name: first
    namespace: shared
    labels: &labels
      app: web
      tier: front
- apiVersion: v1
  kind: ConfigMap
  metadata:
    <<: *meta
    name: second
    labels:
      <<: *labels
      tier: back
`
	objs, err := Parse("in.yaml", []byte(src), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("got %d objects, want 2", len(objs))
	}
	second := objs[1]
	if want := map[string]string{"app": "web", "tier": "back"}; !reflect.DeepEqual(second.Labels, want) {
		t.Errorf("Labels = %v, want %v", second.Labels, want)
	}
	var v struct {
		Metadata struct {
			Name      string            `json:"name"`
			Namespace string            `json:"namespace"`
			Labels    map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := second.Decode(&v); err != nil {
		t.Fatal(err)
	}
	// The object's identity and its decoded form must agree.
	if v.Metadata.Name != second.Name || v.Metadata.Namespace != second.Namespace {
		t.Errorf("decoded %s/%s, object says %s/%s", v.Metadata.Namespace, v.Metadata.Name, second.Namespace, second.Name)
	}
	if !reflect.DeepEqual(v.Metadata.Labels, second.Labels) {
		t.Errorf("decoded labels %v, object labels %v", v.Metadata.Labels, second.Labels)
	}
	// A merged field's position is where its value is written.
	if got := second.FieldPos("metadata.namespace"); got.Line != 8 {
		t.Errorf("FieldPos(metadata.namespace) = %v, want line 8 (in the anchored map)", got)
	}
	// Fields reached through an alias resolve to the anchored node.
	first := objs[0]
	if n := first.Lookup("metadata.labels"); n == nil || len(n.Content) != 4 {
		t.Errorf("Lookup(metadata.labels) = %v", n)
	}
}

func TestParseBad(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		lim    Limits
		prefix string // the error must start with this
		want   string // and contain this
	}{
		{
			name:   "unclosed flow sequence",
			src:    "apiVersion: v1\nkind: Service\nspec:\n  ports: [1, 2\n",
			prefix: "bad.yaml:4:3: invalid YAML:",
			want:   "did not find expected ',' or ']'",
		},
		{
			name:   "unclosed flow mapping in second document",
			src:    "apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\nmetadata:\n  name: a\n  labels: {a: b\n",
			prefix: "bad.yaml:8:3: invalid YAML:",
			want:   "did not find expected ',' or '}'",
		},
		{
			name:   "bad indentation",
			src:    "apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n    bad: 1\n",
			prefix: "bad.yaml:5:5: invalid YAML:",
			want:   "mapping values are not allowed",
		},
		{
			name:   "tab indentation",
			src:    "apiVersion: v1\nkind: Service\nspec:\n\tports: []\n",
			prefix: "bad.yaml:4:",
			want:   "invalid YAML",
		},
		{
			name:   "block sequence then mapping",
			src:    "apiVersion: v1\nkind: A\n---\n- a\nb: c\n",
			prefix: "bad.yaml:5:1: invalid YAML:", // at "b: c", not the sequence's start
			want:   "did not find expected '-' indicator",
		},
		// Issue 16: positions at the offending byte.
		{
			name:   "bad indent under a sequence item",
			src:    "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  namespace: b\nspec:\n  ports:\n  - port: 80\n   name: x\n",
			prefix: "bad.yaml:9:4: invalid YAML:",
			want:   "did not find expected key",
		},
		{
			name:   "bad indent three lines into a mapping",
			src:    "apiVersion: v1\nkind: Service\nmetadata:\n    name: a\n    namespace: b\n    labels: {}\n  bad: 1\n",
			prefix: "bad.yaml:7:3: invalid YAML:",
			want:   "did not find expected key",
		},
		{
			name:   "invalid UTF-8",
			src:    "apiVersion: v1\nkind: Service\nmetadata:\n  name: é\xff\n",
			prefix: "bad.yaml:4:10: invalid UTF-8 (byte 0xff)",
			want:   "must be UTF-8",
		},
		{
			name:   "JSON with trailing garbage",
			src:    "{\"apiVersion\": \"v1\",\n \"kind\": \"Service\"}\n  xyz\n",
			prefix: "bad.yaml:3:3: invalid JSON:",
			want:   "unexpected text after the top-level value",
		},
		{
			name:   "JSON with a second value",
			src:    "{\"apiVersion\":\"v1\",\"kind\":\"Service\"}}",
			prefix: "bad.yaml:1:37: invalid JSON:",
			want:   "unexpected text after the top-level value",
		},
		{
			name:   "unterminated quoted string",
			src:    "apiVersion: v1\nkind: A\n---\nkind: \"oops\n",
			prefix: "bad.yaml:4:",
			want:   "invalid YAML",
		},
		{
			name:   "unknown alias",
			src:    "apiVersion: v1\nkind: Service\nmetadata:\n  name: *nope\n",
			prefix: "bad.yaml:4:9: invalid YAML:",
			want:   `unknown anchor "nope"`,
		},
		{
			name:   "document is a sequence",
			src:    "- apiVersion: v1\n  kind: Service\n",
			prefix: "bad.yaml:1:1:",
			want:   "must be a Kubernetes object",
		},
		{
			name:   "document is a scalar",
			src:    "apiVersion: v1\nkind: A\n---\njust text\n",
			prefix: "bad.yaml:4:1:",
			want:   "found a scalar",
		},
		{
			name:   "missing kind",
			src:    "apiVersion: v1\nmetadata:\n  name: a\n",
			prefix: "bad.yaml:1:1:",
			want:   "no kind",
		},
		{
			name:   "missing apiVersion",
			src:    "\nkind: Service\nmetadata:\n  name: a\n",
			prefix: "bad.yaml:2:1:",
			want:   "no apiVersion",
		},
		{
			name:   "kind is not a string",
			src:    "apiVersion: v1\nkind: [Service]\n",
			prefix: "bad.yaml:2:7:",
			want:   "kind must be a string",
		},
		{
			name:   "labels are not a map",
			src:    "apiVersion: v1\nkind: Service\nmetadata:\n  labels: [a]\n",
			prefix: "bad.yaml:4:11:",
			want:   "metadata.labels must be a map",
		},
		{
			name:   "List item is not an object",
			src:    "apiVersion: v1\nkind: List\nitems:\n- 1\n",
			prefix: "bad.yaml:4:3:",
			want:   "each item of a List must be an object",
		},
		{
			name:   "List item without kind",
			src:    "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  metadata: {name: a}\n",
			prefix: "bad.yaml:4:3:",
			want:   "no kind",
		},
		{
			name: "billion laughs",
			src: `apiVersion: v1
kind: ConfigMap
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`,
			prefix: "bad.yaml:",
			want:   "aliases expand to more than",
		},
		{
			name:   "self-referencing alias",
			src:    "apiVersion: v1\nkind: ConfigMap\ndata: &a [*a]\n",
			prefix: "bad.yaml:",
			want:   "nesting deeper than",
		},
		{
			name:   "nesting deeper than MaxDepth",
			src:    "apiVersion: v1\nkind: ConfigMap\ndata:\n" + deepYAML(10),
			lim:    Limits{MaxDepth: 8},
			prefix: "bad.yaml:",
			want:   "nesting deeper than 8 levels",
		},
		{
			name:   "deep flow nesting",
			src:    "apiVersion: v1\nkind: ConfigMap\ndata: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n",
			prefix: "bad.yaml:3:",
			want:   "nesting deeper than 64 levels",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Parse("bad.yaml", []byte(tt.src), tt.lim)
			if err == nil {
				t.Fatalf("Parse succeeded with %d objects, want an error", len(objs))
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tt.prefix) || !strings.Contains(msg, tt.want) {
				t.Errorf("error = %q\nwant prefix %q containing %q", msg, tt.prefix, tt.want)
			}
			if !regexp.MustCompile(`^bad\.yaml:\d+:\d+: `).MatchString(msg) {
				t.Errorf("error %q does not start with FILE:LINE:COL:", msg)
			}
			if k := diag.KindOf(err); k != diag.Invalid {
				t.Errorf("error kind = %s, want invalid", k)
			}
		})
	}
}

// deepYAML is a block mapping nested n levels below the current one.
func deepYAML(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%sk%d:\n", strings.Repeat("  ", i+1), i)
	}
	fmt.Fprintf(&b, "%sleaf: 1\n", strings.Repeat("  ", n+1))
	return b.String()
}

func TestParseDepthWithinLimit(t *testing.T) {
	src := "apiVersion: v1\nkind: ConfigMap\ndata:\n" + deepYAML(5)
	if _, err := Parse("ok.yaml", []byte(src), Limits{MaxDepth: 8}); err != nil {
		t.Fatalf("depth 7 under a limit of 8: %v", err)
	}
}

func TestParseAliasesWithinBudget(t *testing.T) {
	// Ordinary anchor reuse stays far below the default budget.
	src := `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r
spec:
  rules:
  - backendRefs: &be
    - name: a
      port: 80
  - backendRefs: *be
`
	objs, err := Parse("ok.yaml", []byte(src), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := objs[0].FieldJSON("spec.rules")
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"backendRefs":[{"name":"a","port":80}]},{"backendRefs":[{"name":"a","port":80}]}]`; string(data) != want {
		t.Errorf("FieldJSON = %s\nwant %s", data, want)
	}
}

// writeFiles creates files (path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func svc(name string) string {
	return "apiVersion: v1\nkind: Service\nmetadata:\n  name: " + name + "\n"
}

func names(set *Set) []string {
	var out []string
	for _, o := range set.Objects {
		out = append(out, o.Name)
	}
	return out
}

func TestLoadDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"b.yaml":           svc("b"),
		"a.yml":            svc("a"),
		"c.json":           `{"apiVersion":"v1","kind":"Service","metadata":{"name":"c"}}`,
		"d.YAML":           svc("d"),
		"notes.txt":        svc("txt"),
		"README.md":        "# not a manifest\n",
		"sub/x.yaml":       svc("sub-x"),
		"sub/deeper/y.yml": svc("sub-deeper-y"),
		"sub/a.yaml":       svc("sub-a") + "---\n" + svc("sub-a2"),
		".git/config.yaml": svc("hidden"),
		"aa/z.yaml":        svc("aa-z"),
	})
	set, err := Load([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// ReadDir order within each directory, depth first; documents in file order.
	want := []string{"a", "aa-z", "b", "c", "d", "sub-a", "sub-a2", "sub-deeper-y", "sub-x"}
	if got := names(set); !slices.Equal(got, want) {
		t.Errorf("objects = %v\nwant %v", got, want)
	}
	for i, o := range set.Objects {
		if o.Seq != i {
			t.Errorf("%s: Seq = %d, want %d", o.Name, o.Seq, i)
		}
	}
	if got, want := set.Objects[0].File, filepath.Join(dir, "a.yml"); got != want {
		t.Errorf("File = %q, want %q", got, want)
	}
	// Loading twice gives the same order (the parse is parallel).
	again, err := Load([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(again), names(set)) {
		t.Errorf("second load order %v differs from %v", names(again), names(set))
	}
}

func TestLoadExplicitFileAnyExtension(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"manifest.txt": svc("t")})
	set, err := Load([]string{filepath.Join(dir, "manifest.txt")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(set); !slices.Equal(got, []string{"t"}) {
		t.Errorf("objects = %v", got)
	}
}

func TestLoadPathsInGivenOrderWithoutDuplicates(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.yaml": svc("a"), "b.yaml": svc("b")})
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	set, err := Load([]string{b, a, dir, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(set); !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("objects = %v, want [b a]", got)
	}
}

func TestLoadStdin(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.yaml": svc("file")})
	stdin := strings.NewReader("# from a pipe\n" + svc("piped"))
	set, err := Load([]string{"-", filepath.Join(dir, "f.yaml")}, Options{Stdin: stdin})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(set); !slices.Equal(got, []string{"piped", "file"}) {
		t.Fatalf("objects = %v", got)
	}
	o := set.Objects[0]
	if o.File != StdinName || o.Pos != (diag.Position{File: StdinName, Line: 2, Col: 1}) {
		t.Errorf("stdin object at %q %v", o.File, o.Pos)
	}

	set, err = Load([]string{"-"}, Options{})
	if err != nil || len(set.Problems) != 1 || set.Problems[0].Pos.File != StdinName || !set.Unreadable() {
		t.Errorf("no Stdin: %v, %+v; want one problem naming %s", err, set.Problems, StdinName)
	}

	set, err = Load([]string{"-"}, Options{Stdin: strings.NewReader("apiVersion: v1\nkind: [\nx: 1\n")})
	if err != nil || len(set.Problems) != 1 || set.Problems[0].Pos.File != StdinName || set.Problems[0].Pos.Line != 2 {
		t.Errorf("bad stdin: %v, %+v; want a problem at %s:2", err, set.Problems, StdinName)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"big.yaml":      svc("big") + "# " + strings.Repeat("x", 200) + "\n",
		"ok.yaml":       svc("ok"),
		"broken/b.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: [\nspec: {}\n",
	})
	missing := filepath.Join(dir, "does-not-exist.yaml")
	tests := []struct {
		name  string
		paths []string
		opt   Options
		want  []string // substrings of the error
	}{
		{"missing file", []string{missing}, Options{}, []string{missing, "cannot read", "no such file"}},
		{"missing among good", []string{filepath.Join(dir, "ok.yaml"), missing}, Options{}, []string{missing}},
		{"path through a file", []string{filepath.Join(dir, "ok.yaml", "x.yaml")}, Options{}, []string{filepath.Join(dir, "ok.yaml", "x.yaml"), "not a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := Load(tt.paths, tt.opt)
			if err == nil {
				t.Fatalf("Load succeeded with %v", names(set))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if k := diag.KindOf(err); k != diag.Invalid {
				t.Errorf("error kind = %s, want invalid", k)
			}
		})
	}

	// What cannot be read among what exists is a problem of the set, and
	// the rest is read.
	problems := []struct {
		name  string
		paths []string
		opt   Options
		want  string // the problem, FILE[:LINE:COL]: message prefix
		read  []string
	}{
		{"file over MaxFileBytes", []string{filepath.Join(dir, "big.yaml"), filepath.Join(dir, "ok.yaml")}, Options{Limits: Limits{MaxFileBytes: 100}},
			filepath.Join(dir, "big.yaml") + " GWP100 over the size limit: larger than 100 bytes", []string{"ok"}},
		{"stdin over MaxFileBytes", []string{"-"}, Options{Limits: Limits{MaxFileBytes: 10}, Stdin: strings.NewReader(svc("x"))},
			StdinName + " GWP100 over the size limit: larger than 10 bytes", nil},
		{"parse error in a walked directory", []string{dir}, Options{}, filepath.Join(dir, "broken", "b.yaml") + ":4:", []string{"big", "ok"}},
	}
	for _, tt := range problems {
		t.Run(tt.name, func(t *testing.T) {
			set, err := Load(tt.paths, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(set.Problems) != 1 || !set.Unreadable() {
				t.Fatalf("problems = %+v, want one", set.Problems)
			}
			p := set.Problems[0]
			if got := p.Pos.String() + " " + p.Code + " " + p.Message; !strings.HasPrefix(got, tt.want) || p.Code != LintInputUnreadable.Code {
				t.Errorf("problem %q, want it to start with %q", got, tt.want)
			}
			if got := names(set); !slices.Equal(got, tt.read) {
				t.Errorf("read %v, want %v", got, tt.read)
			}
		})
	}

	// Exactly at the limit is fine.
	exact := svc("exact")
	writeFiles(t, dir, map[string]string{"exact/e.yaml": exact})
	if _, err := Load([]string{filepath.Join(dir, "exact")}, Options{Limits: Limits{MaxFileBytes: int64(len(exact))}}); err != nil {
		t.Errorf("file of exactly MaxFileBytes: %v", err)
	}
}

func TestLoadUnreadableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads directories regardless of mode")
	}
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	writeFiles(t, dir, map[string]string{"locked/a.yaml": svc("a")})
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	_, err := Load([]string{dir}, Options{})
	if err == nil || !strings.Contains(err.Error(), locked) {
		t.Errorf("err = %v, want one naming %s", err, locked)
	}
}

func TestLoadSymlinks(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"root/a.yaml":     svc("a"),
		"root/sub/b.yaml": svc("b"),
		"outside/c.yaml":  svc("c"),
	})
	root := filepath.Join(dir, "root")
	links := map[string]string{
		filepath.Join(root, "sub", "loop"):     "..",                               // relative loop to the root
		filepath.Join(root, "sub", "absloop"):  root,                               // absolute loop
		filepath.Join(root, "self"):            filepath.Join(root, "self"),        // points at itself
		filepath.Join(root, "dangling.yaml"):   filepath.Join(dir, "nothing.yaml"), // target missing
		filepath.Join(root, "again.yaml"):      "a.yaml",                           // same file twice
		filepath.Join(root, "outside"):         filepath.Join(dir, "outside"),      // a directory elsewhere
		filepath.Join(root, "sub", "up.yaml"):  filepath.Join(root, "a.yaml"),
		filepath.Join(root, "sub", "outside2"): filepath.Join(dir, "outside"),
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	set, err := Load([]string{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := names(set)
	slices.Sort(got)
	// The directory elsewhere is not the input's: not followed (GWP115,
	// TestSymlinkOutsideNotFollowed).
	if want := []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("objects = %v, want each file under the root once: %v", got, want)
	}
	var skipped []string
	for _, p := range set.Problems {
		if p.Code == LintSymlinkOutsideInput.Code {
			skipped = append(skipped, p.Pos.File)
		}
	}
	slices.Sort(skipped)
	if want := []string{filepath.Join(root, "outside"), filepath.Join(root, "sub", "outside2")}; !slices.Equal(skipped, want) {
		t.Errorf("GWP115 at %v, want %v", skipped, want)
	}
}

// TestSymlinkOutsideNotFollowed: under an -f directory a symlink whose
// target is outside it — absolute, climbing out with .., through a chain
// of links, to a file or a directory — is not followed and is a GWP115
// warning at the link (none when --exclude names it); links that stay
// inside are read; a link gwpol would not read anyway (no manifest
// ending, a hidden directory) says nothing; the directory named with -f
// may itself be a link, and a file outside named with -f is read.
func TestSymlinkOutsideNotFollowed(t *testing.T) {
	base := t.TempDir()
	writeFiles(t, base, map[string]string{
		"repo/in/a.yaml":      svc("a"),
		"repo/in/deep/b.yaml": svc("b"),
		"repo/beside.yaml":    svc("beside"),
		"secrets/token.yaml":  svc("token"),
		"secrets/dir/x.yaml":  svc("x"),
		"secrets/environ.txt": "GITHUB_TOKEN=ghp_x\n",
	})
	in := filepath.Join(base, "repo", "in")
	for link, target := range map[string]string{
		"abs.yaml":      filepath.Join(base, "secrets", "token.yaml"), // absolute, outside
		"rel.yml":       "../../secrets/token.yaml",                   // relative, climbing out
		"beside.json":   "../beside.yaml",                             // just outside, in the same repository
		"dir":           filepath.Join(base, "secrets", "dir"),        // a directory outside
		"root":          "/",                                          // the whole file system
		"deep/up.yaml":  "../../../secrets/token.yaml",                // from a subdirectory
		"chain.yaml":    "deep/hop.yaml",                              // inside, to a link going outside
		"deep/hop.yaml": "../../../secrets/token.yaml",
		"inside.yaml":   "deep/b.yaml",                                 // inside: read (once)
		"insidedir":     "deep",                                        // inside: walked (once)
		"environ.txt":   filepath.Join(base, "secrets", "environ.txt"), // not a manifest name: silent
		".hidden":       filepath.Join(base, "secrets", "dir"),         // a hidden directory: silent
		"excluded.yaml": filepath.Join(base, "secrets", "token.yaml"),
	} {
		if err := os.Symlink(target, filepath.Join(in, link)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	set, err := Load([]string{in}, Options{Exclude: []string{filepath.Join(in, "excluded.yaml")}})
	if err != nil {
		t.Fatal(err)
	}
	got := names(set)
	slices.Sort(got)
	if want := []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("objects = %v, want only the directory's own: %v", got, want)
	}
	want := map[string]string{"abs.yaml": "a file", "rel.yml": "a file", "beside.json": "a file", "dir": "a directory", "root": "a directory",
		"deep/up.yaml": "a file", "chain.yaml": "a file", "deep/hop.yaml": "a file"}
	seen := map[string]bool{}
	for _, p := range set.Problems {
		rel, _ := filepath.Rel(in, p.Pos.File)
		rel = filepath.ToSlash(rel)
		kind, ok := want[rel]
		switch {
		case p.Code != LintSymlinkOutsideInput.Code || !ok:
			t.Errorf("unexpected finding %s at %s: %s", p.Code, p.Pos.File, p.Message)
		case seen[rel]:
			t.Errorf("%s reported twice", rel)
		case p.Severity != diag.Warning || p.Pos.Line != 0 || !strings.Contains(p.Message, kind+" outside the input directory "+in):
			t.Errorf("%s: %v %q at %v; want a warning about %s outside %s, at the file", rel, p.Severity, p.Message, p.Pos, kind, in)
		}
		seen[rel] = true
	}
	for rel := range want {
		if !seen[rel] {
			t.Errorf("%s: no GWP115", rel)
		}
	}
	if set.Unreadable() {
		t.Errorf("a link not followed made the input unreadable")
	}
	// The user's own choices: the directory named through a link, a file
	// outside named directly.
	linked := filepath.Join(base, "linked")
	if err := os.Symlink(in, linked); err != nil {
		t.Fatal(err)
	}
	set, err = Load([]string{linked, filepath.Join(base, "secrets", "token.yaml")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got = names(set)
	slices.Sort(got)
	if want := []string{"a", "b", "token"}; !slices.Equal(got, want) {
		t.Errorf("objects = %v, want %v", got, want)
	}
}

func TestFieldPositions(t *testing.T) {
	src := `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: web
  annotations:
    a: "1"
spec:
  parentRefs:
  - name: gw
  rules:
  - matches:
    - path: {type: PathPrefix, value: /}
    backendRefs:
    - name: first
      port: 80
    - name: second
      weight: 2
      port: 8080
  - backendRefs:
      - kind: Service
        name: third
`
	objs, err := Parse("route.yaml", []byte(src), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	pos := func(line, col int) diag.Position { return diag.Position{File: "route.yaml", Line: line, Col: col} }
	tests := []struct {
		path          string
		field, key    diag.Position
		exists        bool
		value         string // scalar value when it exists
		lookupNotNull bool
	}{
		{"spec.rules[0].backendRefs[1].port", pos(18, 13), pos(18, 7), true, "8080", true},
		{"spec.rules[0].backendRefs[0].name", pos(14, 13), pos(14, 7), true, "first", true},
		{"spec.rules[0].matches[0].path.value", pos(12, 39), pos(12, 32), true, "/", true},
		{"spec.rules[1].backendRefs[0].name", pos(21, 15), pos(21, 9), true, "third", true},
		{"metadata.name", pos(4, 9), pos(4, 3), true, "web", true},
		{"kind", pos(2, 7), pos(2, 1), true, "HTTPRoute", true},
		{"spec.parentRefs[0].name", pos(9, 11), pos(9, 5), true, "gw", true},
		// Missing leaves fall back to the deepest part that exists.
		{"spec.rules[0].backendRefs[1].namespace", pos(16, 7), pos(16, 7), false, "", false},
		{"spec.rules[0].backendRefs[7].port", pos(14, 5), pos(14, 5), false, "", false},
		{"spec.rules[3]", pos(11, 3), pos(11, 3), false, "", false},
		{"spec.hostnames[0]", pos(8, 3), pos(8, 3), false, "", false},
		{"status.parents", pos(1, 1), pos(1, 1), false, "", false},
		{"metadata.name.deeper", pos(4, 9), pos(4, 9), false, "", false},
		{"spec.rules[x]", pos(11, 3), pos(11, 3), false, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := o.FieldPos(tt.path); got != tt.field {
				t.Errorf("FieldPos = %v, want %v", got, tt.field)
			}
			if got := o.KeyPos(tt.path); got != tt.key {
				t.Errorf("KeyPos = %v, want %v", got, tt.key)
			}
			n := o.Lookup(tt.path)
			if (n != nil) != tt.exists || o.Has(tt.path) != tt.exists {
				t.Fatalf("Lookup = %v, Has = %v, want exists=%v", n, o.Has(tt.path), tt.exists)
			}
			if n != nil && tt.value != "" && n.Value != tt.value {
				t.Errorf("Lookup value = %q, want %q", n.Value, tt.value)
			}
		})
	}
	// Annotations with dots in their keys are read whole.
	if o.Annotations["a"] != "1" {
		t.Errorf("Annotations = %v", o.Annotations)
	}
}

func TestUnknownFields(t *testing.T) {
	src := `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: web
  lables: {a: b}
spec:
  parentRefs:
  - name: gw
    sectionNmae: http
  hostname: example.com
  rules:
  - matchs:
    - path: {type: PathPrefix, value: /}
    backendRefs:
    - name: svc
      port: 80
      wieght: 3
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier:
        set:
        - name: X
          value: y
          vaule: z
  - timeouts: {request: 10s, reqest: 5s}
status:
  parents: []
  bogus: true
`
	objs, err := Parse("route.yaml", []byte(src), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got := objs[0].UnknownFields(reflect.TypeFor[gwv1.HTTPRoute]())
	pos := func(line, col int) diag.Position { return diag.Position{File: "route.yaml", Line: line, Col: col} }
	want := []UnknownField{
		{Path: "metadata.lables", Pos: pos(5, 3)},
		{Path: "spec.parentRefs[0].sectionNmae", Pos: pos(9, 5)},
		{Path: "spec.hostname", Pos: pos(10, 3)},
		{Path: "spec.rules[0].matchs", Pos: pos(12, 5)},
		{Path: "spec.rules[0].backendRefs[0].wieght", Pos: pos(17, 7)},
		{Path: "spec.rules[0].filters[0].requestHeaderModifier.set[0].vaule", Pos: pos(24, 11)},
		{Path: "spec.rules[1].timeouts.reqest", Pos: pos(25, 30)},
		{Path: "status.bogus", Pos: pos(28, 3)},
	}
	var suggestions []string
	for i := range got {
		suggestions = append(suggestions, got[i].Suggestion())
		got[i].Known = nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UnknownFields:\n got %+v\nwant %+v", got, want)
	}
	wantSuggestions := []string{"labels", "sectionName", "hostnames", "matches", "weight", "value", "request", ""}
	if !reflect.DeepEqual(suggestions, wantSuggestions) {
		t.Errorf("suggestions = %q, want %q", suggestions, wantSuggestions)
	}

	at := objs[0].UnknownFieldsAt("spec.rules[0].backendRefs[0]", reflect.TypeFor[gwv1.HTTPBackendRef]())
	if len(at) != 1 || at[0].Path != "spec.rules[0].backendRefs[0].wieght" {
		t.Errorf("UnknownFieldsAt = %+v", at)
	}
	if at := objs[0].UnknownFieldsAt("spec.nothing", reflect.TypeFor[gwv1.HTTPBackendRef]()); at != nil {
		t.Errorf("UnknownFieldsAt(missing) = %+v", at)
	}

	clean, err := Parse("ok.yaml", []byte(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: web
  creationTimestamp: "2024-01-01T00:00:00Z"
  labels: {a: b}
spec:
  parentRefs: [{name: gw, port: 80}]
  rules:
  - backendRefs: [{name: svc, port: 80, weight: 1}]
    timeouts: {request: 10s}
`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if u := clean[0].UnknownFields(reflect.TypeFor[gwv1.HTTPRoute]()); len(u) != 0 {
		t.Errorf("valid route has unknown fields %+v", u)
	}
}

// TestParseChunked checks that a stream big enough to be cut into chunks
// and parsed in parallel gives the objects and positions a single parse
// gives.
func TestParseChunked(t *testing.T) {
	var b bytes.Buffer
	const docs = 4000
	for i := range docs {
		if i > 0 {
			switch i % 3 {
			case 0:
				b.WriteString("---\n")
			case 1:
				b.WriteString("--- # next\n")
			default:
				b.WriteString("---\n# comment\n\n")
			}
		}
		fmt.Fprintf(&b, `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: route-%d
  namespace: ns-%d
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs:
    - name: svc-%d
      port: %d
`, i, i%7, i, 1000+i)
	}
	data := b.Bytes()
	if len(data) <= 512<<10 {
		t.Fatalf("stream is %d bytes; it must be over 512 KiB to be chunked", len(data))
	}
	chunks := splitDocs(data)
	if len(chunks) < 2 {
		t.Fatalf("splitDocs made %d chunk(s)", len(chunks))
	}
	lim := Limits{MaxFileBytes: int64(len(data)), MaxAliasNodes: 10}.withDefaults()
	chunked, err := Parse("big.yaml", data, lim)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := parseChunk("big.yaml", chunk{data: data}, lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunked) != docs || len(whole) != docs {
		t.Fatalf("chunked %d objects, whole %d, want %d", len(chunked), len(whole), docs)
	}
	for i := range chunked {
		c, w := chunked[i], whole[i]
		if c.Name != w.Name || c.Pos != w.Pos || c.FieldPos("spec.rules[0].backendRefs[0].port") != w.FieldPos("spec.rules[0].backendRefs[0].port") {
			t.Fatalf("object %d: chunked %s at %v, whole %s at %v", i, c.Name, c.Pos, w.Name, w.Pos)
		}
		cj, _ := c.JSON()
		wj, _ := w.JSON()
		if !bytes.Equal(cj, wj) {
			t.Fatalf("object %d: JSON differs", i)
		}
	}
	// The last object's port is on the file's second-to-last line.
	lines := bytes.Count(data, []byte("\n"))
	last := chunked[len(chunked)-1]
	if got := last.FieldPos("spec.rules[0].backendRefs[0].port"); got.Line != lines {
		t.Errorf("last port at line %d, file has %d lines", got.Line, lines)
	}
	if got := last.Pos.Line; got != lines-10 {
		t.Errorf("last object at line %d, want %d", got, lines-10)
	}

	// A syntax error in a late chunk reports the line in the whole file.
	bad := append(bytes.Clone(data), "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: x\n    oops: 1\n"...)
	_, err = Parse("big.yaml", bad, lim)
	if want := fmt.Sprintf("big.yaml:%d:5: invalid YAML", lines+6); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want prefix %q", err, want)
	}
	bad = append(bytes.Clone(data), "---\napiVersion: v1\nkind: Service\nmetadata: {name: [x}\n"...)
	_, err = Parse("big.yaml", bad, lim)
	if want := fmt.Sprintf("big.yaml:%d:", lines+4); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want prefix %q", err, want)
	}
	// So do the loader's own checks, which see chunk-relative nodes.
	bad = append(bytes.Clone(data), "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  name: b\n"...)
	objs, err := Parse("big.yaml", bad, lim)
	if err != nil {
		t.Fatal(err)
	}
	dup := objs[len(objs)-1]
	if len(dup.Findings()) != 1 || dup.Findings()[0].Pos.Line != lines+5 || !strings.Contains(dup.Findings()[0].Message, fmt.Sprintf("set again at line %d", lines+6)) {
		t.Errorf("findings %+v, want the key at line %d, set again at line %d", dup.Findings(), lines+5, lines+6)
	}
}

func TestSplitDocsKeepsDirectivesWhole(t *testing.T) {
	big := strings.Repeat(svc("x")+"---\n", 20000)
	if n := len(splitDocs([]byte(big))); n < 2 {
		t.Fatalf("plain stream: %d chunks", n)
	}
	if n := len(splitDocs([]byte("%YAML 1.2\n---\n" + big))); n != 1 {
		t.Errorf("stream with a directive cut into %d chunks", n)
	}
}

func TestJSONConversion(t *testing.T) {
	tests := []struct {
		yaml string
		json string
	}{
		{"80", "80"},
		{"-3", "-3"},
		{"0x1F", "31"},
		{"0o17", "15"},
		{"+5", "5"},
		{"1_000", "1000"},
		{"1.5", "1.5"},
		{"1e3", "1e3"},
		{".5", "0.5"},
		{"-.5", "-0.5"},
		{".inf", `".inf"`},
		{".nan", `".nan"`},
		{"true", "true"},
		{"False", "false"},
		{"TRUE", "true"},
		{"yes", `"yes"`},
		{"on", `"on"`},
		{"null", "null"},
		{"~", "null"},
		{"", "null"},
		{`"80"`, `"80"`},
		{`'80'`, `"80"`},
		{`"true"`, `"true"`},
		{`"null"`, `"null"`},
		{"!!str 80", `"80"`},
		{"!!int \"80\"", "80"},
		{"!!float 1", "1"},
		{"!!int -7", "-7"},
		{"2024-01-01T00:00:00Z", `"2024-01-01T00:00:00Z"`},
		{"2024-01-01", `"2024-01-01"`},
		{"10s", `"10s"`},
		{"v1", `"v1"`},
		{"[1, a, null]", `[1,"a",null]`},
		{"{a: 1, b: [true]}", `{"a":1,"b":[true]}`},
		{"{}", "{}"},
		{"[]", "[]"},
		{"123456789012345678901234567890", "123456789012345678901234567890"},
		{"!!binary aGVsbG8=", `"aGVsbG8="`},
		{"!custom value", `"value"`},
		{"|\n    line1\n    line2", `"line1\nline2\n"`},
		{">-\n    folded\n    text", `"folded text"`},
	}
	for _, tt := range tests {
		t.Run(tt.yaml, func(t *testing.T) {
			objs, err := Parse("v.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nv: "+tt.yaml+"\n"), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := objs[0].FieldJSON("v")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.json {
				t.Errorf("FieldJSON = %s, want %s", got, tt.json)
			}
			whole, err := objs[0].JSON()
			if err != nil || !json.Valid(whole) {
				t.Errorf("JSON() = %s, %v", whole, err)
			}
		})
	}
	// An explicit number tag on a string that is some other JSON value does
	// not inject that value.
	for _, v := range []string{`!!int "[1]"`, `!!float "{}"`, `!!int '"x"'`, `!!int "true"`} {
		objs, err := Parse("v.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nv: "+v+"\n"), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := objs[0].FieldJSON("v"); err == nil {
			t.Errorf("%s: FieldJSON = %s, want an error", v, got)
		}
	}
	// A missing field is null.
	objs, _ := Parse("v.yaml", []byte("apiVersion: v1\nkind: ConfigMap\n"), Limits{})
	if got, _ := objs[0].FieldJSON("nope"); string(got) != "null" {
		t.Errorf("FieldJSON(missing) = %s", got)
	}
	// An explicit !!int that is not a number is an error, not bad JSON.
	objs, _ = Parse("v.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nv: !!int nope\n"), Limits{})
	if got, err := objs[0].JSON(); err == nil {
		t.Errorf("JSON() = %s, want an error", got)
	} else if !strings.HasPrefix(err.Error(), "v.yaml:3:4:") {
		t.Errorf("err = %v, want position v.yaml:3:4", err)
	}
}

func TestJSONStringsRoundTrip(t *testing.T) {
	strs := []string{
		"plain",
		`with "double" and 'single' quotes`,
		`back\slash \n not a newline`,
		"new\nline",
		"tab\there",
		"carriage\rreturn",
		"ctrl \x01\x02\x1f \x7f end",
		"nul \x00 byte",
		"unicode é 世界 🚀",
		"line sep \u2028 para sep \u2029",
		"<html> & </script>",
		"trailing space ",
		" leading space",
		"",
		"#not a comment",
		"key: value",
		"- item",
		"80",
		"null",
	}
	for _, s := range strs {
		t.Run(fmt.Sprintf("%q", s), func(t *testing.T) {
			lit := jsonQuote(s) // a JSON string is a YAML double-quoted scalar
			src := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: " + string(lit) + "\n  " + string(lit) + ": key\n"
			objs, err := Parse("s.yaml", []byte(src), Limits{})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			raw, err := objs[0].JSON()
			if err != nil {
				t.Fatal(err)
			}
			var v struct {
				Data map[string]string `json:"data"`
			}
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatalf("JSON %s: %v", raw, err)
			}
			if v.Data["k"] != s {
				t.Errorf("value round-trip: got %q, want %q", v.Data["k"], s)
			}
			if v.Data[s] != "key" {
				t.Errorf("key round-trip failed: %v", v.Data)
			}
		})
	}
	// The same strings written as JSON input files.
	for _, s := range strs {
		lit := jsonQuote(s)
		src := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"k":` + string(lit) + `}}`
		objs, err := Parse("s.json", []byte(src), Limits{})
		if err != nil {
			t.Errorf("%q: Parse: %v", s, err)
			continue
		}
		var v struct {
			Data map[string]string `json:"data"`
		}
		raw, _ := objs[0].JSON()
		if err := json.Unmarshal(raw, &v); err != nil || v.Data["k"] != s {
			t.Errorf("%q: JSON input round-trip gave %q (%v)", s, v.Data["k"], err)
		}
	}
}

// jsonQuote is json.Marshal for a string, with DEL escaped too: YAML
// streams may not carry it raw.
func jsonQuote(s string) string {
	lit, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return strings.ReplaceAll(string(lit), "\x7f", `\u007f`)
}

func TestDecodeErrorPosition(t *testing.T) {
	src := `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - port: 80
  - name: http
    port: "eighty"
`
	objs, err := Parse("svc.yaml", []byte(src), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Spec struct {
			Ports []struct {
				Port int32 `json:"port"`
			} `json:"ports"`
		} `json:"spec"`
	}
	err = objs[0].Decode(&v)
	if err == nil || !strings.HasPrefix(err.Error(), "svc.yaml:9:11:") || !strings.Contains(err.Error(), "must be a number") {
		t.Errorf("Decode error = %v, want svc.yaml:9:11: … must be a number", err)
	}
	// DecodeField reports positions in the whole object too.
	var ports []struct {
		Port int32 `json:"port"`
	}
	err = objs[0].DecodeField("spec.ports", &ports)
	if err == nil || !strings.HasPrefix(err.Error(), "svc.yaml:9:11:") {
		t.Errorf("DecodeField error = %v, want svc.yaml:9:11", err)
	}
}

func TestObjectIdentity(t *testing.T) {
	objs, err := Parse("x.yaml", []byte(`apiVersion: gateway.networking.k8s.io/v1beta1
kind: HTTPRoute
metadata:
  name: r
  namespace: ns
  labels: {app: web, "n": "1"}
  annotations:
    gwpol.dev/ignore: GWP301
---
apiVersion: v1
kind: Service
metadata:
  name: s
  labels: null
`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	r := objs[0]
	if r.Group != "gateway.networking.k8s.io" || r.Version != "v1beta1" || r.APIVersion != "gateway.networking.k8s.io/v1beta1" {
		t.Errorf("group/version = %q %q %q", r.Group, r.Version, r.APIVersion)
	}
	if want := (diag.ObjectRef{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "ns", Name: "r"}); r.Ref() != want {
		t.Errorf("Ref = %+v", r.Ref())
	}
	if got := r.String(); got != "x.yaml:1:1 HTTPRoute/ns/r" {
		t.Errorf("String = %q", got)
	}
	if !reflect.DeepEqual(r.Labels, map[string]string{"app": "web", "n": "1"}) || r.Annotations["gwpol.dev/ignore"] != "GWP301" {
		t.Errorf("labels %v annotations %v", r.Labels, r.Annotations)
	}
	s := objs[1]
	if s.Group != "" || s.Version != "v1" || s.Labels != nil {
		t.Errorf("core object: group %q version %q labels %v", s.Group, s.Version, s.Labels)
	}
}

// TestDuplicateKeyLastWins: a mapping that sets a key twice is read as
// the Kubernetes API server reads it, the last value winning (two
// documents run together without "---" become the second), and each
// dropped value is a GWP109 warning at its line.
func TestDuplicateKeyLastWins(t *testing.T) {
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ca\ndata: {ca.crt: x}\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: certs\n"
	objs, err := Parse("in.yaml", []byte(src), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0].Kind != "Namespace" || objs[0].Name != "certs" {
		t.Fatalf("objects %+v, want the Namespace certs", objs)
	}
	var got []string
	for _, f := range objs[0].Findings() {
		got = append(got, fmt.Sprintf("%s %d:%d %s", f.Code, f.Pos.Line, f.Pos.Col, f.Severity))
	}
	want := []string{"GWP109 1:1 warning", "GWP109 2:1 warning", "GWP109 3:1 warning"}
	if !slices.Equal(want, got) {
		t.Errorf("findings %q, want %q", got, want)
	}
	if _, err := ParseNodes("def.yaml", []byte(src), Limits{}); err == nil {
		t.Error("ParseNodes (policy definitions, engine manifests) accepted a duplicate key")
	}
}
