package manifest

// A fast reader for the YAML Kubernetes manifests are written in.
//
// Why it exists: decoding YAML into go.yaml.in/yaml/v3 nodes was the
// largest cost of a run above the work gwpol does itself (a route is a
// hundred and fifty nodes, each one allocation, plus the library's event
// and token buffers), and most of the garbage the collector then chases.
// Manifests use a small part of YAML: block mappings and sequences, one-line
// plain and quoted scalars, literal and folded scalars, one-line flow
// collections, comments and "---" separators. fastDocs reads exactly that part into the very trees the
// library builds, every node of a document from one slab.
//
// How it is kept honest: it never decides anything the library would decide
// differently. Whatever it is not sure of — anchors, aliases, tags,
// indentation indicators, multi-line plain or quoted scalars or flow
// collections, tabs, carriage returns,
// bytes outside printable ASCII, directives, odd indentation, explicit keys,
// and every syntax error — makes it decline the document, which the library
// then reads as before, so errors and their positions are the library's.
// Plain scalars get their tag by the library's rules (fastPlainTag mirrors
// its resolver). The trees are equal to the library's node for node (kind,
// style, tag, value, line, column, children); comments are not kept (no
// stage reads them). TestFastYAMLAgreesWithLibrary checks that equality on
// every YAML file of the corpora and the test data, and FuzzFastYAML on
// arbitrary input: the fast tree must equal the library's or the fast
// reader must have declined.

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// maxFastKey is the longest key the fast reader takes: the library refuses
// implicit keys longer than 1024 characters.
const maxFastKey = 1000

// eachDocument decodes a chunk's documents into nodes, with lines counted
// from the chunk's first line, and turns parser errors into FILE:LINE:COL
// errors. text is the chunk's data as one string: the values of the fast
// reader's nodes are substrings of it, so the input is held once, in
// text, and not once more per document. Documents the fast reader declines are read by the library; an
// error anywhere sends the whole chunk back to the library before any
// document is handed to f, so what f sees and the error are what they
// always were.
//
// f returns recycle true when nothing holds the document's tree any more
// (its object was released): the fast reader then builds a later
// document of about the same size in the same nodes, which it zeroes
// first. A document is a few hundred bytes of nodes per line of YAML; a
// loader that releases the trees of most kinds as it reads them
// (pipeline.Predecode) would otherwise make all of them garbage, a third
// of what a large run allocates (docs/performance.md, "…(perf42)").
func eachDocument(file string, c chunk, text string, f func(*yaml.Node) (recycle bool, err error)) error {
	p := getParser()
	defer p.release()
	if docs, ok := p.chunkDocs(text); ok {
		for _, d := range docs {
			if d.lib != nil {
				if _, err := f(d.lib); err != nil {
					return err
				}
				continue
			}
			doc, sl := p.build(d.span)
			recycle, err := f(doc)
			if err != nil {
				return err
			}
			if recycle {
				p.spare.put(sl)
			}
		}
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(c.data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return parseError(file, c, err)
		}
		if _, err := f(&doc); err != nil {
			return err
		}
	}
}

// parsers are fast readers with their scratch and spare slabs, kept from
// chunk to chunk (a few, one per loading goroutine): not in a sync.Pool,
// which drops them at every other collection, when a new reader grows a
// scratch of a chunk's size again (80 MB of garbage at 30k routes).
var parsers struct {
	sync.Mutex
	free []*fastParser
}

func getParser() *fastParser {
	parsers.Lock()
	defer parsers.Unlock()
	if n := len(parsers.free); n > 0 {
		f := parsers.free[n-1]
		parsers.free = parsers.free[:n-1]
		return f
	}
	return new(fastParser)
}

// release keeps the reader for the next chunk, unless enough are kept
// or one large stream (a bundle of CRDs read whole) made its scratch
// too big to keep.
func (f *fastParser) release() {
	clear(f.docs) // the library's trees are not the reader's to keep
	f.s, f.docs = "", f.docs[:0]
	if cap(f.nodes) > maxPooledNodes {
		return
	}
	parsers.Lock()
	defer parsers.Unlock()
	if len(parsers.free) < maxPooledParsers {
		parsers.free = append(parsers.free, f)
	}
}

const maxPooledParsers = 8

const maxPooledNodes = 1 << 17

// chunkDoc is one document of a chunk: nodes of the fast reader's scratch
// (span), or the library's tree of a piece the fast reader declined.
type chunkDoc struct {
	span span
	lib  *yaml.Node
}

// span is where a document is in the reader's scratch: its nodes
// nodes[n0:n1] (the document node first) and their children kids[k0:k1].
type span struct{ n0, n1, k0, k1 int32 }

// chunkDocs reads the documents of data: the fast reader's, kept in its
// scratch until build, where it can, else the library's for that piece
// (the text from one "---" line to the next). It returns false when the
// library fails on a piece, or the stream has directives, which reach
// over documents.
func (f *fastParser) chunkDocs(data string) ([]chunkDoc, bool) {
	if strings.HasPrefix(data, "%") || strings.Contains(data, "\n%") || !linesAsLibrary(data) {
		return nil, false
	}
	// The scratch holds every document of the chunk: sized once for it,
	// then reused. A line holds a node, or two for each ": " it has
	// ("{name: a, port: 80}" on one line is five), which the estimate
	// counts so that the scratch is not grown a quarter at a time (each
	// step a copy: 45 MB of garbage at 30k routes when sized at two a
	// line).
	// A quarter more than this chunk needs, as the next chunks differ.
	if n := strings.Count(data, "\n") + 2*strings.Count(data, ":") + 8; cap(f.nodes) < n {
		n += n / 4
		f.nodes, f.first, f.count, f.kids = make([]yaml.Node, 0, n), make([]int32, 0, n), make([]int32, 0, n), make([]int32, 0, n)
	}
	f.nodes, f.first, f.count, f.stk, f.kids = f.nodes[:0], f.first[:0], f.count[:0], f.stk[:0], f.kids[:0]
	docs := f.docs[:0]
	line := 1 // 1-based line of data[start]
	for start := 0; start < len(data); {
		end := nextDocStart(data, start)
		piece := data[start:end]
		if sp, ok := f.read(piece, line); ok {
			if sp.n1 > sp.n0 {
				docs = append(docs, chunkDoc{span: sp})
			}
		} else {
			dec := yaml.NewDecoder(strings.NewReader(piece))
			for {
				doc := new(yaml.Node)
				err := dec.Decode(doc)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					f.docs = docs
					return nil, false
				}
				shiftLines(doc, line-1)
				docs = append(docs, chunkDoc{lib: doc})
			}
		}
		line += strings.Count(piece, "\n")
		start = end
	}
	f.docs = docs
	return docs, true
}

// linesAsLibrary reports whether the library breaks lines where "\n" is:
// it also breaks them at a lone CR and at NEL, LS and PS, which would put
// the lines of the pieces it reads off by some.
func linesAsLibrary(data string) bool {
	for i := strings.IndexByte(data, '\r'); i >= 0; {
		if i+1 == len(data) || data[i+1] != '\n' {
			return false
		}
		j := strings.IndexByte(data[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return !strings.Contains(data, "\u0085") && !strings.Contains(data, "\u2028") && !strings.Contains(data, "\u2029")
}

// fastFirstDocument is the first document of data, read fast when it
// can be (a released object's text, read again).
func fastFirstDocument(data string) (*yaml.Node, bool) {
	if strings.HasPrefix(data, "%") {
		return nil, false
	}
	var p fastParser
	sp, ok := p.read(data[:nextDocStart(data, 0)], 1)
	if !ok || sp.n1 == sp.n0 {
		return nil, false
	}
	doc, _ := p.build(sp)
	return doc, true
}

// nextDocStart is the offset of the first line after the one at start
// that is a document start marker ("---" then a blank or the line's
// end), or len(data).
func nextDocStart(data string, start int) int {
	for from := start; ; {
		i := strings.Index(data[from:], "\n---")
		if i < 0 {
			return len(data)
		}
		at := from + i + 1
		if at+3 == len(data) || isBlankz(data[at+3]) {
			return at
		}
		from = at + 3
	}
}

func isBlankz(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0 }

// fastParser reads one document at a time into scratch slices, which
// hold a chunk's documents until each is built: copied into one slab of
// nodes, so a document costs a few allocations however many nodes it
// has, and none when a slab its caller gave back fits it (spare).
type fastParser struct {
	s    string // the piece: node values are substrings of it
	p    int    // cursor
	ls   int    // start of the cursor's line
	line int    // 1-based line of the cursor (in the chunk)
	bad  bool   // declined
	// fold: a quoted scalar may go on over the lines that follow, each
	// indented past foldInd (a value in a block collection).
	fold    bool
	foldInd int
	wide    bool // the piece has characters past ASCII: columns count characters

	nodes []yaml.Node
	first []int32 // per node: its first child in kids
	count []int32 // per node: its number of children
	stk   []int32 // children of the collections being read
	kids  []int32 // children of finished collections, each contiguous

	docs  []chunkDoc // chunkDocs's result, reused
	spare spares
}

// read reads the piece that starts at 1-based line `line` into the
// scratch, after what is there. It returns an empty span and true for a
// piece without a document (blanks and comments before the first "---"),
// and false when it declines; either way the scratch is as it was.
func (f *fastParser) read(piece string, line int) (span, bool) {
	wide := false
	for i := 0; i < len(piece); i++ {
		if c := piece[i]; c < ' ' && c != '\n' || c > '~' {
			if c < 0x80 {
				return span{}, false // tabs, CR, controls
			}
			wide = true
		}
	}
	if wide && !fastText(piece) {
		return span{}, false
	}
	f.s, f.p, f.ls, f.line, f.bad, f.wide = piece, 0, 0, line, false, wide
	if cap(f.nodes) == 0 {
		// A new reader's scratch is sized for the piece (a block
		// document has about two nodes a line) rather than grown by
		// doubling: a reader may read one large document alone (a CRD).
		n := 2*strings.Count(piece, "\n") + 8
		f.nodes, f.first, f.count, f.kids = make([]yaml.Node, 0, n), make([]int32, 0, n), make([]int32, 0, n), make([]int32, 0, n)
	}
	n0, k0 := len(f.nodes), len(f.kids)
	undo := func() (span, bool) {
		f.nodes, f.first, f.count, f.stk, f.kids = f.nodes[:n0], f.first[:n0], f.count[:n0], f.stk[:0], f.kids[:k0]
		return span{}, !f.bad
	}
	f.stk = f.stk[:0]
	explicit := strings.HasPrefix(f.s, "---")
	docLine, docCol := 0, 0
	if explicit {
		docLine, docCol = f.line, 1
		f.p = 3
		f.endLine()
	}
	ind := f.peekLine()
	if f.bad {
		return undo()
	}
	doc := f.add(yaml.DocumentNode, 0, "", "", docLine, docCol)
	base := len(f.stk)
	switch {
	case ind < 0:
		if !explicit {
			return undo() // no document: true
		}
		// An empty document holds one null scalar, placed where the
		// library's next token is: the next line at column 1.
		end := f.line
		if len(f.s) > 0 && f.s[len(f.s)-1] != '\n' {
			end++
		}
		f.push(f.add(yaml.ScalarNode, 0, "!!null", "", end, 1))
	case ind > 0:
		f.bad = true
		return undo()
	default:
		if !explicit {
			f.nodes[doc].Line, f.nodes[doc].Column = f.line, 1
		}
		f.push(f.blockNode(0))
		if f.peekLine() >= 0 {
			f.bad = true
		}
	}
	if f.bad {
		return undo()
	}
	f.finish(doc, base)
	return span{int32(n0), int32(len(f.nodes)), int32(k0), int32(len(f.kids))}, true
}

// build copies the document at sp into one slice of nodes and its
// children into another (a spare pair when one fits), each Content
// capped so that an append never reaches a neighbour's children. It
// returns the document node and the slab, which the caller may give back
// (spares.put) once nothing holds the tree.
func (f *fastParser) build(sp span) (*yaml.Node, slab) {
	src := f.nodes[sp.n0:sp.n1]
	sl := f.spare.take(len(src), int(sp.k1-sp.k0))
	nodes, ptrs := sl.nodes, sl.ptrs
	copy(nodes, src)
	for i, k := range f.kids[sp.k0:sp.k1] {
		ptrs[i] = &nodes[k-sp.n0]
	}
	for i := range nodes {
		if n := f.count[int(sp.n0)+i]; n > 0 {
			a := f.first[int(sp.n0)+i] - sp.k0
			nodes[i].Content = ptrs[a : a+n : a+n]
		}
	}
	return &nodes[0], sl
}

// A slab is the nodes of one document and their children's pointers.
type slab struct {
	nodes []yaml.Node
	ptrs  []*yaml.Node
}

// spares are slabs given back, each zeroed (a tree somebody still held
// would read as empty, never as another document), kept for documents
// they fit: a document takes one only when it wastes at most an eighth
// of it, as a document kept for good holds all of its slab.
type spares struct {
	free [8]slab
	next int // where the next one given back goes, oldest first
}

func (s *spares) take(nodes, kids int) slab {
	for i := range s.free {
		sl := &s.free[i]
		if c := cap(sl.nodes); c >= nodes && c-nodes <= nodes/8 && cap(sl.ptrs) >= kids && cap(sl.ptrs)-kids <= kids/8+8 {
			out := slab{sl.nodes[:nodes], sl.ptrs[:kids]}
			*sl = slab{}
			return out
		}
	}
	return slab{make([]yaml.Node, nodes), make([]*yaml.Node, kids)}
}

func (s *spares) put(sl slab) {
	clear(sl.nodes)
	clear(sl.ptrs)
	s.free[s.next] = slab{sl.nodes[:0], sl.ptrs[:0]}
	s.next = (s.next + 1) % len(s.free)
}

func (f *fastParser) add(kind yaml.Kind, style yaml.Style, tag, value string, line, col int) int32 {
	f.nodes = append(f.nodes, yaml.Node{Kind: kind, Style: style, Tag: tag, Value: value, Line: line, Column: col})
	f.first = append(f.first, 0)
	f.count = append(f.count, 0)
	return int32(len(f.nodes) - 1)
}

func (f *fastParser) push(n int32) { f.stk = append(f.stk, n) }

// finish gives collection n the children pushed since base.
func (f *fastParser) finish(n int32, base int) {
	f.first[n] = int32(len(f.kids))
	f.count[n] = int32(len(f.stk) - base)
	f.kids = append(f.kids, f.stk[base:]...)
	f.stk = f.stk[:base]
}

// col is the cursor's 1-based column, in characters as the library
// counts them.
func (f *fastParser) col() int {
	if f.wide {
		return utf8.RuneCountInString(f.s[f.ls:f.p]) + 1
	}
	return f.p - f.ls + 1
}

// fastText reports whether a piece with bytes past ASCII is text the
// fast reader takes: valid UTF-8 of characters the library reads as
// printable content (its reader's check) — not a byte order mark, which
// it skips at the start of a line, nor NEL, LS or PS, which break lines.
func fastText(s string) bool {
	for _, r := range s {
		switch {
		case r == utf8.RuneError, r == 0x85, r == 0x2028, r == 0x2029, r == 0xFEFF:
			return false // RuneError: invalid UTF-8 (the character itself is refused here too)
		case r < 0x80, r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		default:
			return false
		}
	}
	return true
}

// endLine takes the rest of the cursor's line, which must be blanks and
// perhaps a comment after a blank, and moves to the next line.
func (f *fastParser) endLine() {
	blank := f.p == f.ls || f.s[f.p-1] == ' '
	for f.p < len(f.s) {
		switch c := f.s[f.p]; {
		case c == '\n':
			f.p++
			f.ls, f.line = f.p, f.line+1
			return
		case c == ' ':
			blank = true
			f.p++
		case c == '#' && blank:
			i := strings.IndexByte(f.s[f.p:], '\n')
			if i < 0 {
				f.p = len(f.s)
				return
			}
			f.p += i
		default:
			f.bad = true
			return
		}
	}
}

// peekLine skips blank and comment lines and returns the indentation of
// the next line with content, the cursor at its first character, or -1 at
// the end of the piece.
func (f *fastParser) peekLine() int {
	if f.bad {
		return -1
	}
	for f.p < len(f.s) {
		i := f.p
		for i < len(f.s) && f.s[i] == ' ' {
			i++
		}
		if i < len(f.s) && f.s[i] != '\n' && f.s[i] != '#' {
			f.p = i
			if i-f.ls == 0 && (strings.HasPrefix(f.s[i:], "...") || strings.HasPrefix(f.s[i:], "---")) {
				f.bad = true // a document marker inside the piece
				return -1
			}
			return i - f.ls
		}
		f.p = i
		if f.endLine(); f.bad {
			return -1
		}
	}
	return -1
}

// blockNode reads the block collection whose first line has indentation
// ind, the cursor on its first character.
func (f *fastParser) blockNode(ind int) int32 {
	if f.isSeqEntry() {
		return f.blockSeq(ind)
	}
	return f.blockMap(ind)
}

func (f *fastParser) isSeqEntry() bool {
	return f.s[f.p] == '-' && (f.p+1 == len(f.s) || f.s[f.p+1] == ' ' || f.s[f.p+1] == '\n')
}

// blockMap reads a block mapping whose keys are at indentation ind (the
// cursor on the first key, which may follow "- " on its line).
func (f *fastParser) blockMap(ind int) int32 {
	m := f.add(yaml.MappingNode, 0, "!!map", "", f.line, f.col())
	base := len(f.stk)
	for !f.bad {
		k := f.scalar(false)
		if f.bad || len(f.nodes[k].Value) > maxFastKey {
			f.bad = true
			break
		}
		f.push(k)
		f.skipSpaces()
		if f.p >= len(f.s) || f.s[f.p] != ':' || f.p+1 < len(f.s) && f.s[f.p+1] != ' ' && f.s[f.p+1] != '\n' {
			f.bad = true
			break
		}
		f.p++
		colonLine, colonCol := f.line, f.col()
		f.skipSpaces()
		if f.p < len(f.s) && f.s[f.p] != '\n' && f.s[f.p] != '#' {
			f.push(f.inlineValue(ind))
		} else {
			f.endLine()
			next := f.peekLine()
			switch {
			case next > ind:
				f.push(f.blockNode(next))
			case next == ind && f.isSeqEntry():
				f.push(f.blockSeq(ind))
			default:
				f.push(f.add(yaml.ScalarNode, 0, "!!null", "", colonLine, colonCol))
			}
		}
		next := f.peekLine()
		if next < ind {
			break
		}
		if next > ind || f.isSeqEntry() {
			f.bad = true
		}
	}
	f.finish(m, base)
	return m
}

// blockSeq reads a block sequence whose "-" are at indentation ind.
func (f *fastParser) blockSeq(ind int) int32 {
	s := f.add(yaml.SequenceNode, 0, "!!seq", "", f.line, f.col())
	base := len(f.stk)
	for !f.bad {
		f.p++ // the "-"
		f.skipSpaces()
		if f.p >= len(f.s) || f.s[f.p] == '\n' || f.s[f.p] == '#' {
			f.endLine()
			if next := f.peekLine(); next > ind {
				f.push(f.blockNode(next))
			} else {
				f.bad = true // an empty entry
			}
		} else {
			f.push(f.seqEntry(ind))
		}
		next := f.peekLine()
		if next < ind || next == ind && !f.isSeqEntry() {
			break // the end, or a key of the mapping this sequence is the value of
		}
		if next > ind {
			f.bad = true
		}
	}
	f.finish(s, base)
	return s
}

// seqEntry reads what follows "- " on a line: a mapping that starts
// there, or one value.
func (f *fastParser) seqEntry(ind int) int32 {
	switch f.s[f.p] {
	case '{', '[':
		return f.inlineValue(ind)
	case '-':
		if f.isSeqEntry() {
			f.bad = true
			return 0
		}
	}
	if f.startsKey() {
		return f.blockMap(f.col() - 1)
	}
	return f.inlineValue(ind)
}

// startsKey reports whether the scalar at the cursor is followed by ": "
// or ":" at the end of its line.
func (f *fastParser) startsKey() bool {
	p, ls, line, bad := f.p, f.ls, f.line, f.bad
	n := len(f.nodes)
	f.scalar(false)
	f.skipSpaces()
	key := !f.bad && f.p < len(f.s) && f.s[f.p] == ':' && (f.p+1 == len(f.s) || f.s[f.p+1] == ' ' || f.s[f.p+1] == '\n')
	f.p, f.ls, f.line, f.bad = p, ls, line, bad
	f.nodes, f.first, f.count = f.nodes[:n], f.first[:n], f.count[:n]
	return key
}

// inlineValue reads a value that starts at the cursor and ends its line:
// a flow collection or a scalar. ind is the indentation of the innermost
// block collection, which a following line must not exceed (it would
// continue a plain scalar).
func (f *fastParser) inlineValue(ind int) int32 {
	var n int32
	switch f.s[f.p] {
	case '{', '[':
		n = f.flow()
		f.endLine()
	case '|', '>':
		n = f.blockScalar(ind)
	default:
		f.fold, f.foldInd = true, ind
		n = f.scalar(false)
		f.fold = false
		p, ls, line := f.p, f.ls, f.line
		f.endLine()
		if next := f.peekLine(); next > ind && !f.bad && f.nodes[n].Style == 0 {
			// a line indented past the collection: the plain scalar
			// may go on over it (read again from the scalar's end, so
			// that a value on one line costs nothing more)
			f.p, f.ls, f.line = p, ls, line
			f.plainLines(n, ind)
			f.endLine()
		}
	}
	if next := f.peekLine(); next > ind {
		f.bad = true
	}
	return n
}

// plainLines continues plain scalar n, a value in a block collection at
// indentation ind, over the lines indented past ind that follow it, as
// the library folds them: a line break between two lines is a space, n
// empty lines are n newlines, and the blanks around a break are dropped.
// The scalar ends at a line not indented past ind or at a comment line;
// within it, the library reads any other line as text, whatever it
// starts with ("- x", "> 0", "\"quoted\""). A line that holds ": " or
// " #" (which would end the scalar within it) is left to the library.
// The cursor ends after the scalar's last character.
func (f *fastParser) plainLines(n int32, ind int) {
	i := f.p
	for i < len(f.s) && f.s[i] == ' ' {
		i++
	}
	if i >= len(f.s) || f.s[i] != '\n' {
		return // a comment, or the end of the piece
	}
	var b []byte
	breaks := 0
	ln, pos := f.line+1, i+1 // pos: the start of line ln
	for pos < len(f.s) {
		j := pos
		for j < len(f.s) && f.s[j] == ' ' {
			j++
		}
		if j < len(f.s) && f.s[j] == '\n' {
			breaks++ // an empty line
			ln, pos = ln+1, j+1
			continue
		}
		if j >= len(f.s) || j-pos <= ind || f.s[j] == '#' {
			break // the scalar ended on the last line read
		}
		end := strings.IndexByte(f.s[j:], '\n')
		if end < 0 {
			end = len(f.s)
		} else {
			end += j
		}
		text := strings.TrimRight(f.s[j:end], " ")
		if strings.Contains(text, ": ") || strings.HasSuffix(text, ":") || strings.Contains(text, " #") {
			f.bad = true
			return
		}
		if b == nil {
			b = append(b, f.nodes[n].Value...)
		}
		if breaks == 0 {
			b = append(b, ' ')
		}
		for ; breaks > 0; breaks-- {
			b = append(b, '\n')
		}
		b = append(b, text...)
		f.p, f.ls, f.line = j+len(text), pos, ln
		ln, pos = ln+1, end+1
	}
	if b != nil {
		v := string(b)
		f.nodes[n].Value, f.nodes[n].Tag = v, fastPlainTag(v)
	}
}

// blockScalar reads a literal or folded scalar, its header at the cursor,
// in a block collection at indentation ind, and leaves the cursor at the
// start of the first line after it. Its lines are indented as the first
// (detected, not given by a digit); a line of blanks only, an empty
// scalar or one that is not indented past ind are left to the library.
func (f *fastParser) blockScalar(ind int) int32 {
	line, col := f.line, f.col()
	style := yaml.LiteralStyle
	if f.s[f.p] == '>' {
		style = yaml.FoldedStyle
	}
	f.p++
	// The header: chomping and an indentation indicator, in either order.
	chomp := 0 // clip; -1 strip, +1 keep
	indent := -1
	for range 2 {
		if f.p >= len(f.s) {
			break
		}
		switch c := f.s[f.p]; {
		case (c == '-' || c == '+') && chomp == 0:
			chomp = 1
			if c == '-' {
				chomp = -1
			}
			f.p++
		case c >= '1' && c <= '9' && indent < 0:
			// the text is indented this much past the collection the
			// scalar is a value of (the library's indent)
			indent = ind + int(c-'0')
			f.p++
		case c == '0':
			f.bad = true // the library refuses it
			return 0
		}
	}
	if f.p < len(f.s) && f.s[f.p] >= '0' && f.s[f.p] <= '9' {
		f.bad = true // an indicator of more than one digit
		return 0
	}
	explicit := indent >= 0
	if f.endLine(); f.bad {
		return 0
	}
	var b []byte
	var leadingBreak, leadingBlank bool
	breaks := 0 // empty lines since the last line of text
	for f.p < len(f.s) {
		i := f.p
		for i < len(f.s) && f.s[i] == ' ' {
			i++
		}
		if i == len(f.s) || f.s[i] == '\n' {
			if i > f.p {
				f.bad = true // blanks only
				return 0
			}
			breaks++
			if f.p = i; i < len(f.s) {
				f.p++
				f.ls, f.line = f.p, f.line+1
			}
			continue
		}
		sp := i - f.p
		if indent < 0 {
			if sp <= ind {
				f.bad = true // an empty scalar
				return 0
			}
			indent = sp
		}
		if sp < indent {
			if explicit && len(b) == 0 && !leadingBreak {
				f.bad = true // no line of text, or one indented less than the indicator says
				return 0
			}
			break
		}
		end := strings.IndexByte(f.s[i:], '\n')
		if end < 0 {
			end = len(f.s)
		} else {
			end += i
		}
		text := f.s[f.p+indent : end]
		trailingBlank := text[0] == ' '
		if style == yaml.FoldedStyle && !leadingBlank && !trailingBlank && leadingBreak {
			if breaks == 0 {
				b = append(b, ' ')
			}
		} else if leadingBreak {
			b = append(b, '\n')
		}
		for ; breaks > 0; breaks-- {
			b = append(b, '\n')
		}
		leadingBlank = trailingBlank
		b = append(b, text...)
		if leadingBreak = end < len(f.s); leadingBreak {
			f.p = end + 1
			f.ls, f.line = f.p, f.line+1
		} else {
			f.p = end
		}
	}
	if indent < 0 || explicit && len(b) == 0 && !leadingBreak {
		f.bad = true // an empty scalar
		return 0
	}
	if chomp != -1 && leadingBreak {
		b = append(b, '\n')
	}
	for ; chomp == 1 && breaks > 0; breaks-- {
		b = append(b, '\n')
	}
	return f.add(yaml.ScalarNode, style, "!!str", string(b), line, col)
}

func (f *fastParser) skipSpaces() {
	for f.p < len(f.s) && f.s[f.p] == ' ' {
		f.p++
	}
}

// flow reads a flow mapping or sequence that closes on its line.
func (f *fastParser) flow() int32 {
	open := f.s[f.p]
	var n int32
	if open == '{' {
		n = f.add(yaml.MappingNode, yaml.FlowStyle, "!!map", "", f.line, f.col())
	} else {
		n = f.add(yaml.SequenceNode, yaml.FlowStyle, "!!seq", "", f.line, f.col())
	}
	base := len(f.stk)
	f.p++
	f.skipSpaces()
	closer := byte(']')
	if open == '{' {
		closer = '}'
	}
	if f.p < len(f.s) && f.s[f.p] == closer {
		f.p++
		f.finish(n, base)
		return n
	}
	for !f.bad {
		var v int32
		if open == '{' {
			k := f.scalar(true)
			if f.bad || len(f.nodes[k].Value) > maxFastKey {
				f.bad = true
				break
			}
			f.push(k)
			f.skipSpaces()
			if f.p >= len(f.s) || f.s[f.p] != ':' {
				f.bad = true
				break
			}
			if f.nodes[k].Style == 0 && (f.p+1 >= len(f.s) || f.s[f.p+1] != ' ') {
				f.bad = true
				break
			}
			f.p++
			f.skipSpaces()
		}
		if f.p >= len(f.s) {
			f.bad = true
			break
		}
		switch f.s[f.p] {
		case '{', '[':
			v = f.flow()
		case ',', '}', ']':
			f.bad = true // an empty value
		default:
			v = f.scalar(true)
		}
		if f.bad {
			break
		}
		f.push(v)
		f.skipSpaces()
		if f.p >= len(f.s) {
			f.bad = true
			break
		}
		if c := f.s[f.p]; c == closer {
			f.p++
			break
		} else if c != ',' {
			f.bad = true // ":" in a sequence, the wrong closer, a comment
			break
		}
		f.p++
		f.skipSpaces()
		if f.p >= len(f.s) || f.s[f.p] == closer || f.s[f.p] == '\n' {
			f.bad = true // a trailing comma, or a collection over lines
		}
	}
	f.finish(n, base)
	return n
}

// scalar reads a one-line plain or quoted scalar at the cursor, in flow
// or block context.
func (f *fastParser) scalar(inFlow bool) int32 {
	if f.p >= len(f.s) {
		f.bad = true
		return 0
	}
	line, col := f.line, f.col()
	switch f.s[f.p] {
	case '\'':
		return f.singleQuoted(line, col)
	case '"':
		return f.doubleQuoted(line, col)
	}
	start := f.p
	switch c := f.s[f.p]; c {
	case '-':
		if f.p+1 >= len(f.s) || isBlankz(f.s[f.p+1]) || strings.IndexByte(",[]{}", f.s[f.p+1]) >= 0 {
			f.bad = true
			return 0
		}
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`', '?', ':', '\n', ' ':
		f.bad = true
		return 0
	}
	end := f.p // after the last non-blank
	for f.p < len(f.s) {
		c := f.s[f.p]
		if c == '\n' {
			break
		}
		if c == ' ' {
			f.p++
			continue
		}
		if c == '#' && f.s[f.p-1] == ' ' {
			break
		}
		if c == ':' {
			next := byte('\n')
			if f.p+1 < len(f.s) {
				next = f.s[f.p+1]
			}
			if next == ' ' || next == '\n' {
				break
			}
			if inFlow && strings.IndexByte(",[]{}?", next) >= 0 {
				f.bad = true
				return 0
			}
		}
		if inFlow && strings.IndexByte(",[]{}", c) >= 0 {
			break
		}
		if inFlow && c == '?' {
			f.bad = true
			return 0
		}
		f.p++
		end = f.p
	}
	f.p = end
	v := f.s[start:end]
	tag := fastPlainTag(v)
	if v == "<<" {
		tag = "!!merge"
	}
	return f.add(yaml.ScalarNode, 0, tag, v, line, col)
}

func (f *fastParser) singleQuoted(line, col int) int32 {
	f.p++
	start := f.p
	var b []byte // only when there are escaped quotes or line breaks
	for {
		i := strings.IndexAny(f.s[f.p:], "'\n")
		if i < 0 {
			f.bad = true
			return 0
		}
		f.p += i
		if f.s[f.p] == '\n' {
			b = append(b, strings.TrimRight(f.s[start:f.p], " ")...)
			if b = f.quotedBreak(b, false); f.bad {
				return 0
			}
			start = f.p
			continue
		}
		if f.p+1 < len(f.s) && f.s[f.p+1] == '\'' {
			b = append(b, f.s[start:f.p+1]...)
			f.p += 2
			start = f.p
			continue
		}
		break
	}
	v := f.s[start:f.p]
	if b != nil {
		v = string(append(b, v...))
	}
	f.p++
	return f.add(yaml.ScalarNode, yaml.SingleQuotedStyle, "!!str", v, line, col)
}

// quotedBreak continues a quoted scalar over the line break at the cursor,
// as the library does: the blanks that start the following lines are
// dropped, each empty line is a newline, and a single break is a space
// (none when escaped). It leaves the cursor on the next line's first
// character past its indentation; a line not indented past the block
// collection the scalar is a value of, the end of the piece, or a scalar
// that may not go over lines (a key, in a flow collection) is left to the
// library.
func (f *fastParser) quotedBreak(b []byte, escaped bool) []byte {
	if !f.fold {
		f.bad = true
		return b
	}
	breaks := 0
	for {
		f.p++ // the break
		f.ls, f.line = f.p, f.line+1
		j := f.p
		for j < len(f.s) && f.s[j] == ' ' {
			j++
		}
		if j < len(f.s) && f.s[j] == '\n' {
			breaks++
			f.p = j
			continue
		}
		if j >= len(f.s) || j-f.p <= f.foldInd {
			f.bad = true
			return b
		}
		f.p = j
		break
	}
	if breaks == 0 && !escaped {
		b = append(b, ' ')
	}
	for ; breaks > 0; breaks-- {
		b = append(b, '\n')
	}
	return b
}

// fastEscapes are the one-letter escapes of double-quoted scalars.
var fastEscapes = [256]byte{'0': 0, 'a': '\a', 'b': '\b', 't': '\t', 'n': '\n', 'v': '\v', 'f': '\f', 'r': '\r', 'e': 0x1b, ' ': ' ', '"': '"', '\'': '\'', '\\': '\\'}

func (f *fastParser) doubleQuoted(line, col int) int32 {
	f.p++
	start := f.p
	var b []byte
	for {
		i := strings.IndexAny(f.s[f.p:], "\"\\\n")
		if i < 0 {
			f.bad = true
			return 0
		}
		f.p += i
		if f.s[f.p] == '"' {
			break
		}
		if f.s[f.p] == '\n' {
			b = append(b, strings.TrimRight(f.s[start:f.p], " ")...)
			if b = f.quotedBreak(b, false); f.bad {
				return 0
			}
			start = f.p
			continue
		}
		b = append(b, f.s[start:f.p]...)
		if f.p+1 >= len(f.s) {
			f.bad = true
			return 0
		}
		e := f.s[f.p+1]
		if e == '\n' { // an escaped line break: nothing, nor the blanks after it
			f.p++
			if b = f.quotedBreak(b, true); f.bad {
				return 0
			}
			start = f.p
			continue
		}
		f.p += 2
		switch e {
		case 'x', 'u', 'U':
			size := 2
			if e == 'u' {
				size = 4
			} else if e == 'U' {
				size = 8
			}
			if f.p+size > len(f.s) {
				f.bad = true
				return 0
			}
			r, err := strconv.ParseUint(f.s[f.p:f.p+size], 16, 32)
			if err != nil || r >= 0xD800 && r <= 0xDFFF || r > 0x10FFFF || strings.ContainsAny(f.s[f.p:f.p+size], "+-_") {
				f.bad = true
				return 0
			}
			b = utf8.AppendRune(b, rune(r))
			f.p += size
		case '0':
			b = append(b, 0)
		default:
			c := fastEscapes[e]
			if c == 0 {
				f.bad = true // not one the fast reader knows, or a line break
				return 0
			}
			b = append(b, c)
		}
		start = f.p
	}
	v := f.s[start:f.p]
	if b != nil {
		v = string(append(b, v...))
	}
	f.p++
	return f.add(yaml.ScalarNode, yaml.DoubleQuotedStyle, "!!str", v, line, col)
}

// fastPlainTag is the tag the library resolves a plain scalar to, by the
// same rules: a few words (only these spellings) for booleans, null and
// the special floats; then, for text that starts like a number, a
// timestamp, an integer (any base Go's parser knows, "_" ignored), an
// integer that fits no int64, a float in YAML's form, and binary or octal
// integers written with a sign after the prefix.
func fastPlainTag(v string) string {
	if v == "" {
		return "!!null"
	}
	switch c := v[0]; {
	case strings.IndexByte("yYnNtTfFoO~", c) >= 0:
		switch v {
		case "true", "True", "TRUE", "false", "False", "FALSE":
			return "!!bool"
		case "~", "null", "Null", "NULL":
			return "!!null"
		}
		return "!!str"
	case c == '.':
		switch v {
		case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF":
			return "!!float"
		}
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return "!!float"
		}
		return "!!str"
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		return fastNumberTag(v)
	}
	return "!!str"
}

// fastTimestampLayouts are the layouts the library reads timestamps in.
var fastTimestampLayouts = []string{"2006-1-2T15:4:5.999999999Z07:00", "2006-1-2t15:4:5.999999999Z07:00", "2006-1-2 15:4:5.999999999", "2006-1-2"}

func fastNumberTag(v string) string {
	switch v {
	case "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return "!!float"
	}
	if len(v) > 4 && v[4] == '-' && strings.IndexFunc(v[:4], func(r rune) bool { return r < '0' || r > '9' }) < 0 {
		for _, layout := range fastTimestampLayouts {
			if _, err := time.Parse(layout, v); err == nil {
				return "!!timestamp"
			}
		}
	}
	plain := strings.ReplaceAll(v, "_", "")
	if strings.IndexFunc(plain, notInNumber) >= 0 {
		return "!!str" // a duration, a size…: no parse below can accept it, and each refusal allocates its error
	}
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return "!!int"
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return "!!int"
	}
	if isYAMLFloat(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return "!!float"
		}
	}
	for _, p := range []struct {
		prefix string
		base   int
	}{{"0b", 2}, {"0o", 8}} {
		if rest, ok := strings.CutPrefix(plain, p.prefix); ok {
			if _, err := strconv.ParseInt(rest, p.base, 64); err == nil {
				return "!!int"
			}
			if _, err := strconv.ParseUint(rest, p.base, 64); err == nil {
				return "!!int"
			}
		} else if rest, ok := strings.CutPrefix(plain, "-"+p.prefix); ok {
			if _, err := strconv.ParseInt("-"+rest, p.base, 64); err == nil {
				return "!!int"
			}
		}
	}
	return "!!str"
}

// notInNumber reports whether r can appear in no literal fastNumberTag
// accepts after its timestamps: signs, digits, a base's prefix (0x, 0o,
// 0b) and hexadecimal digits, a decimal point and an exponent.
func notInNumber(r rune) bool {
	return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' || strings.ContainsRune("xXoO+-.", r))
}

// isYAMLFloat matches [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
func isYAMLFloat(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	digits := func() int {
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		s = s[n:]
		return n
	}
	if s != "" && s[0] == '.' {
		s = s[1:]
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if s != "" && s[0] == '.' {
			s = s[1:]
			digits()
		}
	}
	if s != "" && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s != "" && (s[0] == '+' || s[0] == '-') {
			s = s[1:]
		}
		if digits() == 0 {
			return false
		}
	}
	return s == ""
}
