package xdsjson

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/gwpol/gwpol/internal/inert"
)

// ToYAML transcodes a JSON document, as the writer produces it, into
// block-style YAML as it reads it: keys keep their order (proto field
// order, as in the JSON output), nothing is held but the current line.
// Going through generic maps (sigs.k8s.io/yaml) took ten times as long as
// rendering a large platform, twice its memory, and sorted every key.
//
// Strings are written plain only when YAML cannot read them as anything
// else; otherwise double-quoted, with JSON's escapes, which YAML shares.
func ToYAML(dst io.Writer, src io.Reader) error {
	t := &transcoder{in: bufio.NewReaderSize(src, 1<<16), out: bufio.NewWriterSize(dst, 1<<16)}
	if err := t.value(0, ctxTop); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("%w: %w", ErrTranscode, err)
	}
	if c, err := t.peek(); err != io.EOF {
		return fmt.Errorf("%w: %q after the document", ErrTranscode, c)
	}
	if err := t.out.WriteByte('\n'); err != nil {
		return err
	}
	return t.out.Flush() // the first write error, if any (bufio keeps it)
}

// ErrTranscode marks a document the transcoder could not read, as opposed
// to an output it could not write.
var ErrTranscode = errors.New("json to yaml")

type transcoder struct {
	in  *bufio.Reader
	out *bufio.Writer
	raw []byte // the string being read
}

// Where a value sits, which decides how a collection starts.
const (
	ctxTop  = iota // the document
	ctxKey         // after "key:"
	ctxItem        // after "- "
)

func (t *transcoder) peek() (byte, error) {
	for {
		c, err := t.in.ReadByte()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c, t.in.UnreadByte()
	}
}

func (t *transcoder) next() (byte, error) {
	if _, err := t.peek(); err != nil {
		return 0, err
	}
	return t.in.ReadByte()
}

func (t *transcoder) expect(want byte) error {
	c, err := t.next()
	if err != nil {
		return err
	}
	if c != want {
		return fmt.Errorf("want %q, got %q", want, c)
	}
	return nil
}

func (t *transcoder) indent(n int) {
	t.out.WriteByte('\n')
	for range n {
		t.out.WriteString("  ")
	}
}

// value transcodes one JSON value whose collection content sits at
// indentation level depth.
func (t *transcoder) value(depth int, ctx int) error {
	c, err := t.peek()
	if err != nil {
		return err
	}
	switch c {
	case '{':
		return t.object(depth, ctx)
	case '[':
		return t.array(depth, ctx)
	case '"':
		s, err := t.str()
		if err != nil {
			return err
		}
		t.space(ctx)
		t.scalar(s)
		return nil
	}
	lit, err := t.literal()
	if err != nil {
		return err
	}
	t.space(ctx)
	t.out.WriteString(lit)
	return nil
}

// space separates an inline value from its "key:".
func (t *transcoder) space(ctx int) {
	if ctx == ctxKey {
		t.out.WriteByte(' ')
	}
}

func (t *transcoder) object(depth int, ctx int) error {
	t.in.ReadByte() // '{'
	if c, err := t.peek(); err != nil {
		return err
	} else if c == '}' {
		t.in.ReadByte()
		t.space(ctx)
		t.out.WriteString("{}")
		return nil
	}
	for i := 0; ; i++ {
		// The first key of an item (or of the document) follows its
		// "- "; every other key starts a line.
		if i > 0 || ctx == ctxKey {
			t.indent(depth)
		}
		key, err := t.str()
		if err != nil {
			return err
		}
		if err := t.expect(':'); err != nil {
			return err
		}
		if k := scalarText(key); len(k) > maxImplicitKey {
			// "? key" on a line of its own, ": value" on the next, at
			// the key's indentation
			t.out.WriteString("? ")
			t.out.WriteString(k)
			t.indent(depth)
		} else {
			t.out.WriteString(k)
		}
		t.out.WriteByte(':')
		if err := t.value(depth+1, ctxKey); err != nil {
			return err
		}
		c, err := t.next()
		if err != nil {
			return err
		}
		if c == '}' {
			return nil
		}
		if c != ',' {
			return fmt.Errorf("want ',' or '}', got %q", c)
		}
	}
}

// array writes a sequence the way go-yaml does: its dashes at the
// indentation of the key that holds it.
func (t *transcoder) array(depth int, ctx int) error {
	t.in.ReadByte() // '['
	if c, err := t.peek(); err != nil {
		return err
	} else if c == ']' {
		t.in.ReadByte()
		t.space(ctx)
		t.out.WriteString("[]")
		return nil
	}
	if ctx == ctxKey {
		depth-- // "key:\n- item", not indented under the key
	}
	for i := 0; ; i++ {
		if i > 0 || ctx == ctxKey {
			t.indent(depth)
		}
		t.out.WriteString("- ")
		if err := t.value(depth+1, ctxItem); err != nil {
			return err
		}
		c, err := t.next()
		if err != nil {
			return err
		}
		if c == ']' {
			return nil
		}
		if c != ',' {
			return fmt.Errorf("want ',' or ']', got %q", c)
		}
	}
}

// literal reads a number, true, false or null.
func (t *transcoder) literal() (string, error) {
	var b strings.Builder
	for {
		c, err := t.in.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			t.in.UnreadByte()
			break
		}
		b.WriteByte(c)
	}
	if b.Len() == 0 {
		return "", errors.New("empty value")
	}
	return b.String(), nil
}

// str reads a JSON string. Strings with escapes go through encoding/json,
// which knows every JSON escape (surrogate pairs, \/, \b, \f), so any
// valid JSON reads as JSON readers read it.
func (t *transcoder) str() (string, error) {
	if err := t.expect('"'); err != nil {
		return "", err
	}
	t.raw = t.raw[:0]
	escapes, escaped := false, false
	for {
		c, err := t.in.ReadByte()
		if err != nil {
			return "", err
		}
		if escaped {
			escaped = false
		} else if c == '\\' {
			escaped, escapes = true, true
		} else if c == '"' {
			break
		}
		t.raw = append(t.raw, c)
	}
	if !escapes {
		return string(t.raw), nil
	}
	var s string
	t.raw = append(append([]byte{'"'}, t.raw...), '"')
	if err := json.Unmarshal(t.raw, &s); err != nil {
		return "", err
	}
	return s, nil
}

// scalar writes a string, plain when that reads back as the same string.
func (t *transcoder) scalar(s string) {
	t.out.WriteString(scalarText(s))
}

// scalarText is s as a YAML scalar: plain when that reads back as the
// same string, else quoted.
func scalarText(s string) string {
	if plainSafe(s) {
		return s
	}
	return quoteYAML(s)
}

// maxImplicitKey is the longest a mapping key may be written as "key:":
// YAML readers (libyaml and the go-yaml readers Kubernetes tooling uses)
// take a key as one only when its ':' follows within 1024 characters.
// A longer key is written as an explicit one ("? key", then ": value"),
// as go-yaml's writer does.
const maxImplicitKey = 1024

// plainSafe reports whether s can be written unquoted: only characters
// with no meaning to YAML, not starting like an indicator, and not a
// word or number YAML 1.1 (which Kubernetes tooling reads) would type.
func plainSafe(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '_' || c == '/' || c == '.' || c == '~' || c == '@' || c == '+' || c == '=' || c == '$' || c == '^' || c == '(' || c == ')':
			if i == 0 && (c == '@' || c == '~') {
				return false
			}
		case c == '-' || c == ':':
			if i == 0 || i == len(s)-1 {
				return false
			}
		case c == ' ':
			if i == 0 || i == len(s)-1 || s[i-1] == ':' {
				return false
			}
		default:
			return false
		}
	}
	if c := s[0]; '0' <= c && c <= '9' || c == '.' || c == '+' || c == '-' {
		// Numbers, dates, times, .inf/.nan are quoted whatever they are;
		// durations ("5s", "1.5s", "100ms"), most of what starts with a
		// digit here, need not be.
		return isDuration(s)
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null":
		return false
	}
	return !strings.Contains(s, " #")
}

// quoteYAML is s double-quoted with JSON's escapes (valid in YAML), and
// every rune outside YAML 1.2's printable set escaped, as well as those a
// YAML 1.1 reader takes for a line break (NEL, LS, PS) or a byte-order
// mark: a reader may refuse them raw, but reads every \u escape.
func quoteYAML(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// needsEscape reports whether r may not appear raw in a double-quoted
// scalar: C0, DEL, C1 (NEL among them), surrogates, LS/PS, the BOM, the
// non-characters U+FFFE/U+FFFF, the replacement rune an invalid byte
// decodes to (written as the rune JSON readers read there), and the bidi
// controls inert escapes.
func needsEscape(r rune) bool {
	switch {
	case r < 0x20, 0x7f <= r && r <= 0x9f:
		return true
	case 0xd800 <= r && r <= 0xdfff, r == 0x2028, r == 0x2029, r == 0xfeff:
		return true
	case r == 0xfffe, r == 0xffff, r == utf8.RuneError:
		return true
	case inert.Escaped(r): // bidi controls: a terminal would reorder the text
		return true
	}
	return false
}

// isDuration matches protojson durations and Go-style ones: digits, an
// optional fraction, then a unit.
func isDuration(s string) bool {
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		if j == i+1 {
			return false
		}
		i = j
	}
	switch s[i:] {
	case "s", "ms", "us", "ns", "m", "h":
		return true
	}
	return false
}
