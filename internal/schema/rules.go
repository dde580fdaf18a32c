package schema

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// rules evaluates a CRD version's CEL rules as the API server's validator
// does — the same compiled programs, node by node down the object — but
// remembers each node's answer for the value it saw. A rule sees only its
// node's value (self; there is no oldSelf on a create), so two equal
// values get the same errors, relative to the node: a platform's routes
// repeat their matches, filters and parentRefs, and evaluating CEL is most
// of what validating costs.
//
// A node's rules are compiled when an object first has a value there,
// not all at once when the version is: compiling is most of what a
// CRD's validators cost to build (Envoy Gateway's kinds carry hundreds of
// rules, 0.3 CPU s a run), and an input's objects reach few of its nodes.
type rules struct {
	root *celNode
}

// celNode is a node of the version's schema that has CEL rules at or
// below it, laid out as the API server's validator tree is (the nodes
// cel.NewValidator makes a validator for), with its own rules compiled
// and their memo made when first needed.
type celNode struct {
	// schema is the node's schema (with its rules); compile builds the
	// validator of the node's own rules alone.
	schema     *structuralschema.Structural
	compile    func() *cel.Validator
	props      map[string]*celNode
	propNames  []string // props' keys, sorted
	additional *celNode
	items      *celNode
	allOf      []*celNode

	once sync.Once
	own  ownNode
}

// newRules lays out the rules of s, the schema of a resource's root
// (nil when it has none, as cel.NewValidator answers).
func newRules(s *structuralschema.Structural) *rules {
	if !hasRules(s) {
		return nil
	}
	bare := s.DeepCopy()
	stripRules(bare)
	n := newCELNode(s, bare, true, model.SchemaDeclType(s, true))
	if n == nil {
		return nil
	}
	return &rules{root: n}
}

// hasRules is cel.NewValidator's test of whether a schema has rules: its
// own or its descendants' (not an allOf's).
func hasRules(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 || hasRules(s.Items) {
		return true
	}
	if s.AdditionalProperties != nil && hasRules(s.AdditionalProperties.Structural) {
		return true
	}
	for k := range s.Properties {
		p := s.Properties[k]
		if hasRules(&p) {
			return true
		}
	}
	return false
}

// newCELNode lays out node s (bare: the same node of a copy of the schema
// without rules anywhere; isRoot: the root of a resource, whose apiVersion,
// kind and metadata rules may read; decl: its CEL type as the validator
// tree derives it from its parent's), choosing its children as
// cel.NewValidator does; nil when no rule is at or below it.
func newCELNode(s, bare *structuralschema.Structural, isRoot bool, decl *apiservercel.DeclType) *celNode {
	n := &celNode{schema: s}
	if len(s.XValidations) > 0 {
		n.compile = ownCompiler(bare, s.XValidations, isRoot)
	}
	var elem *apiservercel.DeclType
	if decl != nil {
		elem = decl.ElemType
	}
	if s.Items != nil {
		n.items = newCELNode(s.Items, bare.Items, s.Items.XEmbeddedResource, elem)
	}
	for k := range s.Properties {
		p, bp := s.Properties[k], bare.Properties[k]
		var t *apiservercel.DeclType
		if esc, ok := apiservercel.Escape(k); ok {
			if decl == nil || decl.Fields[esc] == nil {
				continue // a field of no known type: not validated by CEL
			}
			t = decl.Fields[esc].Type
		} else if t = model.SchemaDeclType(&p, p.XEmbeddedResource); t == nil {
			continue
		}
		if c := newCELNode(&p, &bp, p.XEmbeddedResource, t); c != nil {
			if n.props == nil {
				n.props = map[string]*celNode{}
			}
			n.props[k] = c
			n.propNames = append(n.propNames, k)
		}
	}
	slices.Sort(n.propNames)
	if a := s.AdditionalProperties; a != nil && a.Structural != nil {
		n.additional = newCELNode(a.Structural, bare.AdditionalProperties.Structural, a.Structural.XEmbeddedResource, elem)
	}
	if s.ValueValidation != nil {
		for _, a := range s.ValueValidation.AllOf {
			if len(a.XValidations) > 0 {
				// An allOf's rules are compiled against the node's schema.
				n.allOf = append(n.allOf, &celNode{schema: s, compile: ownCompiler(bare, a.XValidations, isRoot)})
			}
		}
	}
	if n.compile == nil && n.items == nil && n.props == nil && n.additional == nil && n.allOf == nil {
		return nil
	}
	return n
}

// ownCompiler compiles rules on a node alone: a copy of the bare node
// given those rules, so that cel.NewValidator compiles them (against the
// node's type, as in the whole tree) and nothing below, where the bare
// schema has none.
func ownCompiler(bare *structuralschema.Structural, rules apiextensionsv1.ValidationRules, isRoot bool) func() *cel.Validator {
	return func() *cel.Validator {
		alone := *bare
		alone.XValidations = rules
		return cel.NewValidator(&alone, isRoot, celconfig.PerCallLimit)
	}
}

// stripRules removes every rule from s and below: its own, and those of
// its allOf schemas.
func stripRules(s *structuralschema.Structural) {
	if s == nil {
		return
	}
	s.XValidations = nil
	if s.ValueValidation != nil {
		for i := range s.ValueValidation.AllOf {
			stripNested(&s.ValueValidation.AllOf[i])
		}
	}
	stripRules(s.Items)
	if s.AdditionalProperties != nil {
		stripRules(s.AdditionalProperties.Structural)
	}
	for k, p := range s.Properties {
		stripRules(&p)
		s.Properties[k] = p
	}
}

func stripNested(nv *structuralschema.NestedValueValidation) {
	if nv == nil {
		return
	}
	nv.XValidations = nil
	for i := range nv.ValueValidation.AllOf {
		stripNested(&nv.ValueValidation.AllOf[i])
	}
	stripNested(nv.Items)
	if nv.AdditionalProperties != nil {
		stripNested(nv.AdditionalProperties)
	}
	for k, p := range nv.Properties {
		stripNested(&p)
		nv.Properties[k] = p
	}
}

// ownNode is a node's own rules (nil v: none), and what they read of its
// value (nil: all of it).
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

// ownRules is n's own rules, compiled on first use; project: read what
// they read of the value (not for an allOf's, whose schema is its
// parent's).
func (n *celNode) ownRules(project bool) *ownNode {
	n.once.Do(func() {
		n.own = ownNode{memo: &memo{m: map[string]field.ErrorList{}}}
		if n.compile != nil {
			n.own.v = n.compile()
		}
		if project {
			n.own.proj = projectionOf(n.schema)
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
	noMemo := root || n.schema == nil
	if noMemo || len(n.schema.XValidations) > 0 {
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
	if own.v == nil {
		return // no rules of its own
	}
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
