// Package linttest checks lint fixtures the way golang.org/x/tools'
// analysistest checks `// want` comments: a fixture announces each finding
// it must produce with a `# want` comment on the offending line, and a run
// passes when every announced finding is made and nothing else is.
//
// A want comment lists one or more codes, bare or Go-quoted, each
// optionally followed by a Go-quoted regular expression its message must
// match (anywhere in it):
//
//	name: x        # want GWP201
//	weight: high   # want GWP401 "not an int32"
//	policy: a      # want GWP301 "is overridden .* at" GWP302
//
// Every lint fixture folder (testdata/lint, testdata/wso2, testdata/haptic)
// is read through this package. It is no stage of the pipeline: lint's
// tests import it, and it imports nothing of gwpol's but diag.
package linttest

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
)

// Want is one finding a fixture announces.
type Want struct {
	File string // as given to Read, cleaned
	Line int
	Code string
	// Message, when not nil, must match the finding's message.
	Message *regexp.Regexp
}

// String is FILE:LINE CODE ["REGEXP"].
func (w Want) String() string {
	s := fmt.Sprintf("%s:%d %s", w.File, w.Line, w.Code)
	if w.Message != nil {
		s += " " + strconv.Quote(w.Message.String())
	}
	return s
}

// Finding is one finding a run made, in the terms wants are checked in.
type Finding struct {
	File    string
	Line    int
	Code    string
	Message string
}

// String is FILE:LINE CODE: MESSAGE.
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d %s: %s", f.File, f.Line, f.Code, f.Message)
}

// Findings converts diagnostics (their file paths cleaned).
func Findings(ds []diag.Diagnostic) []Finding {
	out := make([]Finding, 0, len(ds))
	for _, d := range ds {
		out = append(out, Finding{File: filepath.Clean(d.Pos.File), Line: d.Pos.Line, Code: d.Code, Message: d.Message})
	}
	return out
}

var (
	wantComment = regexp.MustCompile(`#\s*want\b(.*)$`)
	code        = regexp.MustCompile(`^GWP[0-9]{3}$`)
)

// Read reads the want comments of files.
func Read(files ...string) ([]Want, error) {
	var out []Want
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		ws, err := Parse(filepath.Clean(f), data)
		if err != nil {
			return nil, err
		}
		out = append(out, ws...)
	}
	return out, nil
}

// Parse reads the want comments of one file's content; file names the
// wants. A malformed comment is an error naming FILE:LINE:COL.
func Parse(file string, data []byte) ([]Want, error) {
	var out []Want
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for line := 1; sc.Scan(); line++ {
		m := wantComment.FindStringSubmatchIndex(sc.Text())
		if m == nil {
			continue
		}
		ws, err := parseList(sc.Text()[m[2]:m[3]])
		if err != nil {
			return nil, fmt.Errorf("%s:%d:%d: want comment: %v", file, line, m[2]+1, err)
		}
		for i := range ws {
			ws[i].File, ws[i].Line = file, line
		}
		out = append(out, ws...)
	}
	return out, sc.Err()
}

// parseList reads `CODE ["REGEXP"] …`, each code bare or quoted.
func parseList(s string) ([]Want, error) {
	var out []Want
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		tok := s
		quoted := s[0] == '"' || s[0] == '`'
		if quoted {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("unterminated string at %q", s)
			}
			tok, _ = strconv.Unquote(q)
			s = s[len(q):]
		} else {
			tok, s, _ = strings.Cut(s, " ")
		}
		switch {
		case code.MatchString(tok):
			out = append(out, Want{Code: tok})
		case !quoted:
			return nil, fmt.Errorf("%q is not a code (GWPnnn) or a quoted message regexp", tok)
		case len(out) == 0 || out[len(out)-1].Message != nil:
			return nil, fmt.Errorf("message regexp %q follows no code", tok)
		default:
			re, err := regexp.Compile(tok)
			if err != nil {
				return nil, fmt.Errorf("message regexp: %v", err)
			}
			out[len(out)-1].Message = re
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no code")
	}
	return out, nil
}

// Check compares a run's findings with the wants, each want met by one
// finding of its code at its line whose message it matches. It returns
// the wants no finding met and the findings no want announced, each
// sorted; both empty means the run passes.
func Check(wants []Want, got []Finding) (missing []Want, unexpected []Finding) {
	type at struct {
		file string
		line int
		code string
	}
	pending := map[at][]Finding{}
	for _, f := range got {
		k := at{filepath.Clean(f.File), f.Line, f.Code}
		pending[k] = append(pending[k], f)
	}
	// Wants with a message regexp choose first, so a plain want on the
	// same line does not take the finding only the regexp fits.
	ordered := slices.Clone(wants)
	slices.SortStableFunc(ordered, func(a, b Want) int {
		return cmp.Compare(boolInt(a.Message == nil), boolInt(b.Message == nil))
	})
	for _, w := range ordered {
		k := at{filepath.Clean(w.File), w.Line, w.Code}
		i := slices.IndexFunc(pending[k], func(f Finding) bool { return w.Message == nil || w.Message.MatchString(f.Message) })
		if i < 0 {
			missing = append(missing, w)
			continue
		}
		pending[k] = slices.Delete(pending[k], i, i+1)
	}
	for _, fs := range pending {
		unexpected = append(unexpected, fs...)
	}
	slices.SortFunc(missing, func(a, b Want) int { return strings.Compare(a.String(), b.String()) })
	slices.SortFunc(unexpected, func(a, b Finding) int { return strings.Compare(a.String(), b.String()) })
	return missing, unexpected
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Report formats Check's result for a test failure ("" when it passes).
func Report(missing []Want, unexpected []Finding) string {
	var b strings.Builder
	for _, w := range missing {
		fmt.Fprintf(&b, "missing: %s\n", w)
	}
	for _, f := range unexpected {
		fmt.Fprintf(&b, "unexpected: %s\n", f)
	}
	return b.String()
}

// Codes are the codes the wants name, each once, sorted.
func Codes(wants []Want) []string {
	var out []string
	for _, w := range wants {
		out = append(out, w.Code)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
