package policy

import (
	"iter"
	"slices"
	"strings"
)

// FieldsFor are the kind's fields with every Family expanded to the keys
// of that family the given values hold (sorted), in the kind's order. A
// kind without families gets its Fields as they are.
func (s KindSpec) FieldsFor(values ...map[string]any) []FieldSpec {
	if !slices.ContainsFunc(s.Fields, func(f FieldSpec) bool { return f.Family }) {
		return s.Fields
	}
	return slices.Collect(s.EachFieldFor(values...))
}

// EachFieldFor yields FieldsFor's fields one by one, without making their
// list: views that combine fields per rule ask for them on every rule.
func (s KindSpec) EachFieldFor(values ...map[string]any) iter.Seq[FieldSpec] {
	return func(yield func(FieldSpec) bool) {
		for _, f := range s.Fields {
			if !f.Family {
				if !yield(f) {
					return
				}
				continue
			}
			var keys []string
			for _, vs := range values {
				for k := range vs {
					if strings.HasPrefix(k, f.Key) && !slices.Contains(keys, k) {
						keys = append(keys, k)
					}
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				m := f
				m.Key, m.Family = k, false
				if !yield(m) {
					return
				}
			}
		}
	}
}
