package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestExplainFitsTerminal renders one explain, values included, as a
// terminal of 40, 80 and 200 columns would get it: no line is wider than
// the terminal, no value is cut, and 40 columns is a list.
func TestExplainFitsTerminal(t *testing.T) {
	goldens.Start(t)
	for _, width := range []int{40, 80, 200} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			ios, out, errOut := Test("", true)
			ios.NoColor, ios.Width = true, width
			root := NewRootCmd(ios)
			root.SetArgs([]string{"explain", "httproute/shop/orders/create", "-f", filepath.Join("..", "..", "testdata", "examples"), "--show-values"})
			if err := root.Execute(); err != nil {
				t.Fatalf("%v: %s", err, errOut)
			}
			got := out.String()
			for _, l := range strings.Split(got, "\n") {
				if w := ansi.StringWidth(l); w > width {
					t.Errorf("line of %d columns at width %d: %q", w, width, l)
				}
			}
			if strings.Contains(got, "…") {
				t.Errorf("a value was cut:\n%s", got)
			}
			if isTable := strings.Contains(got, "│"); isTable != (width > listWidth) {
				t.Errorf("width %d: table = %v, want %v", width, isTable, width > listWidth)
			}
			golden(t, fmt.Sprintf("explain-width-%d.txt", width), got)
		})
	}
}

func TestWrapLines(t *testing.T) {
	tests := []struct {
		in     string
		limit  int
		indent string
		want   []string
	}{
		{"short", 20, "  ", []string{"short"}},
		// A name that fits a line is never split, at slashes or hyphens.
		{"beats TrafficPolicy/shop/a: weight", 24, "  ", []string{"beats", "  TrafficPolicy/shop/a:", "  weight"}},
		{"owner gateway.kgateway.dev/TrafficPolicy/infra/edge-defaults-v2 wins", 64, "  ", []string{"owner gateway.kgateway.dev/TrafficPolicy/infra/edge-defaults-v2", "  wins"}},
		{"  indented words wrap under it", 16, "  ", []string{"  indented words", "    wrap under", "    it"}},
		// Only a word longer than a whole line is broken.
		{"aaaaaaaaaaaaaaaaaaaaaaaa", 10, "", []string{"aaaaaaaaaa", "aaaaaaaaaa", "aaaa"}},
		{`value: {"a":1,"bb":2,"ccc":3}`, 12, "  ", []string{"value:", `  {"a":1,`, `  "bb":2,`, `  "ccc":3}`}},
	}
	for _, tt := range tests {
		got := wrapLines([]string{tt.in}, tt.limit, tt.indent)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("wrapLines(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
		for _, l := range got {
			if ansi.StringWidth(l) > tt.limit {
				t.Errorf("wrapLines(%q, %d): line %q too wide", tt.in, tt.limit, l)
			}
		}
	}
}

// TestExplainColouredTitleNotPadded: a wrapped, coloured title is styled
// line by line, so its short lines carry no padding.
func TestExplainColouredTitleNotPadded(t *testing.T) {
	ios, out, errOut := Test("", true)
	ios.Width = 50
	root := NewRootCmd(ios)
	root.SetArgs([]string{"explain", "httproute/shop/orders/create", "-f", filepath.Join("..", "..", "testdata", "examples"), "--field", "retry"})
	if err := root.Execute(); err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if plain := ansi.Strip(l); plain != strings.TrimRight(plain, " ") {
			t.Errorf("padded line %q", l)
		}
	}
}

// TestLintFitsTerminal: lint's text report on an 80-column terminal keeps
// every line within 80 columns, puts a long message under its position,
// indented, and never splits a word (an object name, a policy ID): the
// message's words are the wrapped lines' words, in order. Piped (width 0)
// each finding stays one line.
func TestLintFitsTerminal(t *testing.T) {
	lintText := func(width int) string {
		ios, out, errOut := Test("", width > 0)
		ios.NoColor, ios.Width = true, width
		root := NewRootCmd(ios)
		root.SetArgs([]string{"lint", "-f", filepath.Join("..", "..", "testdata", "examples"), "--fail-on", "none"})
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %s", err, errOut)
		}
		return out.String()
	}
	piped := lintText(0)
	wrapped := lintText(80)
	var findings int
	for _, l := range strings.Split(wrapped, "\n") {
		if w := ansi.StringWidth(l); w > 80 && strings.Contains(strings.TrimSpace(l), " ") {
			t.Errorf("line of %d columns at width 80: %q", w, l)
		}
		if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "    ") {
			findings++
		}
	}
	if want := strings.Count(piped, "\n  "); findings != want {
		t.Errorf("%d findings on the terminal, %d piped", findings, want)
	}
	// Re-joined, the terminal's words are the piped report's words.
	if a, b := strings.Fields(piped), strings.Fields(wrapped); strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("wrapping changed the words of the report")
	}
	if !strings.Contains(wrapped, "\n    ") {
		t.Errorf("no message was put under its position at 80 columns:\n%s", wrapped)
	}
}
