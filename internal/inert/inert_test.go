package inert

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"gw":                              "gw",
		"gw\r\x1b[2K\x1b[1A\x1b[32mAll":   `gw\r\x1b[2K\x1b[1A\x1b[32mAll`,
		"a\x07b\x00c\x7fd":                `a\ab\x00c\x7fd`,
		"evil\u202ecod.exe":               `evil\u202ecod.exe`,
		"\u2066x\u2069\u200e\u200f\u061c": `\u2066x\u2069\u200e\u200f\u061c`,
		"c1\u009b31m\u0085":               `c1\u009b31m\u0085`,
		"bad\xff\xc3":                     `bad\xff\xc3`,
		"tab\tnl\n":                       `tab\tnl\n`,
		"ünïcödé ✓ 日本":                    "ünïcödé ✓ 日本",
		`back\slash`:                      `back\slash`,
		"line\u2028sep":                   `line\u2028sep`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Lines("a\n\tb\x1b\r\n"); got != "a\n\tb\\x1b\\r\n" {
		t.Errorf("Lines = %q", got)
	}
}

func TestJSON(t *testing.T) {
	v := map[string]string{"k": "a\u202eb\x7fc\u0085d\x1be"}
	raw, _ := json.Marshal(v)
	got := JSON(raw)
	if !safe(string(got)) {
		t.Errorf("JSON left a control raw: %q", got)
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["k"] != v["k"] {
		t.Errorf("JSON changed the value: %q %v", back["k"], err)
	}
	forYAML := JSONForYAML(raw)
	// C0 controls stay JSON escapes (a YAML emitter escapes those).
	if err := json.Unmarshal(forYAML, &back); err != nil || !safe(strings.ReplaceAll(back["k"], "\x1b", "")) || !strings.Contains(back["k"], `\u202e`) {
		t.Errorf("JSONForYAML: %q %v", back["k"], err)
	}
}

// safe reports whether s holds no rune String escapes but newline.
func safe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != '\n' && Escaped(r) {
			return false
		}
	}
	return true
}

// FuzzString: whatever the input, String's output is valid UTF-8 with no
// rune it escapes, Lines' keeps only newlines and tabs of them, both are
// the input when it has nothing to escape, and neither loses a printable
// rune (the output without escapes still holds every rune of the input
// that needs none).
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "gw", "gw\r\x1b[2K\x1b[32mAll clear\x1b[0m", "\u202e\u2066\x00\x07", "\xff\xfe\xc3", "日本\u0085\u009b", `\x1b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if !utf8.ValidString(out) {
			t.Fatalf("String(%q) = %q: not UTF-8", s, out)
		}
		for _, r := range out {
			if Escaped(r) {
				t.Fatalf("String(%q) = %q: %U raw", s, out, r)
			}
		}
		for _, r := range Lines(s) {
			if Escaped(r) && r != '\n' && r != '\t' {
				t.Fatalf("Lines(%q): %U raw", s, r)
			}
		}
		clean := true
		for _, r := range s {
			if Escaped(r) || r == utf8.RuneError {
				clean = false
			}
		}
		if clean && utf8.ValidString(s) && out != s {
			t.Fatalf("String(%q) = %q: changed text with nothing to escape", s, out)
		}
		var kept strings.Builder
		for _, r := range s {
			if !Escaped(r) && r != utf8.RuneError {
				kept.WriteRune(r)
			}
		}
		if !containsInOrder(out, kept.String()) {
			t.Fatalf("String(%q) = %q lost text", s, out)
		}
		b, _ := json.Marshal(s)
		j := JSON(b)
		var back string
		if err := json.Unmarshal(j, &back); err != nil {
			t.Fatalf("JSON(%s) = %s: %v", b, j, err)
		}
		var orig string
		_ = json.Unmarshal(b, &orig)
		if back != orig || !safe(strings.ReplaceAll(string(j), "\n", "")) {
			t.Fatalf("JSON(%s) = %s", b, j)
		}
		// The stream writer, fed in pieces that split runes, writes the same.
		var streamed bytes.Buffer
		jw := NewJSONWriter(&streamed)
		for i, step := 0, 1; i < len(b); i, step = i+step, step%5+1 {
			if _, err := jw.Write(b[i:min(i+step, len(b))]); err != nil {
				t.Fatal(err)
			}
		}
		if err := jw.Close(); err != nil || !bytes.Equal(streamed.Bytes(), j) {
			t.Fatalf("JSONWriter wrote %s, JSON %s", streamed.Bytes(), j)
		}
	})
}

// containsInOrder reports whether the runes of sub appear in s in order.
func containsInOrder(s, sub string) bool {
	for _, r := range sub {
		i := strings.IndexRune(s, r)
		if i < 0 {
			return false
		}
		s = s[i+utf8.RuneLen(r):]
	}
	return true
}

// plainPrefixBytewise is plainPrefix a byte at a time.
func plainPrefixBytewise(b []byte) int {
	i := 0
	for i < len(b) && b[i] < 0x7f {
		i++
	}
	return i
}

// TestPlainPrefix holds the word-at-a-time scan to the bytewise one with
// each byte value at each offset of a word and across words.
func TestPlainPrefix(t *testing.T) {
	for n := range 20 {
		for at := range n {
			for c := range 256 {
				b := []byte(strings.Repeat("a", n))
				b[at] = byte(c)
				if got, want := plainPrefix(b), plainPrefixBytewise(b); got != want {
					t.Fatalf("len %d, byte %#x at %d: %d, want %d", n, c, at, got, want)
				}
			}
		}
	}
}

// FuzzPlainPrefix checks plainPrefix on arbitrary bytes.
func FuzzPlainPrefix(f *testing.F) {
	for _, s := range []string{"", "abc", "0123456789abcdef\x7f", "héllo wörld, long enough", "\xff\xff\xff\xff\xff\xff\xff\x7e"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := plainPrefix(b), plainPrefixBytewise(b); got != want {
			t.Fatalf("%q: %d, want %d", b, got, want)
		}
	})
}

// BenchmarkPlainPrefix scans a megabyte of ASCII, as most rendered
// output is, word-wise and bytewise.
func BenchmarkPlainPrefix(b *testing.B) {
	data := []byte(strings.Repeat(`{"name": "kube_team-1_svc-1-a_8080", "connect_timeout": "2s"}`+"\n", 1<<14))
	b.Run("words", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			plainPrefix(data)
		}
	})
	b.Run("bytes", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			plainPrefixBytewise(data)
		}
	})
}
