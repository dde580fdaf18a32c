package schema

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
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
	root *cel.Validator
	mu   sync.RWMutex
	own  map[nodeID]ownNode // a node's rules without its children's
}

// nodeID names a validator node for good: its schema node (a Properties
// entry is a copy each time it is read, its Schema pointer is not), and
// which of the node's allOf validators it is (-1: the node itself).
type nodeID struct {
	schema *structuralschema.Structural
	allOf  int
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

func (r *rules) ownRules(id nodeID, node *cel.Validator) ownNode {
	r.mu.RLock()
	o, ok := r.own[id]
	r.mu.RUnlock()
	if ok {
		return o
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if o, ok := r.own[id]; ok {
		return o
	}
	c := *node
	c.Items, c.Properties, c.AdditionalProperties, c.AllOfValidators = nil, nil, nil, nil
	o = ownNode{v: &c, memo: &memo{m: map[string]field.ErrorList{}}}
	if id.allOf < 0 {
		o.proj = projectionOf(id.schema)
	}
	r.own[id] = o
	return o
}

// validate is cel.Validator.Validate of the whole object (the root is
// evaluated without a memo: root rules may read metadata.name).
func (r *rules) validate(ctx context.Context, obj map[string]any) field.ErrorList {
	w := walker{r: r, ctx: ctx}
	w.walk(r.root, obj, true)
	return w.errs
}

// walker is one object's walk; its path is built only for a finding.
type walker struct {
	r    *rules
	ctx  context.Context
	path []seg
	errs field.ErrorList
}

func (w *walker) walk(node *cel.Validator, obj any, root bool) {
	if node == nil || obj == nil {
		return
	}
	if root || node.Schema == nil || len(node.Schema.XValidations) > 0 {
		w.own1(nodeID{node.Schema, -1}, node, obj, root || node.Schema == nil)
	}
	for i, a := range node.AllOfValidators {
		w.own1(nodeID{node.Schema, i}, a, obj, root || node.Schema == nil)
	}
	switch obj := obj.(type) {
	case []any:
		if node.Items != nil {
			for i, x := range obj {
				w.path = append(w.path, seg{index: i})
				w.walk(node.Items, x, false)
				w.path = w.path[:len(w.path)-1]
			}
		}
	case map[string]any:
		var buf [16]string
		keys := sortedKeysInto(buf[:0], obj)
		if node.AdditionalProperties != nil {
			for _, k := range keys {
				w.path = append(w.path, seg{key: k, index: -1})
				w.walk(node.AdditionalProperties, obj[k], false)
				w.path = w.path[:len(w.path)-1]
			}
		}
		if node.Properties != nil {
			for _, k := range keys {
				if sub, ok := node.Properties[k]; ok {
					w.path = append(w.path, seg{key: k, prop: true, index: -1})
					w.walk(&sub, obj[k], false)
					w.path = w.path[:len(w.path)-1]
				}
			}
		}
	}
}

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// own1 runs node's own rules on obj at the walk's path, from the memo
// when the value was seen before.
func (w *walker) own1(id nodeID, node *cel.Validator, obj any, noMemo bool) {
	if noMemo {
		c := *node
		c.Items, c.Properties, c.AdditionalProperties, c.AllOfValidators = nil, nil, nil, nil
		errs, _ := c.Validate(w.ctx, toPath(w.path), nil, obj, nil, celconfig.RuntimeCELCostBudget)
		w.errs = append(w.errs, errs...)
		return
	}
	own := w.r.ownRules(id, node)
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

func sortedKeys(m map[string]any) []string {
	return sortedKeysInto(make([]string, 0, len(m)), m)
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
