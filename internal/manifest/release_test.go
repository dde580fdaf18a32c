package manifest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/gwpol/gwpol/internal/benchgen"
	yaml "go.yaml.in/yaml/v3"
)

// TestReleasedObjectReadsTheSameTree: after Release an object's metadata
// stay and a field read parses its text again into the tree it had —
// same values, lines and columns, duplicate keys dropped alike — for
// every object of the repository's inputs, a generated platform cut into
// chunks, and the document shapes that make cutting a stream tricky.
func TestReleasedObjectReadsTheSameTree(t *testing.T) {
	inputs := map[string][]byte{
		"platform.yaml": benchgen.Platform(800), // over 512 KiB: parsed in chunks
		"tricky.yaml": []byte(`# a comment first
apiVersion: v1
kind: Service
metadata: {name: a, namespace: ns, labels: {x: y}}
spec: {ports: [{port: 80}]}
--- {apiVersion: v1, kind: Service, metadata: {name: flow}}
---
!!map
apiVersion: v1
kind: Service
metadata:
  name: tagged
---
# between
base: &base {port: 80}
apiVersion: v1
kind: Service
metadata: {name: merged, annotations: {a: b, a: c}}
spec:
  ports: [{<<: *base, name: http}, *base]
...
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Service, metadata: {name: item}}
`),
		"crlf.yaml":      []byte("apiVersion: v1\r\nkind: Service\r\nmetadata:\r\n  name: c\r\n---\r\napiVersion: v1\r\nkind: Service\r\nmetadata:\r\n  name: d\r\n"),
		"bom.yaml":       []byte("\ufeffapiVersion: v1\nkind: Service\nmetadata: {name: b}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: c}\n"),
		"directive.yaml": []byte("%YAML 1.2\n---\napiVersion: v1\nkind: Service\nmetadata: {name: d}\n"),
		"doc.json":       []byte(`{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "j"}, "spec": {"ports": [{"port": 80}]}}`),
	}
	addTestdata(t, inputs)
	n, kept := 0, 0
	for name, data := range inputs {
		objs, _ := loadFile(name, data, Limits{}, nil)
		for _, o := range objs {
			before := o.tree()
			meta := fmt.Sprint(o.Name, o.Namespace, o.Labels, o.Annotations, o.Pos)
			o.Release()
			if !o.Released() {
				kept++
				if o.tree() != before {
					t.Errorf("%s: an object that cannot be read alone lost its tree", o)
				}
				continue
			}
			n++
			if got := fmt.Sprint(o.Name, o.Namespace, o.Labels, o.Annotations, o.Pos); got != meta {
				t.Errorf("%s: metadata %s after Release, was %s", o, got, meta)
			}
			if diff := treeDiff(before, o.tree(), "$"); diff != "" {
				t.Errorf("%s: read again: %s", o, diff)
			}
		}
	}
	if n < 1000 || kept == 0 {
		t.Errorf("released %d objects and kept %d trees: the inputs no longer cover both", n, kept)
	}
}

// TestRecycledTreesChangeNothing: when the loader's callback releases
// objects as it reads them (as pipeline.Predecode does), the fast reader
// builds later documents in the nodes of the released ones (eachDocument,
// spares). Every tree handed to the callback must be the one a load that
// releases nothing reads, and after the whole load a kept tree must be
// unchanged and a released object must read the same tree again — for
// every input under testdata/ and a generated platform cut into chunks,
// releasing every object, and every other one.
func TestRecycledTreesChangeNothing(t *testing.T) {
	inputs := map[string][]byte{"platform.yaml": benchgen.Platform(800)}
	addTestdata(t, inputs)
	released := 0
	for _, every := range []int{1, 2} {
		for name, data := range inputs {
			plain, _ := loadFile(name, data, Limits{}, nil)
			want := map[string]*yaml.Node{}
			for _, o := range plain {
				want[o.Pos.String()] = o.tree()
			}
			var mu sync.Mutex
			var problems []string
			each := func(o *Object) {
				w := want[o.Pos.String()]
				if w == nil {
					return
				}
				if d := treeDiff(w, o.tree(), "$"); d != "" {
					mu.Lock()
					problems = append(problems, fmt.Sprintf("%s: handed over: %s", o, d))
					mu.Unlock()
				}
				if o.Pos.Line%every == 0 {
					o.Release()
				}
			}
			objs, _ := loadFile(name, data, Limits{}, each)
			for _, p := range problems {
				t.Error(p)
			}
			if len(objs) != len(plain) {
				t.Errorf("%s: %d objects, %d releasing none", name, len(objs), len(plain))
			}
			for _, o := range objs {
				if o.Released() {
					released++
				}
				if w := want[o.Pos.String()]; w != nil {
					if d := treeDiff(w, o.tree(), "$"); d != "" {
						t.Errorf("%s (released %v): after the load: %s", o, o.Released(), d)
					}
				}
			}
		}
	}
	if released < 1000 {
		t.Errorf("%d objects released: the inputs no longer cover recycling", released)
	}
}

// addTestdata adds every YAML and JSON file under testdata/ to inputs.
func addTestdata(t *testing.T, inputs map[string][]byte) {
	t.Helper()
	err := filepath.WalkDir("../../testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".json") {
			return err
		}
		data, err := os.ReadFile(path)
		inputs[path] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// treeDiff is the first difference between two trees, "" when none.
func treeDiff(a, b *yaml.Node, at string) string {
	if a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) {
		return fmt.Sprintf("at %s: %+v, was %+v", at, *b, *a)
	}
	if (a.Alias == nil) != (b.Alias == nil) || a.Alias != nil && (a.Alias.Line != b.Alias.Line || a.Alias.Column != b.Alias.Column) {
		return fmt.Sprintf("at %s: alias differs", at)
	}
	for i := range a.Content {
		if d := treeDiff(a.Content[i], b.Content[i], fmt.Sprintf("%s[%d]", at, i)); d != "" {
			return d
		}
	}
	return ""
}

// TestReleasedObjectAnswersAsBefore: lookups, positions and decoding give
// the same answers after Release.
func TestReleasedObjectAnswersAsBefore(t *testing.T) {
	objs, err := Parse("r.yaml", []byte("---\napiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: ns, labels: {a: b}}\nspec: {ports: [{port: 80}]}\n"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	answers := func() string {
		var v map[string]any
		err := o.Decode(&v)
		js, _ := o.FieldJSON("spec")
		return fmt.Sprint(o.Lookup("spec.ports[0].port").Value, o.FieldPos("spec.ports[0].port"), o.KeyPos("spec.ports"), o.Has("spec.nothing"), v, err, string(js))
	}
	want := answers()
	o.Release()
	if !o.Released() {
		t.Fatal("a document's only object kept its tree")
	}
	if got := answers(); got != want {
		t.Errorf("after Release: %s, want %s", got, want)
	}
	if !reflect.DeepEqual(o.Labels, map[string]string{"a": "b"}) || o.Pos.Line != 2 {
		t.Errorf("metadata lost on release: %+v", o)
	}
}
