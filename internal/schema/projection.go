package schema

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// projection is what a node's CEL rules (and their message expressions)
// read of the node's value, found by reading the rules' syntax: the
// fields they select, the lists they iterate, the lengths they take. Two
// values with the same projection get the same answer from the rules, so
// the memo is keyed by it: the rules on a route's rules list read each
// rule's name and the number of its matches, not its backends. Anything
// used in another way (compared, passed to a function) is read whole.
type projection struct {
	full    bool
	length  bool
	present map[string]bool
	fields  map[string]*projection
	elems   *projection
	// presentKeys and fieldKeys are present's and fields' keys, sorted
	// (finish).
	presentKeys, fieldKeys []string
}

// finish sorts the keys write goes through, once.
func (p *projection) finish() *projection {
	if p == nil {
		return nil
	}
	p.presentKeys = sortedPresent(p.present)
	p.fieldKeys = sortedFields(p.fields)
	for _, f := range p.fields {
		f.finish()
	}
	p.elems.finish()
	return p
}

// projectionOf reads s's own rules; nil when one does not parse (the
// value is then read whole).
func projectionOf(s *structuralschema.Structural) *projection {
	if s == nil || len(s.XValidations) == 0 {
		return nil
	}
	env, err := cel.NewEnv(cel.OptionalTypes())
	if err != nil {
		return nil
	}
	p := &projection{}
	for _, r := range s.XValidations {
		for _, src := range []string{r.Rule, r.MessageExpression} {
			if src == "" {
				continue
			}
			a, iss := env.Parse(src)
			if iss != nil && iss.Err() != nil {
				return nil
			}
			an := analysis{root: p}
			if path, ok := an.visit(a.NativeRep().Expr(), nil); ok {
				an.mark(path, markFull)
			}
		}
	}
	return p.finish()
}

// A segment of a path from self: a field name, or "" for "every element".
type segment = string

const every segment = "\x00[]"

type markKind int

const (
	markFull markKind = iota
	markLength
)

type analysis struct{ root *projection }

// mark records that path is read (whole, or only its length).
func (an analysis) mark(path []segment, kind markKind) {
	n := an.node(path)
	if kind == markFull {
		n.full = true
	} else {
		n.length = true
	}
}

func (an analysis) markPresent(path []segment, field string) {
	n := an.node(path)
	if n.present == nil {
		n.present = map[string]bool{}
	}
	n.present[field] = true
}

func (an analysis) node(path []segment) *projection {
	n := an.root
	for _, seg := range path {
		if seg == every {
			if n.elems == nil {
				n.elems = &projection{}
			}
			n = n.elems
			continue
		}
		if n.fields == nil {
			n.fields = map[string]*projection{}
		}
		c := n.fields[seg]
		if c == nil {
			c = &projection{}
			n.fields[seg] = c
		}
		n = c
	}
	return n
}

// visit walks e; when e denotes part of self (self, a field of it, an
// element of a list in it, or a comprehension variable ranging over one)
// it returns that part's path and true, and the caller decides how it is
// read. Everything else e reads of self is marked here.
func (an analysis) visit(e celast.Expr, vars map[string][]segment) ([]segment, bool) {
	use := func(x celast.Expr) {
		if p, ok := an.visit(x, vars); ok {
			an.mark(p, markFull)
		}
	}
	switch e.Kind() {
	case celast.IdentKind:
		name := e.AsIdent()
		if p, ok := vars[name]; ok {
			return p, p != nil
		}
		if name == "self" {
			return []segment{}, true
		}
	case celast.SelectKind:
		sel := e.AsSelect()
		p, ok := an.visit(sel.Operand(), vars)
		if !ok {
			return nil, false
		}
		if sel.IsTestOnly() {
			an.markPresent(p, sel.FieldName())
			return nil, false
		}
		return append(slices.Clip(p), sel.FieldName()), true
	case celast.CallKind:
		c := e.AsCall()
		args := c.Args()
		if c.IsMemberFunction() {
			args = append([]celast.Expr{c.Target()}, args...)
		}
		switch {
		case c.FunctionName() == "_[_]" && len(args) == 2:
			use(args[1])
			if p, ok := an.visit(args[0], vars); ok {
				return append(slices.Clip(p), every), true
			}
			return nil, false
		case c.FunctionName() == "size" && len(args) == 1:
			if p, ok := an.visit(args[0], vars); ok {
				an.mark(p, markLength)
			}
			return nil, false
		}
		for _, a := range args {
			use(a)
		}
	case celast.ComprehensionKind:
		cx := e.AsComprehension()
		inner := make(map[string][]segment, len(vars)+2)
		for k, v := range vars {
			inner[k] = v
		}
		if p, ok := an.visit(cx.IterRange(), vars); ok && !cx.HasIterVar2() {
			an.mark(p, markLength)
			inner[cx.IterVar()] = append(slices.Clip(p), every)
		} else {
			if ok {
				an.mark(p, markFull)
			}
			inner[cx.IterVar()] = nil // shadows; not part of self
			if cx.HasIterVar2() {
				inner[cx.IterVar2()] = nil
			}
		}
		inner[cx.AccuVar()] = nil
		use(cx.AccuInit())
		for _, x := range []celast.Expr{cx.LoopCondition(), cx.LoopStep(), cx.Result()} {
			if p, ok := an.visit(x, inner); ok {
				an.mark(p, markFull)
			}
		}
	case celast.ListKind:
		for _, x := range e.AsList().Elements() {
			use(x)
		}
	case celast.MapKind:
		for _, en := range e.AsMap().Entries() {
			me := en.AsMapEntry()
			use(me.Key())
			use(me.Value())
		}
	case celast.StructKind:
		for _, en := range e.AsStruct().Fields() {
			use(en.AsStructField().Value())
		}
	}
	return nil, false
}

// write puts what p reads of v into b (false: v holds a value canonical
// cannot write).
func (p *projection) write(b *bytes.Buffer, v any) bool {
	if p.full {
		return canonical(b, v)
	}
	switch v := v.(type) {
	case map[string]any:
		b.WriteString("{")
		if p.length || p.elems != nil {
			b.WriteString(strconv.Itoa(len(v)))
			if p.elems != nil {
				// Iterating a map ranges over its keys: read it whole.
				if !canonical(b, v) {
					return false
				}
			}
		}
		for _, k := range p.presentKeys {
			x, ok := v[k]
			b.WriteString(k)
			if ok && x != nil {
				b.WriteString("+")
			} else {
				b.WriteString("-")
			}
		}
		for _, k := range p.fieldKeys {
			b.WriteString(strconv.Itoa(len(k)))
			b.WriteByte(':')
			b.WriteString(k)
			if !p.fields[k].write(b, v[k]) {
				return false
			}
		}
		b.WriteString("}")
	case []any:
		b.WriteString("[")
		b.WriteString(strconv.Itoa(len(v)))
		if p.elems != nil {
			for _, x := range v {
				b.WriteByte(',')
				if !p.elems.write(b, x) {
					return false
				}
			}
		}
		b.WriteString("]")
	case nil:
		b.WriteString("n")
	default:
		// A scalar whose fields or elements a rule reads: an error the
		// rule reports depends on it whole.
		return canonical(b, v)
	}
	return true
}

func sortedPresent(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func sortedFields(m map[string]*projection) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
