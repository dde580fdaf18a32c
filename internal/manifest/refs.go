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
	var out []Reference
	o.EachReference(func(r Reference) { out = append(out, r) })
	return out
}

// EachReference calls f with each of the object's References, in
// document order, without making their list: every object read is
// walked for them (model's name checks), and a list of them per object
// was 0.1 GB of garbage at 30k routes.
func (o *Object) EachReference(f func(Reference)) {
	w := refWalk{o: o, path: make([]refStep, 0, 16), f: f} // deep enough for most paths: one allocation, not one per doubling
	eachPair(o.tree(), func(k, v *yaml.Node) {
		if k.Value == "metadata" || k.Value == "status" {
			return
		}
		w.path = append(w.path[:0], refStep{key: k.Value, index: -1})
		w.in(v, k.Value)
	})
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
	f    func(Reference)
}

func (w *refWalk) pathString() string { return stepsString(w.path) }

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
			w.f(w.reference(n, key))
		}
		depth := len(w.path)
		if hasMergeKey(n) {
			eachPair(n, func(k, v *yaml.Node) {
				w.path = append(w.path[:depth], refStep{key: k.Value, index: -1})
				w.in(v, k.Value)
			})
		} else {
			// eachPair's order without its closure, one per mapping of
			// every object read
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				w.path = append(w.path[:depth], refStep{key: k.Value, index: -1})
				w.in(n.Content[i+1], k.Value)
			}
		}
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

// ListBound is a bound on the length of lists: those at Path, a field
// path in which "[]" stands for every item of a list
// ("spec.rules[].matches"), hold at most Max items.
type ListBound struct {
	Path string
	Max  int
}

// ListBounds are the list bounds of one kind, made into a tree of their
// paths (NewListBounds) so that an object is walked once for all of them.
type ListBounds struct{ root *boundNode }

type boundNode struct {
	max   int // the bound on a list here; -1: none
	keys  []boundEdge
	items *boundNode // what is bound in every item of a list here
}

type boundEdge struct {
	key  string
	node *boundNode
}

// NewListBounds makes bounds into their tree.
func NewListBounds(bounds []ListBound) *ListBounds {
	root := &boundNode{max: -1}
	for _, b := range bounds {
		n := root
		for seg := range strings.SplitSeq(b.Path, ".") {
			key, items := strings.CutSuffix(seg, "[]")
			n = n.child(key)
			for items {
				if n.items == nil {
					n.items = &boundNode{max: -1}
				}
				n = n.items
				key, items = strings.CutSuffix(key, "[]")
			}
		}
		n.max = b.Max
	}
	return &ListBounds{root: root}
}

func (n *boundNode) child(key string) *boundNode {
	for _, e := range n.keys {
		if e.key == key {
			return e.node
		}
	}
	c := &boundNode{max: -1}
	n.keys = append(n.keys, boundEdge{key, c})
	return c
}

// ListsOver calls f for every list of the object longer than its bound
// in b, with the list's concrete path (spec.rules[0].matches), its length,
// the bound and its position. Absent parts and values that are not lists
// are skipped (other checks report a wrong type). Nothing is built for
// the lists within bounds: every object of a kind is checked, and hardly
// any list is over its bound.
func (o *Object) ListsOver(b *ListBounds, f func(path string, n, max int, pos diag.Position)) {
	if b == nil {
		return
	}
	var stack [16]refStep
	w := listWalk{o: o, f: f, steps: stack[:0]}
	w.walk(b.root, o.tree())
}

type listWalk struct {
	o     *Object
	f     func(string, int, int, diag.Position)
	steps []refStep // the keys and indexes followed to here
}

// walk checks the bounds of b on n and below.
func (w *listWalk) walk(b *boundNode, n *yaml.Node) {
	n = resolve(n)
	if n == nil {
		return
	}
	if n.Kind == yaml.SequenceNode {
		if b.max >= 0 && len(n.Content) > b.max {
			w.f(stepsString(w.steps), len(n.Content), b.max, w.o.posOf(n))
		}
		if b.items != nil {
			for i, item := range n.Content {
				w.steps = append(w.steps, refStep{index: i})
				w.walk(b.items, item)
				w.steps = w.steps[:len(w.steps)-1]
			}
		}
		return
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	for _, e := range b.keys {
		if c := lookup(n, e.key); c != nil {
			w.steps = append(w.steps, refStep{key: e.key, index: -1})
			w.walk(e.node, c)
			w.steps = w.steps[:len(w.steps)-1]
		}
	}
}

// stepsString is a field path as findings name it: spec.rules[0].matches.
// It is made for every reference of every object read, so its bytes are
// sized first and allocated once.
func stepsString(steps []refStep) string {
	n := 0
	for _, s := range steps {
		n += len(s.key) + 1 // the key and its dot
		if s.index >= 0 {
			n += 21 // brackets and the widest int
		}
	}
	var b strings.Builder
	b.Grow(n)
	var num [20]byte
	for i, s := range steps {
		switch {
		case s.index >= 0:
			b.WriteByte('[')
			b.Write(strconv.AppendInt(num[:0], int64(s.index), 10))
			b.WriteByte(']')
		case i > 0:
			b.WriteByte('.')
			b.WriteString(s.key)
		default:
			b.WriteString(s.key)
		}
	}
	return b.String()
}

// hasMergeKey reports whether mapping n has a merge key (<<), which only
// eachPair applies.
func hasMergeKey(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if isMergeKey(n.Content[i]) {
			return true
		}
	}
	return false
}
