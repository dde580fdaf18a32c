package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
)

// loadFile parses one file's bytes the way Load wants it: never failing
// the run. A syntax error fails the document it is in, not the file: the
// file is parsed again document by document, so the others are kept.
func loadFile(file string, data []byte, lim Limits, each func(*Object)) ([]*Object, []diag.Diagnostic) {
	lim = lim.withDefaults()
	if at, ok := templateSyntax(data); ok {
		return nil, []diag.Diagnostic{{Code: LintTemplateNotRendered.Code, Severity: diag.Warning, Pos: posIn(file, data, at),
			Message: file + " looks like a Helm template (Go template syntax); it is skipped: run `helm template` first and lint its output, or --exclude it"}}
	}
	objs, err := parse(file, data, lim, each)
	if err == nil {
		return objs, nil
	}
	if !bytes.Contains(data, []byte("\n---")) || bytes.HasPrefix(data, []byte("%")) || bytes.Contains(data, []byte("\n%")) {
		return nil, fileProblems(file, nil, []error{err})
	}
	var errs []error
	for _, c := range documents(data) {
		got, err := parseChunk(file, c, lim, each)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		objs = append(objs, got...)
	}
	return objs, fileProblems(file, objs, errs)
}

// fileProblems turns a file's errors into findings. A file none of whose
// documents is a Kubernetes object, and that fails only for that reason,
// is not a manifest at all: one info note, and it is skipped.
func fileProblems(file string, objs []*Object, errs []error) []diag.Diagnostic {
	if len(objs) == 0 && len(errs) > 0 && allNotObjects(errs) {
		return []diag.Diagnostic{{Code: LintNotAManifest.Code, Severity: diag.Info, Pos: diag.Position{File: file, Line: 1, Col: 1},
			Message: file + " holds no Kubernetes object (its documents have no kind); skipped"}}
	}
	var out []diag.Diagnostic
	for _, err := range errs {
		out = append(out, Problem(file, err))
	}
	return out
}

func allNotObjects(errs []error) bool {
	for _, err := range errs {
		if !errors.Is(err, errNotObject) {
			return false
		}
	}
	return true
}

// errNotObject marks documents that are no Kubernetes object at all (no
// kind, or not a mapping), as opposed to objects with a broken field.
var errNotObject = errors.New("not a Kubernetes object")

// Problem is an input error as a finding (LintInputUnreadable), at the
// position the error names, else at the file.
func Problem(file string, err error) diag.Diagnostic {
	d := diag.Diagnostic{Code: LintInputUnreadable.Code, Severity: diag.Error, Pos: diag.Position{File: file}, Message: err.Error()}
	var pe *PosError
	if errors.As(err, &pe) {
		d.Pos, d.Message, d.Field = pe.Pos, pe.Msg, pe.Field
		return d
	}
	if m := posPrefix.FindStringSubmatch(d.Message); m != nil && m[1] == file {
		var line, col int
		fmt.Sscanf(m[2]+" "+m[3], "%d %d", &line, &col)
		d.Pos, d.Message = diag.Position{File: file, Line: line, Col: col}, m[4]
	} else {
		d.Message = strings.TrimPrefix(d.Message, file+": ")
	}
	return d
}

var posPrefix = regexp.MustCompile(`^(.*):(\d+):(\d+): (.*)$`)

// documents cuts a stream at every "---" line, each piece keeping its
// place in the file, for parsing one by one.
func documents(data []byte) []chunk {
	var out []chunk
	start, line := 0, 0
	for from := 0; ; {
		cut := nextSeparator(data, from)
		if cut < 0 {
			break
		}
		out = append(out, chunk{data: data[start:cut], firstLine: line})
		line += bytes.Count(data[start:cut], []byte("\n"))
		start, from = cut, cut+3
	}
	return append(out, chunk{data: data[start:], firstLine: line})
}

// helmSyntax is Go template syntax as charts use it: actions on chart
// values and helpers, and whitespace-trimming delimiters. Template
// functions inside policy values (WSO2's {{ env "X" }}) do not match.
var helmSyntax = regexp.MustCompile(`\{\{-|-\}\}|\{\{\s*(?:\.Values|\.Release|\.Chart|\.Capabilities|\.Files|\$\.|include\s|template\s|define\s|if\s|else|range\s|with\s|end\b|toYaml|tpl\s)`)

// templateSyntax finds Go template syntax of a chart in data.
func templateSyntax(data []byte) (int, bool) {
	if !bytes.Contains(data, []byte("{{")) {
		return 0, false
	}
	loc := helmSyntax.FindIndex(data)
	if loc == nil {
		return 0, false
	}
	return loc[0], true
}

func posIn(file string, data []byte, at int) diag.Position {
	line := bytes.Count(data[:at], []byte("\n")) + 1
	col := at - bytes.LastIndexByte(data[:at], '\n')
	return diag.Position{File: file, Line: line, Col: col}
}

// Excluder matches paths against --exclude globs. A glob matches the
// whole path or any trailing part of it that starts at a directory
// boundary; "*" stays within one path segment and "**" crosses segments
// (charts/**, **/templates/*, Chart.yaml).
type Excluder []*regexp.Regexp

// NewExcluder compiles the globs.
func NewExcluder(globs []string) Excluder {
	var e Excluder
	for _, g := range globs {
		e = append(e, globRegexp(g))
	}
	return e
}

// Excluded reports whether p matches a glob.
func (e Excluder) Excluded(p string) bool {
	if len(e) == 0 || p == "-" {
		return false
	}
	p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
	for rest := p; ; {
		for _, re := range e {
			if re.MatchString(rest) {
				return true
			}
		}
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return false
		}
		rest = rest[i+1:]
	}
}

func globRegexp(g string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; {
		case c == '*' && i+1 < len(g) && g[i+1] == '*':
			b.WriteString(".*")
			i++
			if i+1 < len(g) && g[i+1] == '/' {
				i++
				b.WriteString("/?")
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}
