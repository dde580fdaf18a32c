package linttest

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	const in = `a: 1 # want "GWP201"
b: 2 # want GWP301 "is overridden .* at" "GWP302"
c: 3
d: 4 #want ` + "`GWP401`" + ` "not an \"int32\""
`
	ws, err := Parse("f.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range ws {
		got = append(got, w.String())
	}
	want := []string{`f.yaml:1 GWP201`, `f.yaml:2 GWP301 "is overridden .* at"`, `f.yaml:2 GWP302`, `f.yaml:4 GWP401 "not an \"int32\""`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Parse:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ in, err string }{
		{`x: 1 # want`, "f.yaml:1:"},
		{`x: 1 # want "a regexp"`, `message regexp "a regexp" follows no code`},
		{`x: 1 # want GWP1`, `"GWP1" is not a code`},
		{`x: 1 # want "GWP101" "(" `, "message regexp: error parsing regexp"},
		{`x: 1 # want "GWP101" "x" "y"`, `message regexp "y" follows no code`},
		{`x: 1 # want "GWP101`, "unterminated string"},
	} {
		_, err := Parse("f.yaml", []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tt.in, err, tt.err)
		}
	}
}

// TestCheck: each want takes one finding of its code at its line whose
// message its regexp matches; what is left over on either side fails.
func TestCheck(t *testing.T) {
	ws, err := Parse("f.yaml", []byte("a: 1 # want GWP301 GWP301 \"only b\"\nb: 2 # want GWP102\nc: 3 # want GWP101 \"nowhere\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := []Finding{
		{File: "./f.yaml", Line: 1, Code: "GWP301", Message: "only b here"},
		{File: "f.yaml", Line: 1, Code: "GWP301", Message: "something else"},
		{File: "f.yaml", Line: 2, Code: "GWP102", Message: "x"},
		{File: "f.yaml", Line: 2, Code: "GWP102", Message: "twice"},
		{File: "f.yaml", Line: 3, Code: "GWP101", Message: "elsewhere"},
	}
	missing, unexpected := Check(ws, got)
	want := "missing: f.yaml:3 GWP101 \"nowhere\"\nunexpected: f.yaml:2 GWP102: twice\nunexpected: f.yaml:3 GWP101: elsewhere\n"
	if r := Report(missing, unexpected); r != want {
		t.Errorf("Check:\n%s\nwant:\n%s", r, want)
	}
	if r := Report(Check(ws[:2], got[:2])); r != "" {
		t.Errorf("a plain want took the finding only the regexp fits:\n%s", r)
	}
}
