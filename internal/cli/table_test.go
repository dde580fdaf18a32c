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
		{"beats TrafficPolicy/shop/a: weight", 20, "  ", []string{"beats", "  TrafficPolicy/", "  shop/a: weight"}},
		{"aaaaaaaaaaaaaaaaaaaaaaaa", 10, "", []string{"aaaaaaaaaa", "aaaaaaaaaa", "aaaa"}},
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
