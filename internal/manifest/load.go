package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/parallel"
	yaml "go.yaml.in/yaml/v3"
)

// Limits bound what one input may cost, so hostile or broken input fails
// fast instead of hanging or exhausting memory.
type Limits struct {
	MaxFileBytes  int64 // per file or stdin; 0 means DefaultMaxFileBytes
	MaxDepth      int   // nesting of mappings and sequences; 0 means DefaultMaxDepth
	MaxAliasNodes int   // nodes reachable through aliases per document; 0 means DefaultMaxAliasNodes
}

// Defaults for Limits.
const (
	DefaultMaxFileBytes  = 64 << 20
	DefaultMaxDepth      = 64
	DefaultMaxAliasNodes = 100_000
)

func (l Limits) withDefaults() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxAliasNodes <= 0 {
		l.MaxAliasNodes = DefaultMaxAliasNodes
	}
	return l
}

// Options control Load.
type Options struct {
	Limits Limits
	Stdin  io.Reader // read for the path "-"
	// Exclude are globs of paths not to read (--exclude).
	Exclude []string
	// SizeHint tells an input over Limits.MaxFileBytes how to raise the
	// limit (the caller knows its flag and config key).
	SizeHint string
	// Each, when set, is called on every object as soon as it is read,
	// concurrently from the loader's goroutines (each object once, unless
	// its file is read again document by document after a syntax error):
	// a later stage decodes it there and may Release it, so the whole
	// input's trees are never in memory at once.
	Each func(*Object)
	// Read, when set, is told the size of every input as soon as it is
	// read, before it is parsed (concurrently, as Each): what the run
	// will hold grows with it.
	Read func(bytes int)
}

// Set is everything read from the inputs, in input order: files sorted by
// path within each directory, documents in file order.
type Set struct {
	Objects []*Object
	// Problems are the files and documents that could not be read
	// (LintInputUnreadable) and the files skipped as no manifests
	// (LintNotAManifest, LintTemplateNotRendered), in input order.
	Problems []diag.Diagnostic
}

// Unreadable reports whether some input could not be read: the run's
// exit code is then 3, after its output.
func (s *Set) Unreadable() bool {
	for _, p := range s.Problems {
		if p.Code == LintInputUnreadable.Code {
			return true
		}
	}
	return false
}

// ErrTooLarge marks an input over Limits.MaxFileBytes; the caller, which
// knows how the limit is set, says how to raise it.
var ErrTooLarge = errors.New("over the size limit")

// StdinName is how stdin appears in positions.
const StdinName = "<stdin>"

// inputExts are the file endings read when walking a directory.
var inputExts = []string{".yaml", ".yml", ".json"}

// Load reads every path (file, directory walked recursively, or "-" for
// stdin). A path that does not exist fails it. A file that cannot be read,
// or a document that does not parse, is a problem of the set, named by
// file, line and column, and everything else is still read: one broken
// file must not hide the findings about the others (callers exit 3 after
// their output, as a half-read set may give wrong answers).
func Load(paths []string, opt Options) (*Set, error) {
	opt.Limits = opt.Limits.withDefaults()
	files, specials, err := expand(paths)
	if err != nil {
		return nil, err
	}
	ex := NewExcluder(opt.Exclude)
	files = slices.DeleteFunc(files, ex.Excluded)
	specials = slices.DeleteFunc(specials, func(s special) bool { return ex.Excluded(s.path) })
	type result struct {
		objs     []*Object
		problems []diag.Diagnostic
	}
	results := make([]result, len(files))
	parallel.Each(len(files), func(i int) {
		name := displayName(files[i])
		data, err := readInput(files[i], opt)
		if err != nil {
			p := Problem(name, err)
			if errors.Is(err, ErrTooLarge) && opt.SizeHint != "" {
				p.Message += "; " + opt.SizeHint
			}
			results[i].problems = []diag.Diagnostic{p}
			return
		}
		if opt.Read != nil {
			opt.Read(len(data))
		}
		results[i].objs, results[i].problems = loadFile(name, data, opt.Limits, opt.Each)
	})
	set := &Set{}
	for _, s := range specials {
		if s.outside != "" {
			set.Problems = append(set.Problems, diag.Diagnostic{Code: LintSymlinkOutsideInput.Code, Severity: LintSymlinkOutsideInput.Severity, Pos: diag.Position{File: s.path},
				Message: "a symlink to " + s.kind + " outside the input directory " + s.outside + "; not followed (only what is under an -f directory is read) — --exclude it, or name its target with -f"})
			continue
		}
		set.Problems = append(set.Problems, diag.Diagnostic{Code: LintNotARegularFile.Code, Severity: LintNotARegularFile.Severity, Pos: diag.Position{File: s.path},
			Message: "not a regular file (" + s.kind + "); skipped unread, as reading it could block or never end — --exclude it, or pass piped input as -f - (stdin)"})
	}
	for _, r := range results {
		set.Objects = append(set.Objects, r.objs...)
		set.Problems = append(set.Problems, r.problems...)
	}
	for i, o := range set.Objects {
		o.Seq = i
	}
	return set, nil
}

func displayName(path string) string {
	if path == "-" {
		return StdinName
	}
	return path
}

func readInput(path string, opt Options) ([]byte, error) {
	var r io.Reader
	size := int64(0) // what the input is expected to hold, when known
	if path == "-" {
		if opt.Stdin == nil {
			return nil, diag.Errorf(diag.Invalid, "%s: no standard input to read", StdinName)
		}
		r = opt.Stdin
	} else {
		// Non-blocking, so a FIFO swapped in after expand's check cannot
		// hang the open; the check is repeated on what was opened.
		f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return nil, diag.Errorf(diag.Invalid, "%s: cannot read: %v", path, unwrapPathErr(err))
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, diag.Errorf(diag.Invalid, "%s: cannot read: %v", path, unwrapPathErr(err))
		}
		if err := regularFile(path, st); err != nil {
			return nil, err
		}
		r, size = f, st.Size()
	}
	max := opt.Limits.MaxFileBytes
	data, err := readAll(io.LimitReader(r, max+1), min(size, max)+1)
	if err != nil {
		return nil, diag.Errorf(diag.Invalid, "%s: cannot read: %v", displayName(path), unwrapPathErr(err))
	}
	if int64(len(data)) > max {
		return nil, diag.Errorf(diag.Invalid, "%s: %w: larger than %d bytes", displayName(path), ErrTooLarge, max)
	}
	return data, nil
}

// readAll is io.ReadAll into a buffer made for the expected size: io.ReadAll
// starts small and grows by copying, which for a large manifest allocated
// about twice the file and copied it several times over. A file that
// changed size since it was measured is still read whole.
func readAll(r io.Reader, expect int64) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(expect) + bytes.MinRead) // ReadFrom grows when less than MinRead is free
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// expand turns the user's paths into a list of files. Directories are walked
// recursively for inputExts, following symlinks but never entering a
// directory twice, so a symlink loop ends instead of hanging.
func expand(paths []string) ([]string, []special, error) {
	var files []string
	var specials []special
	seenFile := map[string]bool{}
	add := func(p string) {
		if p != "-" {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				p2, _ := filepath.Abs(real)
				if seenFile[p2] {
					return
				}
				seenFile[p2] = true
			}
		}
		files = append(files, p)
	}
	for _, p := range paths {
		if p == "-" {
			add(p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, diag.Errorf(diag.Invalid, "%s: cannot read: %v", p, unwrapPathErr(err))
		}
		if !st.IsDir() {
			if err := regularFile(p, st); err != nil {
				return nil, nil, err
			}
			add(p)
			continue
		}
		found, skipped, err := walkDir(p)
		if err != nil {
			return nil, nil, err
		}
		for _, f := range found {
			add(f)
		}
		specials = append(specials, skipped...)
	}
	return files, specials, nil
}

// special is a FIFO, socket or device found in a directory walk under an
// input file name: never opened (a FIFO blocks the open or the read
// forever, a device never ends), and reported unless excluded; or a
// symlink from the walked directory (outside, as given) to a file or
// directory outside it, never followed (what a directory in a pull
// request names must not make gwpol read the runner's files, nor walk
// the whole file system), and reported unless excluded.
type special struct{ path, kind, outside string }

// regularFile refuses what is not a regular file: a FIFO would block
// the read forever, a device (/dev/zero) would be read until the size
// limit, a socket cannot be read at all. Stdin ("-") is the way to pipe.
func regularFile(path string, st fs.FileInfo) error {
	if st.Mode().IsRegular() {
		return nil
	}
	return diag.Errorf(diag.Invalid, "%s: not a regular file (%s), not read; pass piped input as -f - (stdin)", path, fileKind(st.Mode()))
}

// fileKind names a file type for a message.
func fileKind(m fs.FileMode) string {
	kind := "mode " + m.Type().String()
	switch {
	case m&fs.ModeNamedPipe != 0:
		kind = "a FIFO"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeCharDevice != 0:
		kind = "a character device"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	case m.IsDir():
		kind = "a directory"
	}
	return kind
}

func walkDir(root string) ([]string, []special, error) {
	var files []string
	var specials []special
	visited := map[string]bool{}
	top, err := filepath.EvalSymlinks(root) // the directory named: a symlink there is the user's own
	if err != nil {
		return nil, nil, diag.Errorf(diag.Invalid, "%s: cannot read: %v", root, unwrapPathErr(err))
	}
	var walk func(dir string) error
	walk = func(dir string) error {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return diag.Errorf(diag.Invalid, "%s: cannot read: %v", dir, unwrapPathErr(err))
		}
		if visited[real] {
			return nil // a symlink back into the tree: already read
		}
		visited[real] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			return diag.Errorf(diag.Invalid, "%s: cannot read: %v", dir, unwrapPathErr(err))
		}
		for _, e := range entries { // ReadDir sorts by name
			p := filepath.Join(dir, e.Name())
			st, err := os.Stat(p) // follows symlinks
			if err != nil {
				if e.Type()&fs.ModeSymlink != 0 {
					continue // dangling symlink: nothing to read
				}
				return diag.Errorf(diag.Invalid, "%s: cannot read: %v", p, unwrapPathErr(err))
			}
			input := slices.Contains(inputExts, strings.ToLower(filepath.Ext(p)))
			if e.Type()&fs.ModeSymlink != 0 && (st.IsDir() && !strings.HasPrefix(e.Name(), ".") || !st.IsDir() && input) {
				if real, err := filepath.EvalSymlinks(p); err != nil || !within(top, real) {
					kind := "a file"
					if st.IsDir() {
						kind = "a directory"
					}
					specials = append(specials, special{path: p, kind: kind, outside: root})
					continue
				}
			}
			switch {
			case st.IsDir():
				if strings.HasPrefix(e.Name(), ".") {
					continue // .git and friends
				}
				if err := walk(p); err != nil {
					return err
				}
			case input:
				if !st.Mode().IsRegular() {
					specials = append(specials, special{path: p, kind: fileKind(st.Mode())})
					continue
				}
				files = append(files, p)
			}
		}
		return nil
	}
	err = walk(root)
	return files, specials, err
}

// within reports whether path is dir or under it (both without symlinks).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// Parse splits one file's bytes into objects. Large streams are cut at
// document separators and parsed in parallel; positions stay those of the
// whole file.
func Parse(file string, data []byte, lim Limits) ([]*Object, error) {
	return parse(file, data, lim, nil)
}

// parse is Parse calling each (when not nil) on every object as soon as
// it is read, from the goroutine that read it.
func parse(file string, data []byte, lim Limits, each func(*Object)) ([]*Object, error) {
	lim = lim.withDefaults()
	chunks := splitDocs(data)
	out := make([][]*Object, len(chunks))
	errs := make([]error, len(chunks))
	parallel.Each(len(chunks), func(i int) { out[i], errs[i] = parseChunk(file, chunks[i], lim, each) })
	var objs []*Object
	for i := range chunks {
		if errs[i] != nil {
			return nil, errs[i]
		}
		objs = append(objs, out[i]...)
	}
	return objs, nil
}

type chunk struct {
	data      []byte
	firstLine int // 0-based line offset of data within the file
}

// splitDocs cuts a stream at top-level "---" lines into groups of documents
// for parallel parsing. A chunk is only cut where the separator starts a
// line, which YAML requires; directives (%YAML) keep the stream whole.
func splitDocs(data []byte) []chunk {
	const minChunk = 256 << 10
	if len(data) < 2*minChunk || bytes.HasPrefix(data, []byte("%")) || bytes.Contains(data, []byte("\n%")) {
		return []chunk{{data: data}}
	}
	var chunks []chunk
	start, startLine := 0, 0
	for {
		cut := nextSeparator(data, start+minChunk)
		if cut < 0 || len(data)-cut < minChunk/2 {
			break
		}
		chunks = append(chunks, chunk{data: data[start:cut], firstLine: startLine})
		startLine += bytes.Count(data[start:cut], []byte("\n"))
		start = cut
	}
	return append(chunks, chunk{data: data[start:], firstLine: startLine})
}

// nextSeparator finds the first line at or after from that is a document
// separator ("---", optionally followed by blanks or a comment), and
// returns the offset of its start, or -1. Scanning only from the wanted
// cut point keeps splitting a large stream nearly free.
func nextSeparator(data []byte, from int) int {
	for from < len(data) {
		i := bytes.Index(data[from:], []byte("\n---"))
		if i < 0 {
			return -1
		}
		at := from + i + 1
		rest := data[at+3:]
		if end := bytes.IndexByte(rest, '\n'); end >= 0 {
			rest = rest[:end]
		}
		if line := bytes.TrimRight(rest, " \t\r"); len(line) == 0 || line[0] == '#' || line[0] == ' ' || line[0] == '\t' {
			return at
		}
		from = at + 3
	}
	return -1
}

var (
	yamlLineErr   = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	yamlAnchorErr = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)
)

// yamlParserProblems are the problems go.yaml.in/yaml/v3 reports from its
// parser (as opposed to its scanner). It prints their line 0-based and
// leaves "line N:" out when that is 0; scanner problems it prints 1-based.
var yamlParserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// blockProblems are the parser problems reported at the line where a
// block collection starts rather than where the offending token is.
var blockProblems = map[string]bool{
	"did not find expected key":           true,
	"did not find expected '-' indicator": true,
}

func parseChunk(file string, c chunk, lim Limits, each func(*Object)) ([]*Object, error) {
	if line, col, ok := midFileBOM(c); ok {
		return nil, Errorf(diag.Position{File: file, Line: line, Col: col},
			"a byte order mark (U+FEFF) starts this line in the middle of the file, where YAML takes it for part of the key (files joined with their BOMs?); remove it — this document is not read")
	}
	var objs []*Object
	// Objects that are their document's root can be read again from their
	// text after Release; a stream with directives cannot be cut.
	rereadable := !bytes.HasPrefix(c.data, []byte("%")) && !bytes.Contains(c.data, []byte("\n%"))
	line, off := 1, 0 // the start of line `line` of the chunk is at data[off]
	// One string of the chunk for the nodes' values and the objects'
	// texts: the file's bytes are let go once it is read.
	text := string(c.data)
	err := eachDocument(file, c, text, func(doc *yaml.Node) (bool, error) {
		got, err := objectsOf(source{file, c.firstLine}, doc, lim)
		if err != nil {
			return false, err
		}
		if rereadable && len(got) == 1 && doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 && got[0].node == doc.Content[0] {
			o := got[0]
			for ; line < o.node.Line && off < len(c.data); line++ {
				i := bytes.IndexByte(c.data[off:], '\n')
				if i < 0 {
					off = len(c.data)
					break
				}
				off += i + 1
			}
			if line == o.node.Line {
				o.text, o.textLine = text[off:], int32(line)
			}
		}
		for _, o := range got {
			if each != nil {
				each(o)
			}
		}
		objs = append(objs, got...)
		// The document's one object let its tree go (each released
		// it): the reader may build a later document in its nodes.
		// Nothing else holds a node of it: objectsOf and each keep
		// values and positions, never nodes (TestRecycledTreesChangeNothing,
		// and TestPredecodeChangesNoAnswer through pipeline.Predecode).
		recycle := len(got) == 1 && got[0].text != "" && got[0].Released()
		return recycle, nil
	})
	return objs, err
}

// bom is U+FEFF in UTF-8.
var bom = []byte("\xef\xbb\xbf")

// midFileBOM finds a byte order mark at the start of a line (after
// blanks, if any) other than the file's first: a file's own BOM is
// allowed, but one further on — where concatenating files leaves theirs —
// becomes part of the next key, and the document would read as one
// without apiVersion or kind. A U+FEFF inside a value is data, left alone.
// It returns the 1-based line and column in the file.
func midFileBOM(c chunk) (line, col int, ok bool) {
	for from := 0; ; {
		i := bytes.Index(c.data[from:], bom)
		if i < 0 {
			return 0, 0, false
		}
		at := from + i
		from = at + len(bom)
		lineStart := bytes.LastIndexByte(c.data[:at], '\n') + 1
		if len(bytes.Trim(c.data[lineStart:at], " \t")) > 0 || at == 0 && c.firstLine == 0 {
			continue
		}
		return c.firstLine + bytes.Count(c.data[:at], []byte("\n")) + 1, at - lineStart + 1, true
	}
}

// ParseNodes decodes a YAML stream that is not made of Kubernetes objects
// (policy definitions, build manifests) into the root node of each
// non-empty document, with the same error positions and the same depth
// and alias bounds as Parse.
func ParseNodes(file string, data []byte, lim Limits) ([]*yaml.Node, error) {
	lim = lim.withDefaults()
	var roots []*yaml.Node
	err := eachDocument(file, chunk{data: data}, string(data), func(doc *yaml.Node) (bool, error) {
		root := doc
		if root.Kind == yaml.DocumentNode {
			if len(root.Content) == 0 {
				return false, nil
			}
			root = root.Content[0]
		}
		if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
			return false, nil
		}
		if err := checkShape(source{file, 0}, root, lim, nil); err != nil {
			return false, err
		}
		roots = append(roots, root)
		return false, nil
	})
	return roots, err
}

func parseError(file string, c chunk, err error) error {
	msg := err.Error()
	if line, col, ok := badUTF8(c.data); ok {
		// The scanner names the bad octet but not where it is.
		return diag.Errorf(diag.Invalid, "%s:%d:%d: invalid UTF-8 (byte 0x%02x); YAML and JSON input must be UTF-8", file, line+c.firstLine, col, c.data[offsetOf(c.data, line, col)])
	}
	if strings.HasSuffix(msg, "did not find expected <document start>") {
		if line, col, ok := afterJSONValue(c.data); ok {
			return diag.Errorf(diag.Invalid, "%s:%d:%d: invalid JSON: unexpected text after the top-level value", file, line+c.firstLine, col)
		}
	}
	if m := yamlLineErr.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if yamlParserProblems[m[2]] {
			n++ // 0-based in the parser's messages
		}
		if blockProblems[m[2]] {
			// The parser gives the line of the block collection it was
			// in, not of the token it could not take (a bad indent): find
			// the first line whose prefix of the input fails the same way.
			// An unclosed flow collection stays at its opening line.
			n = firstFailingLine(c.data, n, msg)
		}
		return diag.Errorf(diag.Invalid, "%s:%d:%d: invalid YAML: %s", file, n+c.firstLine, firstCol(c.data, n), m[2])
	}
	if m := yamlAnchorErr.FindStringSubmatch(msg); m != nil {
		// The parser names the alias but not where it is: find its first use.
		if i := bytes.Index(c.data, []byte("*"+m[1])); i >= 0 {
			line := bytes.Count(c.data[:i], []byte("\n")) + 1
			col := i - bytes.LastIndexByte(c.data[:i], '\n')
			return diag.Errorf(diag.Invalid, "%s:%d:%d: invalid YAML: unknown anchor %q referenced", file, line+c.firstLine, col, m[1])
		}
	}
	// No line in the message: the parser's line 0, the chunk's first line.
	return diag.Errorf(diag.Invalid, "%s:%d:1: invalid YAML: %s", file, c.firstLine+1, strings.TrimPrefix(msg, "yaml: "))
}

// badUTF8 is the 1-based line and column (in runes) of the first byte
// that is not UTF-8, if any.
func badUTF8(data []byte) (line, col int, ok bool) {
	if utf8.Valid(data) {
		return 0, 0, false
	}
	line, col = 1, 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return line, col, true
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		data = data[size:]
	}
	return 0, 0, false
}

// offsetOf is the byte offset of a 1-based line and rune column.
func offsetOf(data []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		off += bytes.IndexByte(data[off:], '\n') + 1
	}
	for c := 1; c < col; c++ {
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off
}

// The search for a parser error's line is bounded (lines tried, bytes
// parsed in all): each step parses the input again, and the search only
// sharpens a message.
const (
	maxLocateLines = 2000
	maxLocateBytes = 32 << 20
)

// firstFailingLine is the first line from `from` on at which the input,
// cut after that line, fails with the same message: the line holding the
// token the parser could not take. A cut that fails differently (inside a
// multi-line flow collection or quoted scalar) is passed over.
func firstFailingLine(data []byte, from int, msg string) int {
	off, budget := offsetOf(data, from, 1), maxLocateBytes
	for line := from; line < from+maxLocateLines && off < len(data); line++ {
		end := len(data)
		if nl := bytes.IndexByte(data[off:], '\n'); nl >= 0 {
			end = off + nl + 1
		}
		if budget -= end; budget < 0 {
			break
		}
		if err := parseAll(data[:end]); err != nil && err.Error() == msg {
			return line
		}
		off = end
	}
	return from
}

// parseAll decodes every document of data, returning the first error.
func parseAll(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// afterJSONValue finds text after a complete top-level JSON value (a JSON
// file with trailing garbage), which YAML reports at 1:1 as a missing
// document start.
func afterJSONValue(data []byte) (line, col int, ok bool) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return 0, 0, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if dec.Decode(&v) != nil {
		return 0, 0, false
	}
	off := int(dec.InputOffset())
	for off < len(data) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
		off++
	}
	if off >= len(data) {
		return 0, 0, false
	}
	line = bytes.Count(data[:off], []byte("\n")) + 1
	col = utf8.RuneCount(data[bytes.LastIndexByte(data[:off], '\n')+1:off]) + 1
	return line, col, true
}

// firstCol is the column of the first non-blank character of a 1-based line,
// the best column the parser's line-only errors allow.
func firstCol(data []byte, line int) int {
	for i := 1; i < line; i++ {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return 1
		}
		data = data[nl+1:]
	}
	for i, b := range data {
		if b != ' ' && b != '\t' {
			return i + 1
		}
	}
	return 1
}

// source is where a chunk's nodes come from: the file, and the line the
// chunk starts at. Nodes keep their lines within the chunk (shifting every
// node of every chunk would be a walk over the whole input); positions
// add base.
type source struct {
	file string
	base int
}

// at is FILE:LINE:COL of a node.
func (s source) at(n *yaml.Node) string {
	return fmt.Sprintf("%s:%d:%d", s.file, n.Line+s.base, n.Column)
}

// objectsOf turns one document into objects: a single object, every item of
// a `kind: List`, or nothing for an empty document.
func objectsOf(src source, doc *yaml.Node, lim Limits) ([]*Object, error) {
	root := doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return nil, nil
		}
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, nil
	}
	var dups []diag.Diagnostic
	if err := checkShape(src, root, lim, &dups); err != nil {
		return nil, err
	}
	if root.Kind != yaml.MappingNode {
		return nil, notObjectf(diag.Position{File: src.file, Line: root.Line + src.base, Col: root.Column},
			"a document must be a Kubernetes object (a mapping with apiVersion and kind), found a %s", kindName(root))
	}
	obj, err := newObject(src, root)
	if err != nil {
		return nil, err
	}
	if len(dups) > 0 {
		obj.extra().findings = dups
	}
	if !isList(obj) {
		return []*Object{obj}, nil
	}
	items := lookup(root, "items")
	if items == nil || items.Kind == yaml.ScalarNode && items.ShortTag() == "!!null" {
		return nil, nil
	}
	items = resolve(items)
	if items.Kind != yaml.SequenceNode {
		return nil, diag.Errorf(diag.Invalid, "%s: items: a List's items must be a sequence", src.at(items))
	}
	var objs []*Object
	for _, it := range items.Content {
		it = resolve(it)
		if it.Kind != yaml.MappingNode {
			return nil, diag.Errorf(diag.Invalid, "%s: items: each item of a List must be an object", src.at(it))
		}
		o, err := newObject(src, it)
		if err != nil {
			return nil, err
		}
		objs = append(objs, o)
	}
	return objs, nil
}

func isList(o *Object) bool {
	return o.Kind == "List" && (o.APIVersion == "v1" || o.APIVersion == "")
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "sequence"
	case yaml.ScalarNode:
		return "scalar " + strconv.Quote(n.Value)
	case yaml.AliasNode:
		return "alias"
	}
	return "mapping"
}

// checkShape enforces the depth and alias-expansion bounds before anything
// walks the tree: a billion-laughs document fails here in microseconds.
// A mapping that sets a key twice fails it when dups is nil; otherwise
// the earlier values are dropped (the last wins, as in the Kubernetes API
// server's decoder) and each is reported in dups.
func checkShape(src source, root *yaml.Node, lim Limits, dups *[]diag.Diagnostic) error {
	budget := lim.MaxAliasNodes
	sp := framePool.Get().(*[]shapeFrame)
	defer framePool.Put(sp)
	stack := append((*sp)[:0], shapeFrame{root, 0, false})
	defer func() { *sp = stack[:0] }()
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f.depth > lim.MaxDepth {
			return diag.Errorf(diag.Invalid, "%s: nesting deeper than %d levels; this is not a Kubernetes object", src.at(f.n), lim.MaxDepth)
		}
		n, alias := f.n, f.alias
		if n.Kind == yaml.AliasNode {
			if n.Alias == nil {
				return diag.Errorf(diag.Invalid, "%s: alias %q has no anchor", src.at(n), n.Value)
			}
			n, alias = n.Alias, true
		}
		if alias {
			budget--
			if budget < 0 {
				return diag.Errorf(diag.Invalid, "%s: aliases expand to more than %d nodes (a \"billion laughs\" document?); refusing to expand", src.at(f.n), lim.MaxAliasNodes)
			}
		}
		if n.Kind == yaml.MappingNode && !alias {
			if err := checkKeys(src, n); err != nil {
				if dups == nil {
					return err
				}
				*dups = append(*dups, lastKeyWins(src, n)...)
			}
		}
		for _, c := range n.Content {
			stack = append(stack, shapeFrame{c, f.depth + 1, alias})
		}
	}
	return nil
}

type shapeFrame struct {
	n     *yaml.Node
	depth int
	alias bool
}

// framePool holds checkShape's stacks: one per document would be most of
// what loading allocates besides the nodes.
var framePool = sync.Pool{New: func() any { return new([]shapeFrame) }}

// checkKeys rejects a mapping that sets one key twice. YAML forbids it, and
// the field lookups here (first wins) and JSON decoding (last wins) would
// otherwise disagree about the object's name or namespace.
func checkKeys(src source, n *yaml.Node) error {
	dup := func(k, prev *yaml.Node) error {
		return diag.Errorf(diag.Invalid, "%s: mapping key %q already defined at line %d", src.at(k), k.Value, prev.Line+src.base)
	}
	scalarKey := func(k *yaml.Node) bool {
		return k.Kind == yaml.ScalarNode && !(k.Value == "<<" && k.ShortTag() == "!!merge")
	}
	if len(n.Content) <= 32 { // small mappings: no allocation
		for i := 2; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if !scalarKey(k) {
				continue
			}
			for j := 0; j < i; j += 2 {
				if p := n.Content[j]; scalarKey(p) && p.Value == k.Value {
					return dup(k, p)
				}
			}
		}
		return nil
	}
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !scalarKey(k) {
			continue
		}
		if p, ok := seen[k.Value]; ok {
			return dup(k, p)
		}
		seen[k.Value] = k
	}
	return nil
}

// lastKeyWins drops every key/value pair of a mapping whose key the
// mapping sets again later, and reports each (LintDuplicateKey).
func lastKeyWins(src source, n *yaml.Node) []diag.Diagnostic {
	last := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind == yaml.ScalarNode && !(k.Value == "<<" && k.ShortTag() == "!!merge") {
			last[k.Value] = i
		}
	}
	var out []diag.Diagnostic
	kept := n.Content[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if j, ok := last[k.Value]; ok && j != i && k.Kind == yaml.ScalarNode {
			later := n.Content[j]
			out = append(out, diag.Diagnostic{Code: LintDuplicateKey.Code, Severity: diag.Warning,
				Pos:     diag.Position{File: src.file, Line: k.Line + src.base, Col: k.Column},
				Message: fmt.Sprintf("mapping key %q is set again at line %d, whose value is used (as the Kubernetes API server does); this one is ignored — a missing `---` between two documents?", k.Value, later.Line+src.base)})
			continue
		}
		kept = append(kept, k, n.Content[i+1])
	}
	n.Content = kept
	return out
}

// Errorf formats an input error at a position, the way every decode error
// in gwpol reads: FILE:LINE:COL: message. The error is of kind Invalid and
// wraps a *PosError, so callers that report diagnostics can take the
// position and the message apart.
func Errorf(pos diag.Position, format string, args ...any) error {
	return &diag.KindError{Kind: diag.Invalid, Err: &PosError{Pos: pos, Msg: fmt.Sprintf(format, args...)}}
}

// PosError is an input error at a known position.
type PosError struct {
	Pos diag.Position
	Msg string // without the position
	// Field is the path of the value that did not fit, when known
	// (spec.ports[0].port).
	Field string
	// Cause classifies the error (errNotObject), when it matters.
	Cause error
}

func (e *PosError) Error() string { return e.Pos.String() + ": " + e.Msg }

// Unwrap is the error's cause.
func (e *PosError) Unwrap() error { return e.Cause }

// notObjectf is Errorf for a document that is no Kubernetes object.
func notObjectf(pos diag.Position, format string, args ...any) error {
	return &diag.KindError{Kind: diag.Invalid, Err: &PosError{Pos: pos, Msg: fmt.Sprintf(format, args...), Cause: errNotObject}}
}
