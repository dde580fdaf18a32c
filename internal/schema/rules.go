package schema

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// rules evaluates a CRD version's CEL rules as the API server's validator
// does — the same compiled programs, node by node down the object — but
// remembers each node's answer for the value it saw. A rule sees only its
// node's value (self; there is no oldSelf on a create), so two equal
// values get the same errors, relative to the node: a platform's routes
// repeat their matches, filters and parentRefs, and evaluating CEL is most
// of what validating costs.
type rules struct {
	root *celNode
}

// celNode is a node of the version's CEL validator tree, copied once (a
// cel.Validator's Properties hold values: reading one copies it), with its
// own rules and their memo made when first needed.
type celNode struct {
	v          *cel.Validator
	props      map[string]*celNode
	propNames  []string // props' keys, sorted
	additional *celNode
	items      *celNode
	allOf      []*celNode

	once sync.Once
	own  ownNode
}

func newRules(root *cel.Validator) *rules { return &rules{root: newCELNode(root)} }

func newCELNode(v *cel.Validator) *celNode {
	if v == nil {
		return nil
	}
	n := &celNode{v: v}
	if len(v.Properties) > 0 {
		n.props = make(map[string]*celNode, len(v.Properties))
		for k := range v.Properties {
			p := v.Properties[k]
			n.props[k] = newCELNode(&p)
			n.propNames = append(n.propNames, k)
		}
		slices.Sort(n.propNames)
	}
	n.additional = newCELNode(v.AdditionalProperties)
	n.items = newCELNode(v.Items)
	for _, a := range v.AllOfValidators {
		n.allOf = append(n.allOf, newCELNode(a))
	}
	return n
}

// ownNode is a node's own rules (the node with its children dropped:
// validating with it runs them only), and what they read of its value
// (nil: all of it).
type ownNode struct {
	v    *cel.Validator
	proj *projection
	memo *memo
}

// memo is one node's answers: the errors its rules give (paths relative
// to the node) by the projection of the value they saw.
type memo struct {
	mu sync.RWMutex
	m  map[string]field.ErrorList
}

// ownRules is n's own rules; project: read what they read of the value
// (not for an allOf validator, whose schema is its parent's).
func (n *celNode) ownRules(project bool) *ownNode {
	n.once.Do(func() {
		c := *n.v
		c.Items, c.Properties, c.AdditionalProperties, c.AllOfValidators = nil, nil, nil, nil
		n.own = ownNode{v: &c, memo: &memo{m: map[string]field.ErrorList{}}}
		if project {
			n.own.proj = projectionOf(n.v.Schema)
		}
	})
	return &n.own
}

// validate is cel.Validator.Validate of the whole object (the root is
// evaluated without a memo: root rules may read metadata.name).
func (r *rules) validate(ctx context.Context, obj map[string]any) field.ErrorList {
	w := walker{ctx: ctx}
	w.walk(r.root, obj, true)
	return w.errs
}

// walker is one object's walk; its path is built only for a finding.
type walker struct {
	ctx  context.Context
	path []seg
	errs field.ErrorList
}

func (w *walker) walk(n *celNode, obj any, root bool) {
	if n == nil || obj == nil {
		return
	}
	noMemo := root || n.v.Schema == nil
	if noMemo || len(n.v.Schema.XValidations) > 0 {
		w.own1(n.ownRules(true), obj, noMemo)
	}
	for _, a := range n.allOf {
		w.own1(a.ownRules(false), obj, noMemo)
	}
	switch obj := obj.(type) {
	case []any:
		if n.items != nil {
			for i, x := range obj {
				w.path = append(w.path, seg{index: i})
				w.walk(n.items, x, false)
				w.path = w.path[:len(w.path)-1]
			}
		}
	case map[string]any:
		if n.additional != nil {
			var buf [16]string
			for _, k := range sortedKeysInto(buf[:0], obj) {
				w.path = append(w.path, seg{key: k, index: -1})
				w.walk(n.additional, obj[k], false)
				w.path = w.path[:len(w.path)-1]
			}
		}
		if n.props == nil {
			return
		}
		// The object's keys that are properties, in sorted order: from
		// the sorted property names when there are few, else sorted here.
		names := n.propNames
		if len(names) > 2*len(obj) {
			var buf [16]string
			names = sortedKeysInto(buf[:0], obj)
		}
		for _, k := range names {
			x, present := obj[k]
			sub := n.props[k]
			if !present || sub == nil {
				continue
			}
			w.path = append(w.path, seg{key: k, prop: true, index: -1})
			w.walk(sub, x, false)
			w.path = w.path[:len(w.path)-1]
		}
	}
}

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// own1 runs a node's own rules on obj at the walk's path, from the memo
// when the value was seen before.
func (w *walker) own1(own *ownNode, obj any, noMemo bool) {
	if noMemo {
		errs, _ := own.v.Validate(w.ctx, toPath(w.path), nil, obj, nil, celconfig.RuntimeCELCostBudget)
		w.errs = append(w.errs, errs...)
		return
	}
	b, _ := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(b)
	b.Reset()
	keyed := false
	if own.proj != nil {
		keyed = own.proj.write(b, obj)
	} else {
		keyed = canonical(b, obj)
	}
	if !keyed {
		errs, _ := own.v.Validate(w.ctx, toPath(w.path), nil, obj, nil, celconfig.RuntimeCELCostBudget)
		w.errs = append(w.errs, errs...)
		return
	}
	own.memo.mu.RLock()
	rel, ok := own.memo.m[string(b.Bytes())]
	own.memo.mu.RUnlock()
	if !ok {
		rel, _ = own.v.Validate(w.ctx, nil, nil, obj, nil, celconfig.RuntimeCELCostBudget)
		own.memo.mu.Lock()
		own.memo.m[b.String()] = rel
		own.memo.mu.Unlock()
	}
	if len(rel) == 0 {
		return
	}
	base := toPath(w.path).String()
	for _, e := range rel {
		c := *e
		c.Field = rebase(base, e.Field)
		w.errs = append(w.errs, &c)
	}
}

// rebase puts a path relative to a node ("<nil>" for the node itself)
// under the node's path.
func rebase(base, rel string) string {
	switch {
	case rel == "<nil>" || rel == "":
		return base
	case base == "<nil>" || base == "":
		return rel
	case strings.HasPrefix(rel, "["):
		return base + rel
	}
	return base + "." + rel
}

// sortedKeysInto appends m's keys to ks, sorted.
func sortedKeysInto(ks []string, m map[string]any) []string {
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// canonical writes an unstructured value with sorted keys and typed
// numbers (an int64 and an equal float64 are different values to CEL);
// false for a value of another Go type, which is then not remembered.
func canonical(b *bytes.Buffer, v any) bool {
	switch v := v.(type) {
	case nil:
		b.WriteString("n")
	case bool:
		if v {
			b.WriteString("t")
		} else {
			b.WriteString("f")
		}
	case int64:
		b.WriteString("i")
		b.WriteString(strconv.FormatInt(v, 10))
		b.WriteByte(';')
	case float64:
		b.WriteString("d")
		b.WriteString(strconv.FormatUint(math.Float64bits(v), 16))
		b.WriteByte(';')
	case string:
		b.WriteString("s")
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
	case []any:
		b.WriteString("[")
		for _, x := range v {
			if !canonical(b, x) {
				return false
			}
		}
		b.WriteString("]")
	case map[string]any:
		b.WriteString("{")
		var buf [16]string
		for _, k := range sortedKeysInto(buf[:0], v) {
			b.WriteString(strconv.Itoa(len(k)))
			b.WriteByte(':')
			b.WriteString(k)
			if !canonical(b, v[k]) {
				return false
			}
		}
		b.WriteString("}")
	default:
		return false
	}
	return true
}
