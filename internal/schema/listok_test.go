package schema

import (
	"testing"

	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
)

// TestPlainListOKAgreesWithTheLibrary: wherever plainListOK says the
// library's list validation finds nothing in a list of type set or map,
// the library finds nothing — on every such list of every CRD version
// the catalog knows (kgateway's, testdata's and the dependency's), with
// lists made to hit each case (distinct and equal scalars, numbers of
// both types, missing and null keys, non-objects, compound values).
func TestPlainListOKAgreesWithTheLibrary(t *testing.T) {
	cat := fastCatalog(t)
	var yes, no, lists int
	for gk := range cat.Kinds() {
		d := cat.lookup(gk)
		if d == nil || d.load() != nil {
			continue
		}
		for _, name := range d.served() {
			v := d.versions[name]
			if v.compile() != nil {
				continue
			}
			var visit func(n *sNode, where string)
			visit = func(n *sNode, where string) {
				if n == nil || !n.lists {
					return
				}
				if n.listed && n.parent != nil {
					lists++
					for i, list := range listSamples(n) {
						var key string
						for k := range n.parent.Properties {
							key = k
						}
						one := map[string]any{key: list}
						if n.parent.AdditionalProperties != nil {
							key = "k"
							one = map[string]any{key: list}
						}
						errs := structurallisttype.ValidateListSetsAndMaps(nil, n.parent, one)
						if n.plainListOK(list) {
							yes++
							if len(errs) > 0 {
								t.Errorf("%s %s %s sample %d %v: plainListOK says nothing to find, the library finds %v", gk.Kind, name, where, i, list, errs)
							}
						} else {
							no++
						}
					}
				}
				for k, c := range n.props {
					visit(c, where+"."+k)
				}
				visit(n.additional, where+".*")
				visit(n.items, where+"[]")
			}
			visit(v.walks, "")
		}
	}
	t.Logf("%d lists, %d samples plainListOK passed, %d left to the library", lists, yes, no)
	if yes == 0 || no == 0 {
		t.Errorf("the samples no longer exercise both answers (%d passed, %d left to the library)", yes, no)
	}
}

// listSamples are lists to try at a listed node.
func listSamples(n *sNode) [][]any {
	scalars := [][]any{
		{}, {"a"}, {"a", "b"}, {"a", "a"}, {int64(1), float64(1)}, {int64(1), int64(1)},
		{true, false}, {true, true}, {nil}, {nil, nil}, {"a", nil},
	}
	if *n.s.XListType == "set" {
		return append(scalars, []any{map[string]any{"x": "a"}, map[string]any{"x": "a"}}, []any{[]any{"a"}, []any{"b"}})
	}
	var out [][]any
	keys := n.s.XListMapKeys
	if len(keys) == 0 {
		return nil
	}
	k := keys[0]
	for _, s := range scalars {
		var l []any
		for _, x := range s {
			l = append(l, map[string]any{k: x})
		}
		out = append(out, l)
	}
	out = append(out,
		[]any{map[string]any{}, map[string]any{}},
		[]any{map[string]any{k: "a"}, map[string]any{}},
		[]any{map[string]any{k: "a"}, "b"},
		[]any{nil, map[string]any{k: "a"}},
		[]any{map[string]any{k: map[string]any{"x": "a"}}, map[string]any{k: map[string]any{"x": "a"}}},
		[]any{"x"},
	)
	return out
}
