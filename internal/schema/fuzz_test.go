package schema

import (
	"bytes"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// FuzzProjection reads arbitrary CEL rule text (a CRD in the input or
// --crds carries it) the way the memo does: reading the rule must not
// panic, and a projection must write any unstructured value.
func FuzzProjection(f *testing.F) {
	for _, s := range []string{
		"self.all(l1, !has(l1.name) || self.exists_one(l2, has(l2.name) && l1.name == l2.name))",
		"(self.size() > 0 ? self[0].matches.size() : 0) <= 8",
		"self.?x.orValue(1) == 1 && self.map(k, k).size() > 0",
		"{'a': self.b}.a == [self.c][0] && self.d.startsWith('/')",
		"self.all(k, v, v > 0)",
		"self.((",
	} {
		f.Add(s)
	}
	values := []any{
		nil, "s", int64(1), 1.5, true,
		[]any{map[string]any{"name": "a", "matches": []any{"x"}}, nil, "y"},
		map[string]any{"b": int64(1), "c": []any{int64(2)}, "d": "/p", "x": map[string]any{}},
	}
	f.Fuzz(func(t *testing.T, rule string) {
		s := &structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}}
		s.XValidations = apiextensionsv1.ValidationRules{{Rule: rule, MessageExpression: rule}}
		p := projectionOf(s)
		if p == nil {
			return
		}
		for _, v := range values {
			var b bytes.Buffer
			p.write(&b, v)
		}
	})
}
