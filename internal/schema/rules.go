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
	mu   sync.Mutex
	own  map[nodeID]ownNode // a node's rules without its children's
	memo sync.Map           // memoKey → field.ErrorList (paths relative to the node)
}

// nodeID names a validator node for good: its schema node (a Properties
// entry is a copy each time it is read, its Schema pointer is not), and
// which of the node's allOf validators it is (-1: the node itself).
type nodeID struct {
	schema *structuralschema.Structural
	allOf  int
}

type memoKey struct {
	node  nodeID
	value string
}

// ownNode is a node's own rules (the node with its children dropped:
// validating with it runs them only), and what they read of its value
// (nil: all of it).
type ownNode struct {
	v    *cel.Validator
	proj *projection
}

func (r *rules) ownRules(id nodeID, node *cel.Validator) ownNode {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o, ok := r.own[id]; ok {
		return o
	}
	c := *node
	c.Items, c.Properties, c.AdditionalProperties, c.AllOfValidators = nil, nil, nil, nil
	o := ownNode{v: &c}
	if id.allOf < 0 {
		o.proj = projectionOf(id.schema)
	}
	r.own[id] = o
	return o
}

// validate is cel.Validator.Validate of the whole object (the root is
// evaluated without a memo: root rules may read metadata.name).
func (r *rules) validate(ctx context.Context, obj map[string]any) field.ErrorList {
	var errs field.ErrorList
	r.walk(ctx, r.root, nil, obj, &errs, true)
	return errs
}

func (r *rules) walk(ctx context.Context, node *cel.Validator, path *field.Path, obj any, errs *field.ErrorList, root bool) {
	if node == nil || obj == nil {
		return
	}
	if root || node.Schema == nil || len(node.Schema.XValidations) > 0 {
		*errs = append(*errs, r.own1(ctx, nodeID{node.Schema, -1}, node, path, obj, root || node.Schema == nil)...)
	}
	for i, a := range node.AllOfValidators {
		*errs = append(*errs, r.own1(ctx, nodeID{node.Schema, i}, a, path, obj, root || node.Schema == nil)...)
	}
	switch obj := obj.(type) {
	case []any:
		if node.Items != nil {
			for i, x := range obj {
				r.walk(ctx, node.Items, path.Index(i), x, errs, false)
			}
		}
	case map[string]any:
		if node.AdditionalProperties != nil {
			for _, k := range sortedKeys(obj) {
				r.walk(ctx, node.AdditionalProperties, path.Key(k), obj[k], errs, false)
			}
		}
		if node.Properties != nil {
			for _, k := range sortedKeys(obj) {
				if sub, ok := node.Properties[k]; ok {
					r.walk(ctx, &sub, path.Child(k), obj[k], errs, false)
				}
			}
		}
	}
}

// own1 runs node's own rules on obj at path, from the memo when the value
// was seen before.
func (r *rules) own1(ctx context.Context, id nodeID, node *cel.Validator, path *field.Path, obj any, noMemo bool) field.ErrorList {
	if noMemo {
		c := *node
		c.Items, c.Properties, c.AdditionalProperties, c.AllOfValidators = nil, nil, nil, nil
		errs, _ := c.Validate(ctx, path, nil, obj, nil, celconfig.RuntimeCELCostBudget)
		return errs
	}
	own := r.ownRules(id, node)
	var b bytes.Buffer
	keyed := false
	if own.proj != nil {
		keyed = own.proj.write(&b, obj)
	} else {
		keyed = canonical(&b, obj)
	}
	if !keyed {
		errs, _ := own.v.Validate(ctx, path, nil, obj, nil, celconfig.RuntimeCELCostBudget)
		return errs
	}
	k := memoKey{id, b.String()}
	var rel field.ErrorList
	if v, ok := r.memo.Load(k); ok {
		rel, _ = v.(field.ErrorList)
	} else {
		rel, _ = own.v.Validate(ctx, nil, nil, obj, nil, celconfig.RuntimeCELCostBudget)
		r.memo.Store(k, rel)
	}
	if len(rel) == 0 {
		return nil
	}
	base := path.String()
	out := make(field.ErrorList, len(rel))
	for i, e := range rel {
		c := *e
		c.Field = rebase(base, e.Field)
		out[i] = &c
	}
	return out
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
	ks := make([]string, 0, len(m))
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
		for _, k := range sortedKeys(v) {
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
