package cli

import (
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwpol/gwpol/internal/inert"
)

// listWidth is the terminal width at and below which a two-column table
// cannot show both columns readably: rows become a list instead.
const listWidth = 60

// fieldRow is one row of a two-column table: a key and stacked details.
type fieldRow struct {
	Key   string
	Lines []string
}

// writeRows prints rows under two headers so they fit width columns:
// width 0 (not a terminal) prints every value whole on its line; a
// terminal wider than listWidth gets a table whose second column wraps;
// a narrower one a list, key then indented details. Nothing is ever cut.
func writeRows(w io.Writer, headers [2]string, rows []fieldRow, color bool, width int) {
	rows = inertRows(rows)
	keyWidth := ansi.StringWidth(headers[0])
	for _, r := range rows {
		keyWidth = max(keyWidth, ansi.StringWidth(r.Key))
	}
	// A table row is │key│details│: three border columns.
	detailWidth := width - keyWidth - 3
	if width > 0 && (width <= listWidth || detailWidth < listWidth/2) {
		writeList(w, rows, width)
		return
	}
	tb := table.New().Border(lipgloss.NormalBorder()).Headers(headers[0], headers[1])
	if !color {
		tb = tb.BorderStyle(lipgloss.NewStyle())
	}
	for _, r := range rows {
		lines := r.Lines
		if width > 0 {
			lines = wrapLines(lines, detailWidth, "  ")
		}
		tb = tb.Row(r.Key, strings.Join(lines, "\n"))
	}
	io.WriteString(w, tb.Render()+"\n")
}

// writeList is the narrow layout: "  key" then its details indented,
// continuation lines indented further.
func writeList(w io.Writer, rows []fieldRow, width int) {
	rows = inertRows(rows)
	var b strings.Builder
	for _, r := range rows {
		for _, l := range wrapLines([]string{r.Key}, width-2, "  ") {
			b.WriteString("  " + l + "\n")
		}
		for _, l := range wrapLines(r.Lines, width-4, "  ") {
			b.WriteString("    " + l + "\n")
		}
	}
	io.WriteString(w, b.String())
}

// wrapLines wraps each line to limit display columns at spaces: object
// names, policy IDs and field paths (hyphens, dots and slashes but no
// spaces) are never split as long as they fit a line; only a word longer
// than a whole line (a JSON value) is broken, after its commas where it
// can. Continuation lines start with indent (counted in the limit) after
// the line's own leading spaces.
func wrapLines(lines []string, limit int, indent string) []string {
	var out []string
	for _, l := range lines {
		out = append(out, wrapWords(l, max(limit, 8), indent)...)
	}
	return out
}

// wrapWords greedily packs the words of one line into lines of at most
// limit display columns (ANSI escapes take none).
func wrapWords(l string, limit int, indent string) []string {
	body := strings.TrimLeft(l, " ")
	lead := l[:len(l)-len(body)]
	if ansi.StringWidth(l) <= limit || body == "" {
		return []string{l}
	}
	var out []string
	cur, curW := lead, ansi.StringWidth(lead)
	empty := true // cur holds no word yet
	flush := func() {
		out = append(out, cur)
		cur, curW, empty = lead+indent, ansi.StringWidth(lead+indent), true
	}
	for _, word := range strings.Split(body, " ") {
		if word == "" {
			continue
		}
		w := ansi.StringWidth(word)
		if !empty && curW+1+w > limit {
			flush()
		}
		if avail := limit - curW; empty && w > avail {
			// Longer than a whole line: the one case a word is broken.
			for _, chunk := range strings.Split(ansi.Wrap(word, max(avail, 1), ","), "\n") {
				if !empty {
					flush()
				}
				cur, curW, empty = cur+chunk, curW+ansi.StringWidth(chunk), false
			}
			continue
		}
		if !empty {
			cur, curW = cur+" ", curW+1
		}
		cur, curW, empty = cur+word, curW+w, false
	}
	return append(out, cur)
}

// fitLine wraps one line of prose to a terminal's width (0: as it is).
func fitLine(s string, width int, indent string) string {
	if width <= 0 {
		return s
	}
	return strings.Join(wrapLines([]string{s}, width, indent), "\n")
}

// inertRows is rows with every key and line escaped (inert.String): the
// one place table and list output takes strings from the input. Escaping
// twice changes nothing, so a caller may have escaped already.
func inertRows(rows []fieldRow) []fieldRow {
	out := make([]fieldRow, len(rows))
	for i, r := range rows {
		out[i] = fieldRow{Key: inert.String(r.Key), Lines: make([]string, len(r.Lines))}
		for j, l := range r.Lines {
			out[i].Lines[j] = inert.String(l)
		}
	}
	return out
}
