package envoy

import (
	"strings"
	"testing"

	localratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
)

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

// TestTypedAny: a message a kind builds is packed and checked against
// Envoy's validation rules like a map-built config, and packed once per
// distinct message.
func TestTypedAny(t *testing.T) {
	var c anyCache
	if _, err := c.typedAny(&localratelimitv3.LocalRateLimit{}); err == nil || !strings.Contains(err.Error(), "StatPrefix") {
		t.Errorf("a LocalRateLimit without stat_prefix: error %v, want one naming StatPrefix", err)
	}
	a, err := c.typedAny(&localratelimitv3.LocalRateLimit{StatPrefix: "p"})
	if err != nil {
		t.Fatal(err)
	}
	back := &localratelimitv3.LocalRateLimit{}
	if err := a.UnmarshalTo(back); err != nil || back.StatPrefix != "p" {
		t.Errorf("packed %v (%v), want stat_prefix p", back, err)
	}
	again, err := c.typedAny(&localratelimitv3.LocalRateLimit{StatPrefix: "p"})
	if err != nil || again != a {
		t.Errorf("an equal message packed again (%v), want the cached Any", err)
	}
}
