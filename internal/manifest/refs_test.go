package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/benchgen"
	yaml "go.yaml.in/yaml/v3"
)

// TestReferencesWalkMatchesEachPair: References walks a mapping's pairs
// itself when it has no merge key (no closure per mapping); it finds the
// same references, in the same order, as a walk through eachPair at every
// mapping — on a generated platform, every YAML input under testdata,
// and documents with merge keys and aliases.
func TestReferencesWalkMatchesEachPair(t *testing.T) {
	inputs := map[string][]byte{
		"platform.yaml": benchgen.Platform(300),
		"merged.yaml": []byte(`base: &base {name: svc, port: 80}
parent: &parent {name: gw}
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: merged}
spec:
  <<: {parentRefs: [{name: ignored}]}
  parentRefs: [*parent, {<<: *parent, sectionName: http}]
  rules:
  - backendRefs: [{<<: *base, weight: 1}, *base]
    filters: [{type: ExtensionRef, extensionRef: {<<: {group: g, kind: K}, name: x}}]
`),
	}
	_ = filepath.WalkDir("../../testdata", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			if data, err := os.ReadFile(p); err == nil {
				inputs[p] = data
			}
		}
		return nil
	})
	refs := 0
	for name, data := range inputs {
		objs, err := Parse(name, data, Limits{})
		if err != nil {
			continue
		}
		for _, o := range objs {
			got := o.References()
			want := referencesViaEachPair(o)
			refs += len(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s/%s: References\n got  %+v\n want %+v", name, o.Kind, o.Name, got, want)
			}
		}
	}
	if refs < 300 {
		t.Errorf("only %d references compared", refs)
	}
}

// referencesViaEachPair is References as it was written before its walk
// took a mapping's pairs itself: eachPair at every mapping.
func referencesViaEachPair(o *Object) []Reference {
	var out []Reference
	w := refWalk{o: o}
	var in func(n *yaml.Node, key string)
	in = func(n *yaml.Node, key string) {
		if n != nil && n.Kind == yaml.AliasNode {
			n = resolve(n)
			if w.seen[n] {
				return
			}
			if w.seen == nil {
				w.seen = map[*yaml.Node]bool{}
			}
			w.seen[n] = true
		}
		if n == nil {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			inList := w.path[len(w.path)-1].index >= 0
			if strings.HasSuffix(key, "Ref") && !inList || strings.HasSuffix(key, "Refs") && inList {
				out = append(out, w.reference(n, key))
			}
			depth := len(w.path)
			eachPair(n, func(k, v *yaml.Node) {
				w.path = append(w.path[:depth], refStep{key: k.Value, index: -1})
				in(v, k.Value)
			})
			w.path = w.path[:depth]
		case yaml.SequenceNode:
			depth := len(w.path)
			for i, c := range n.Content {
				w.path = append(w.path[:depth], refStep{index: i})
				in(c, key)
			}
			w.path = w.path[:depth]
		}
	}
	eachPair(o.tree(), func(k, v *yaml.Node) {
		if k.Value == "metadata" || k.Value == "status" {
			return
		}
		w.path = append(w.path[:0], refStep{key: k.Value, index: -1})
		in(v, k.Value)
	})
	return out
}

// TestStepsString: a field path as findings name it, keys joined by dots
// and list indexes in brackets, whatever the index's width.
func TestStepsString(t *testing.T) {
	key := func(k string) refStep { return refStep{key: k, index: -1} }
	at := func(i int) refStep { return refStep{index: i} }
	for _, c := range []struct {
		steps []refStep
		want  string
	}{
		{nil, ""},
		{[]refStep{key("spec")}, "spec"},
		{[]refStep{key("spec"), key("rules"), at(0), key("backendRefs"), at(12)}, "spec.rules[0].backendRefs[12]"},
		{[]refStep{key("spec"), at(1 << 40), at(7)}, "spec[1099511627776][7]"},
		{[]refStep{at(3), key("")}, "[3]."},
	} {
		if got := stepsString(c.steps); got != c.want {
			t.Errorf("stepsString(%v) = %q, want %q", c.steps, got, c.want)
		}
	}
}
