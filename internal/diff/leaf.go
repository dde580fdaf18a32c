package diff

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Leaf is one changed leaf of a field's value: its full path, the old and
// new JSON values (absent on the side that lacks it), and for multi-line
// strings a unified diff of their lines.
type Leaf struct {
	Path    string          `json:"path"`
	Old     json.RawMessage `json:"old,omitempty"`
	New     json.RawMessage `json:"new,omitempty"`
	Unified string          `json:"unified,omitempty"`
}

// leaves compares two JSON values under path and returns the changed
// leaves, objects by sorted key and lists by index.
func leaves(path string, old, new json.RawMessage) []Leaf {
	var a, b any
	if json.Unmarshal(old, &a) != nil || json.Unmarshal(new, &b) != nil {
		if string(old) == string(new) {
			return nil
		}
		return []Leaf{{Path: path, Old: old, New: new}}
	}
	var out []Leaf
	walk(path, a, b, true, true, &out)
	return out
}

// walk appends the differences between a and b; hasA/hasB say whether
// each side has a value at all (a JSON null is a value).
func walk(path string, a, b any, hasA, hasB bool, out *[]Leaf) {
	am, aObj := a.(map[string]any)
	bm, bObj := b.(map[string]any)
	if aObj && bObj {
		keys := make([]string, 0, len(am)+len(bm))
		for k := range am {
			keys = append(keys, k)
		}
		for k := range bm {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			av, okA := am[k]
			bv, okB := bm[k]
			walk(path+"."+k, av, bv, okA, okB, out)
		}
		return
	}
	al, aList := a.([]any)
	bl, bList := b.([]any)
	if aList && bList {
		for i := range max(len(al), len(bl)) {
			var av, bv any
			if i < len(al) {
				av = al[i]
			}
			if i < len(bl) {
				bv = bl[i]
			}
			walk(fmt.Sprintf("%s[%d]", path, i), av, bv, i < len(al), i < len(bl), out)
		}
		return
	}
	l := Leaf{Path: path}
	if hasA {
		l.Old = encode(a)
	}
	if hasB {
		l.New = encode(b)
	}
	if hasA && hasB && string(l.Old) == string(l.New) {
		return
	}
	as, aStr := a.(string)
	bs, bStr := b.(string)
	if aStr && bStr && (strings.Contains(as, "\n") || strings.Contains(bs, "\n")) {
		l.Unified = unified(as, bs)
	}
	*out = append(*out, l)
}

func encode(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(fmt.Sprintf("%q", err.Error()))
	}
	return b
}

// context is the number of unchanged lines a unified diff keeps around
// each change.
const context = 3

// unified is a unified diff of two texts' lines ("-" old, "+" new, " "
// unchanged), with @@ headers for each hunk, from a longest common
// subsequence: values are small, so the quadratic table is cheap.
func unified(old, new string) string {
	a, b := strings.Split(old, "\n"), strings.Split(new, "\n")
	ops := editScript(a, b)
	var sb strings.Builder
	for start := 0; start < len(ops); {
		// Find the next change and the hunk around it.
		first := slices.IndexFunc(ops[start:], func(o op) bool { return o.kind != ' ' })
		if first < 0 {
			break
		}
		first += start
		lo, hi := max(first-context, start), first
		for hi < len(ops) {
			next := slices.IndexFunc(ops[hi:], func(o op) bool { return o.kind != ' ' })
			if next < 0 || next > 2*context {
				break
			}
			hi += next + 1
		}
		hi = min(hi+context, len(ops))
		h := ops[lo:hi]
		fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", h[0].oldLine, count(h, '-'), h[0].newLine, count(h, '+'))
		for _, o := range h {
			sb.WriteString(string(o.kind) + o.text + "\n")
		}
		start = hi
	}
	return sb.String()
}

type op struct {
	kind             byte // ' ', '-' or '+'
	text             string
	oldLine, newLine int // 1-based positions where this op sits
}

// count is the hunk length on one side: unchanged lines plus the side's own.
func count(h []op, side byte) int {
	n := 0
	for _, o := range h {
		if o.kind == ' ' || o.kind == side {
			n++
		}
	}
	return n
}

func editScript(a, b []string) []op {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i], i + 1, j + 1})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i], i + 1, j + 1})
			i++
		default:
			ops = append(ops, op{'+', b[j], i + 1, j + 1})
			j++
		}
	}
	return ops
}
