package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCRDsValidateCustomResources: a CRD given with --crds, or among the
// inputs, validates its custom resources: a range, an enum and a CEL rule
// violation are each an error at the offending field's line with the
// schema's or the rule's message; a valid resource is clean; lint exits 1.
func TestCRDsValidateCustomResources(t *testing.T) {
	type finding struct {
		Code, Severity, Message, Field string
		Object                         struct{ Name string }
		Line                           int
	}
	want := []struct {
		field string
		line  int
		msg   string
	}{
		{"spec.replicas", 12, "should be greater than or equal to 1"},
		{"spec.tier", 13, `Unsupported value: "bronze": supported values: "gold", "silver"`},
		{"spec.minSize", 21, "minSize must not exceed maxSize"},
	}
	for _, args := range [][]string{
		{"--crds", "testdata/crds/widgets.yaml", "-f", "testdata/crds/widgets-input.yaml"},
		{"-f", "testdata/crds/widgets.yaml", "-f", "testdata/crds/widgets-input.yaml"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, stderr, code := run(t, append([]string{"lint", "-o", "json"}, args...)...)
			if code != 1 {
				t.Fatalf("exit %d, want 1; stderr %s", code, stderr)
			}
			var rep struct{ Diagnostics []finding }
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			got := map[string]finding{}
			for _, d := range rep.Diagnostics {
				if d.Object.Name == "ok" {
					t.Errorf("the valid Widget has a finding: %+v", d)
				}
				if d.Object.Name != "ok" && d.Code == "GWP110" {
					got[d.Field] = d
				}
			}
			for _, w := range want {
				d, ok := got[w.field]
				switch {
				case !ok:
					t.Errorf("no GWP110 at %s; got %+v", w.field, rep.Diagnostics)
				case d.Severity != "error" || d.Line != w.line || !strings.Contains(d.Message, w.msg):
					t.Errorf("%s: %+v, want an error at line %d with %q", w.field, d, w.line, w.msg)
				}
			}
		})
	}
}
