package manifest

import (
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	yaml "go.yaml.in/yaml/v3"
)

// Reference is one object reference in an object's spec, found by the
// Kubernetes API conventions' naming: a field named …Ref holding a
// mapping, or …Refs holding a list of them (parentRefs, backendRefs,
// targetRefs, secretRef, certificateRefs, extensionRef…). Nothing here
// knows what a reference points at; Kind and Group are as written ("" when
// absent), and the key tells a caller which default kind applies.
type Reference struct {
	Path      string // of the reference, e.g. spec.rules[0].backendRefs[1]
	Key       string // the field it is in: backendRefs, secretRef…
	Group     string
	Kind      string
	Name      string
	Namespace string
	// HasName, HasNamespace: the field is present as a string.
	HasName, HasNamespace bool
	// NamePos, NamespacePos: where the values are.
	NamePos, NamespacePos diag.Position
}

// References lists the object's references outside metadata and status,
// in document order. A node reached through several aliases is visited
// once.
func (o *Object) References() []Reference {
	w := refWalk{o: o}
	eachPair(o.tree(), func(k, v *yaml.Node) {
		if k.Value == "metadata" || k.Value == "status" {
			return
		}
		w.path = append(w.path[:0], refStep{key: k.Value, index: -1})
		w.in(v, k.Value)
	})
	return w.out
}

// refStep is one step of a field path: a key, or an index into a list.
type refStep struct {
	key   string
	index int // -1 for a key
}

type refWalk struct {
	o    *Object
	path []refStep
	seen map[*yaml.Node]bool // alias targets already walked
	out  []Reference
}

func (w *refWalk) pathString() string {
	var b strings.Builder
	for i, s := range w.path {
		switch {
		case s.index >= 0:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		case i > 0:
			b.WriteString("." + s.key)
		default:
			b.WriteString(s.key)
		}
	}
	return b.String()
}

// in walks n, the value of a field named key (or an element of its list).
func (w *refWalk) in(n *yaml.Node, key string) {
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
			w.out = append(w.out, w.reference(n, key))
		}
		depth := len(w.path)
		eachPair(n, func(k, v *yaml.Node) {
			w.path = append(w.path[:depth], refStep{key: k.Value, index: -1})
			w.in(v, k.Value)
		})
		w.path = w.path[:depth]
	case yaml.SequenceNode:
		depth := len(w.path)
		for i, c := range n.Content {
			w.path = append(w.path[:depth], refStep{index: i})
			w.in(c, key)
		}
		w.path = w.path[:depth]
	}
}

func (w *refWalk) reference(n *yaml.Node, key string) Reference {
	r := Reference{Path: w.pathString(), Key: key}
	eachPair(n, func(k, v *yaml.Node) {
		v = resolve(v)
		if v == nil || v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" {
			return
		}
		switch k.Value {
		case "group":
			r.Group = v.Value
		case "kind":
			r.Kind = v.Value
		case "name":
			r.Name, r.HasName, r.NamePos = v.Value, true, w.o.posOf(v)
		case "namespace":
			r.Namespace, r.HasNamespace, r.NamespacePos = v.Value, true, w.o.posOf(v)
		}
	})
	return r
}

// ListLengths calls f for every list at pattern, a field path in which
// "[]" stands for every item of a list ("spec.rules[].matches"), with the
// list's concrete path, its length and its position. Absent parts and
// values that are not lists are skipped (other checks report a wrong type).
func (o *Object) ListLengths(pattern string, f func(path string, n int, pos diag.Position)) {
	o.listLengths(o.tree(), "", pattern, f)
}

func (o *Object) listLengths(n *yaml.Node, at, pattern string, f func(string, int, diag.Position)) {
	head, rest, wild := strings.Cut(pattern, "[]")
	if at != "" && head != "" && !strings.HasPrefix(head, ".") {
		head = "." + head
	}
	path := at + head
	target := n
	if h := strings.TrimPrefix(head, "."); h != "" {
		target = resolve(lookupPath(n, h))
	}
	if target == nil || target.Kind != yaml.SequenceNode {
		return
	}
	if !wild {
		f(path, len(target.Content), o.posOf(target))
		return
	}
	for i, item := range target.Content {
		o.listLengths(resolve(item), path+"["+strconv.Itoa(i)+"]", strings.TrimPrefix(rest, "."), f)
	}
}

// lookupPath follows a dotted path of mapping keys from n.
func lookupPath(n *yaml.Node, path string) *yaml.Node {
	for _, key := range strings.Split(path, ".") {
		n = resolve(n)
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		n = lookup(n, key)
	}
	return n
}
