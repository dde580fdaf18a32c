package inert

import (
	"encoding/binary"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escaped reports whether String escapes r: C0 controls, DEL, C1
// controls, the Unicode bidi controls (U+061C, U+200E, U+200F,
// U+202A–U+202E, U+2066–U+2069) and the line and paragraph separators
// U+2028 and U+2029.
func Escaped(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x2028 && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// String is s with every rune Escaped reports written as a Go escape
// (\r, \a, \x1b, \u202e…) and every byte that is not UTF-8 as \xNN: what
// it returns prints as text, whatever s holds. Backslashes are left as
// they are (regular expressions and Windows paths stay readable), so the
// escapes are for a reader, not for decoding. s is returned as it is,
// without copying, when there is nothing to escape.
func String(s string) string { return escape(s, false) }

// Lines is String for a block of text: newlines and tabs stay, every
// other rune String escapes is escaped.
func Lines(s string) string { return escape(s, true) }

func escape(s string, lines bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x80 || c < 0x20 || c == 0x7f {
			break
		}
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case lines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case Escaped(r):
			b.WriteString(escapeRune(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// escapeRune is r as Go writes it in a quoted string: \n, \x1b, \u202e.
func escapeRune(r rune) string {
	q := strconv.QuoteRuneToASCII(r) // '\x1b'
	return q[1 : len(q)-1]
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

// JSON is JSON text with every rune Escaped reports that encoding/json
// leaves raw (DEL, C1 controls, bidi controls) written as a \uXXXX
// escape: the same JSON value, inert in a terminal. Such runes can only
// be inside strings, where \u escapes mean them.
func JSON(b []byte) []byte { return jsonEscape(b, `\u`) }

// JSONForYAML is JSON with those runes written as the text \uXXXX (an
// escaped backslash): YAML has escapes only in double-quoted scalars, and
// a YAML emitter writes some of these runes raw and refuses others, so
// the YAML made from it shows them as escapes instead of carrying them.
func JSONForYAML(b []byte) []byte { return jsonEscape(b, `\\u`) }

func jsonEscape(b []byte, prefix string) []byte {
	i := plainPrefix(b)
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError && r >= 0x7f && Escaped(r) {
			out = append(out, prefix...)
			out = append(out, hex4(r)...)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// plainPrefix is the length of b's longest prefix of bytes below DEL
// (0x7f), which jsonEscape copies as they are. It looks at eight bytes at
// a time: rendered output is almost all ASCII and runs to gigabytes. In a
// word x, ((x + 0x01…01) | x) has a byte's high bit set exactly where
// that byte is 0x7f or above, or follows such a byte (a carry out of
// 0xff): the first set high bit is always at the first such byte.
func plainPrefix(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if ((x+ones)|x)&highs != 0 {
			break
		}
	}
	for i < len(b) && b[i] < 0x7f {
		i++
	}
	return i
}

func hex4(r rune) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[r>>12&0xf], digits[r>>8&0xf], digits[r>>4&0xf], digits[r&0xf]})
}

// JSONWriter is JSON for a stream: what is written to it reaches w with
// those runes escaped. A rune split across writes is held until it is
// whole; Close writes what is held.
type JSONWriter struct {
	w       io.Writer
	pending []byte
}

// NewJSONWriter returns a JSONWriter writing to w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

// Write escapes p (with what an earlier write left incomplete) up to its
// last whole rune and writes it.
func (j *JSONWriter) Write(p []byte) (int, error) {
	buf := p // most writes end on a whole rune: p is escaped as it is
	if len(j.pending) > 0 {
		buf = append(j.pending, p...)
	}
	cut := len(buf)
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	out := jsonEscape(buf[:cut], `\u`)
	_, err := j.w.Write(out)
	j.pending = append([]byte(nil), buf[cut:]...)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close writes what is held (an incomplete rune at the end: written as
// it is).
func (j *JSONWriter) Close() error {
	if len(j.pending) == 0 {
		return nil
	}
	_, err := j.w.Write(j.pending)
	j.pending = nil
	return err
}
