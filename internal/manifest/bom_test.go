package manifest

import (
	"strings"
	"testing"
)

// TestMidFileBOM: a byte order mark at the start of a line after the
// file's first (two files concatenated with their BOMs) is reported as
// such at its position, and only its document is lost; the file's own BOM
// and a U+FEFF inside a value are not findings.
func TestMidFileBOM(t *testing.T) {
	const b = "\ufeff"
	for _, c := range []struct {
		desc, data string
		line, col  int // 0: no finding
		objects    int
	}{
		{"second document", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\n" + b + "apiVersion: v1\nkind: Service\nmetadata: {name: b}\n", 5, 1, 1},
		{"indented key", "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  " + b + "namespace: x\n", 5, 3, 0},
		{"file's own", b + "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n", 0, 0, 1},
		{"inside a value", "apiVersion: v1\nkind: Service\nmetadata: {name: a, annotations: {x: \"a" + b + "b\"}}\n", 0, 0, 1},
	} {
		objs, problems := loadFile("f.yaml", []byte(c.data), Limits{}, nil)
		if len(objs) != c.objects {
			t.Errorf("%s: %d objects, want %d", c.desc, len(objs), c.objects)
		}
		if c.line == 0 {
			if len(problems) > 0 {
				t.Errorf("%s: %v", c.desc, problems)
			}
			continue
		}
		if len(problems) != 1 || problems[0].Code != LintInputUnreadable.Code || problems[0].Pos.Line != c.line || problems[0].Pos.Col != c.col ||
			!strings.Contains(problems[0].Message, "byte order mark") {
			t.Errorf("%s: %v; want GWP100 at %d:%d naming the byte order mark", c.desc, problems, c.line, c.col)
		}
	}
}
