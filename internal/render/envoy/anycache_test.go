package envoy

import "testing"

func TestAppendKey(t *testing.T) {
	key := func(v any) string {
		b, ok := appendKey(nil, v)
		if !ok {
			return "unsupported"
		}
		return string(b)
	}
	a := map[string]any{"@type": "t", "x": []any{1.5, "s", true, nil, map[string]any{"b": 1, "a": int64(2)}}}
	b := map[string]any{"x": []any{1.5, "s", true, nil, map[string]any{"a": int64(2), "b": 1}}, "@type": "t"}
	if key(a) != key(b) {
		t.Errorf("equal configs, different keys:\n%s\n%s", key(a), key(b))
	}
	distinct := []any{
		map[string]any{"a": "1"}, map[string]any{"a": 1}, map[string]any{"a": 1.0}, map[string]any{"a": true},
		map[string]any{"a": nil}, map[string]any{"a": []any{}}, map[string]any{"a": map[string]any{}},
		map[string]any{"a,": "b"}, map[string]any{"a": "b,"}, []any{"a", "b"}, []any{"a,b"},
	}
	seen := map[string]int{}
	for i, v := range distinct {
		k := key(v)
		if j, dup := seen[k]; dup {
			t.Errorf("values %d and %d share key %s", j, i, k)
		}
		seen[k] = i
	}
	if got := key(map[string]any{"a": []string{"x"}}); got != "unsupported" {
		t.Errorf("a []string keyed as %s; it must fall back to JSON", got)
	}
}
