package diff

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLeaves(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []Leaf
	}{
		{"nested scalar", `{"tokenBucket":{"maxTokens":100,"fillInterval":"1s"}}`, `{"tokenBucket":{"maxTokens":100,"fillInterval":"2s"}}`,
			[]Leaf{{Path: "f.tokenBucket.fillInterval", Old: json.RawMessage(`"1s"`), New: json.RawMessage(`"2s"`)}}},
		{"key added and removed", `{"a":1}`, `{"b":2}`,
			[]Leaf{{Path: "f.a", Old: json.RawMessage(`1`)}, {Path: "f.b", New: json.RawMessage(`2`)}}},
		{"list grows", `[1]`, `[1,2]`, []Leaf{{Path: "f[1]", New: json.RawMessage(`2`)}}},
		{"type changes", `{"a":1}`, `[1]`, []Leaf{{Path: "f", Old: json.RawMessage(`{"a":1}`), New: json.RawMessage(`[1]`)}}},
		{"equal", `{"a":[1,{"b":null}]}`, `{"a":[1,{"b":null}]}`, nil},
	}
	for _, tt := range tests {
		got := leaves("f", json.RawMessage(tt.old), json.RawMessage(tt.new))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestUnified: changes further apart than twice the context are separate
// hunks, as diff -u makes them; nearer ones share one.
func TestUnified(t *testing.T) {
	lines := func(n int, edit map[int]string) string {
		var out []string
		for i := 1; i <= n; i++ {
			s := fmt.Sprint(i)
			if e, ok := edit[i]; ok {
				s = e
			}
			if s != "" {
				out = append(out, s)
			}
		}
		return strings.Join(out, "\n")
	}
	tests := []struct {
		name     string
		old, new string
		want     string
	}{
		{"two hunks", lines(20, nil), lines(20, map[int]string{2: "two", 18: ""}),
			"@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -15,6 +15,5 @@\n 15\n 16\n 17\n-18\n 19\n 20\n"},
		{"one hunk", lines(10, nil), lines(10, map[int]string{3: "three", 8: "eight"}),
			"@@ -1,10 +1,10 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n 7\n-8\n+eight\n 9\n 10\n"},
	}
	for _, tt := range tests {
		if got := unified(tt.old, tt.new); got != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}
