package policy

import (
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
	out := make([]FieldSpec, 0, len(s.Fields))
	for _, f := range s.Fields {
		if !f.Family {
			out = append(out, f)
			continue
		}
		seen := map[string]bool{}
		var keys []string
		for _, vs := range values {
			for k := range vs {
				if strings.HasPrefix(k, f.Key) && !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			m := f
			m.Key, m.Family = k, false
			out = append(out, m)
		}
	}
	return out
}
