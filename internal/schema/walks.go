package schema

import (
	"sort"

	"github.com/gwpol/gwpol/internal/manifest"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The API server's decoding steps (pruning, null pruning, defaulting,
// list rules, embedded object metadata) each walk the whole object and
// allocate a field path at every node. sNode is a version's structural
// schema annotated with what lies below each node, so that the stage
// runs each step's library function only where it has work to do — a
// node with defaults, a list with a set or map type — and skips the
// rest. The library functions stay the ones that change or judge the
// object; TestWalksAgreeWithTheLibrary holds each shortcut to the full
// call.
type defaultProp struct {
	key   string
	value any
	// given is value made ready for the typed decoding of the objects it
	// is given to (manifest.Default), shared by them all.
	given manifest.Value
}

type sNode struct {
	s          *structuralschema.Structural
	props      map[string]*sNode
	additional *sNode
	items      *sNode

	// ownDefaults: a property of the node has a default (defaultProps);
	// defaults: the node or a node below it has.
	ownDefaults, defaults bool
	defaultProps          []defaultProp
	// nullDefault: a default at or below the node holds a null (the
	// library's defaulting then treats it specially).
	nullDefault bool
	// listed: the node is a list of type set or map; lists: it or a node
	// below it is.
	listed, lists bool
	// parent is a schema with the node as its only property (under the
	// key it has), for the library's list call (listed nodes only).
	parent *structuralschema.Structural
	// embedded: a node below the root is an embedded resource; listInList:
	// a listed node is the items of an array (the walk cannot hand it to
	// the library on its own); either makes the whole-object calls run.
	embedded, listInList bool
}

func compileWalks(s *structuralschema.Structural) *sNode {
	n := &sNode{s: s}
	if s == nil {
		return n
	}
	n.listed = s.XListType != nil && (*s.XListType == "set" || *s.XListType == "map")
	n.lists = n.listed
	if len(s.Properties) > 0 {
		n.props = make(map[string]*sNode, len(s.Properties))
		for k := range s.Properties {
			p := s.Properties[k]
			c := compileWalks(&p)
			if c.listed {
				c.parent = &structuralschema.Structural{Properties: map[string]structuralschema.Structural{k: p}}
			}
			n.props[k] = c
			if p.Default.Object != nil {
				n.ownDefaults = true
				n.defaultProps = append(n.defaultProps, defaultProp{k, p.Default.Object, manifest.NewValue(p.Default.Object)})
				n.nullDefault = n.nullDefault || hasNull(p.Default.Object)
			}
			n.absorb(c)
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		n.additional = compileWalks(s.AdditionalProperties.Structural)
		if n.additional.listed {
			n.additional.parent = &structuralschema.Structural{AdditionalProperties: &structuralschema.StructuralOrBool{Structural: s.AdditionalProperties.Structural}}
		}
		n.absorb(n.additional)
	}
	if s.Items != nil {
		n.items = compileWalks(s.Items)
		n.listInList = n.listInList || n.items.listed
		n.absorb(n.items)
	}
	n.defaults = n.defaults || n.ownDefaults
	sort.Slice(n.defaultProps, func(i, j int) bool { return n.defaultProps[i].key < n.defaultProps[j].key })
	return n
}

func (n *sNode) absorb(c *sNode) {
	n.defaults = n.defaults || c.defaults
	n.lists = n.lists || c.lists
	n.embedded = n.embedded || c.embedded || c.s.XEmbeddedResource
	n.listInList = n.listInList || c.listInList
	n.nullDefault = n.nullDefault || c.nullDefault
}

// child is the node for key k of a map value (nil: the schema has none).
func (n *sNode) child(k string) *sNode {
	if c, ok := n.props[k]; ok {
		return c
	}
	return n.additional
}

// hasNull reports whether x holds a null anywhere: null pruning and
// defaulting treat nulls specially, so an object with one takes the
// library's whole-object path.
func hasNull(x any) bool {
	switch x := x.(type) {
	case nil:
		return true
	case map[string]any:
		for _, v := range x {
			if hasNull(v) {
				return true
			}
		}
	case []any:
		for _, v := range x {
			if hasNull(v) {
				return true
			}
		}
	}
	return false
}

var metaField = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// nothingToPrune reports whether pruning.Prune would leave x as it is
// (no field unknown to the schema); root: x is the resource.
func (n *sNode) nothingToPrune(x any, root bool) bool {
	s := n.s
	preserve := s != nil && s.XPreserveUnknownFields
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			if (root || (s != nil && s.XEmbeddedResource)) && metaField[k] {
				continue
			}
			c := n.child(k)
			switch {
			case c != nil:
				if !c.nothingToPrune(v, false) {
					return false
				}
			case !preserve:
				return false
			}
		}
	case []any:
		it := n.items
		if it == nil {
			it = &sNode{}
		}
		for _, v := range x {
			if !it.nothingToPrune(v, false) {
				return false
			}
		}
	}
	return true
}

// applyDefaults is defaulting.Default(x, n.s) for a value with no null
// and a schema whose defaults hold none (the library's null handling has
// nothing to do then): each absent property with a default gets a copy
// of it, at every node, walking only where a default lies below. Each
// value given is recorded in r (nil: not recorded).
func (n *sNode) applyDefaults(x any, r *givenDefaults) {
	if !n.defaults {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for _, d := range n.defaultProps {
			if _, found := x[d.key]; !found {
				x[d.key] = runtime.DeepCopyJSONValue(d.value)
				r.add(manifest.Step{Key: d.key, Index: -1}, d.given)
			}
		}
		for k, v := range x {
			if c := n.child(k); c != nil && c.defaults {
				r.push(manifest.Step{Key: k, Index: -1})
				c.applyDefaults(v, r)
				r.pop()
			}
		}
	case []any:
		if n.items != nil && n.items.defaults {
			for i, v := range x {
				r.push(manifest.Step{Index: i})
				n.items.applyDefaults(v, r)
				r.pop()
			}
		}
	}
}

// givenDefaults records the values defaulting gives an object's fields
// (manifest.Defaults), a field before the fields below it. A nil
// *givenDefaults records nothing.
type givenDefaults struct{ b manifest.DefaultsBuilder }

func (r *givenDefaults) push(s manifest.Step) {
	if r != nil {
		r.b.Push(s)
	}
}

func (r *givenDefaults) pop() {
	if r != nil {
		r.b.Pop()
	}
}

func (r *givenDefaults) add(s manifest.Step, v manifest.Value) {
	if r != nil {
		r.b.Add(s, v)
	}
}

// diff records the values after holds that before, the same value before
// the library's defaulting, does not (or holds as null): what the
// defaulting gave.
func (r *givenDefaults) diff(before, after any) {
	switch a := after.(type) {
	case map[string]any:
		b, _ := before.(map[string]any)
		keys := make([]string, 0, len(a))
		for k := range a {
			keys = append(keys, k)
		}
		sort.Strings(keys) // a field before the fields below it; siblings in one order
		for _, k := range keys {
			bv, found := b[k]
			switch {
			case !found || bv == nil && a[k] != nil:
				r.add(manifest.Step{Key: k, Index: -1}, manifest.NewValue(a[k]))
			default:
				r.push(manifest.Step{Key: k, Index: -1})
				r.diff(bv, a[k])
				r.pop()
			}
		}
	case []any:
		b, _ := before.([]any)
		for i := range min(len(a), len(b)) {
			r.push(manifest.Step{Index: i})
			r.diff(b[i], a[i])
			r.pop()
		}
	}
}

// listErrors is listtype.ValidateListSetsAndMaps(nil, n.s, x): the
// library's own call on each list of type set or map (and what is below
// it), with the path of the field that holds it.
func (n *sNode) listErrors(x map[string]any) field.ErrorList {
	var errs field.ErrorList
	var path []seg
	var walk func(n *sNode, x any)
	walk = func(n *sNode, x any) {
		if !n.lists {
			return
		}
		switch x := x.(type) {
		case map[string]any:
			for k, v := range x {
				c := n.child(k)
				if c == nil || !c.lists {
					continue
				}
				if list, isList := v.([]any); isList && c.listed {
					if c.plainListOK(list) {
						continue // nothing for the library to find
					}
					// The library's call on a parent holding only this
					// list; its path is built only for a finding.
					one := map[string]any{k: v}
					if structurallisttype.ValidateListSetsAndMaps(nil, c.parent, one) != nil {
						errs = append(errs, structurallisttype.ValidateListSetsAndMaps(toPath(path), c.parent, one)...)
					}
					continue
				}
				_, prop := n.props[k]
				path = append(path, seg{key: k, prop: prop, index: -1})
				walk(c, v)
				path = path[:len(path)-1]
			}
		case []any:
			if n.items == nil {
				return
			}
			for i, v := range x {
				path = append(path, seg{index: i})
				walk(n.items, v)
				path = path[:len(path)-1]
			}
		}
	}
	walk(n, x)
	return errs
}

// seg is one step of a field path: a property, a key of a map with
// additionalProperties, or an index (index >= 0).
type seg struct {
	key   string
	prop  bool
	index int
}

// toPath is the field path of segs, as the library writes it.
func toPath(segs []seg) *field.Path {
	var p *field.Path
	for _, s := range segs {
		switch {
		case s.index >= 0:
			p = p.Index(s.index)
		case s.prop:
			p = p.Child(s.key)
		default:
			p = p.Key(s.key)
		}
	}
	return p
}

// plainListOK reports whether the library's list validation certainly
// finds nothing in list, a list of type set or map at n: no list lies
// below its items, its elements (a set's) or keys (a map's, one key
// field) are scalars that differ, and a map's elements are objects.
// false means "maybe not": the library then decides, and says what.
func (n *sNode) plainListOK(list []any) bool {
	s := n.s
	if n.items != nil && n.items.lists {
		return false
	}
	var set bool
	switch {
	case *s.XListType == "set":
		set = true
	case *s.XListType == "map" && len(s.XListMapKeys) == 1:
	default:
		return false
	}
	if len(list) > 16 {
		return false // the comparison below is quadratic
	}
	var keys [16]any
	var present [16]bool
	for i, x := range list {
		if set {
			keys[i], present[i] = x, true
		} else {
			m, ok := x.(map[string]any)
			if !ok {
				return false // nil or not an object: the library's cases
			}
			keys[i], present[i] = m[s.XListMapKeys[0]]
		}
		switch keys[i].(type) {
		case string, int64, bool, float64:
		default:
			if present[i] {
				return false // null or compound: the library compares
			}
		}
		for j := range i {
			if present[i] == present[j] && keys[i] == keys[j] {
				return false
			}
		}
	}
	return true
}
