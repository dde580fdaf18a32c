package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	envoygateway "github.com/envoyproxy/gateway"
	"github.com/gwpol/gwpol/internal/benchgen"
	yaml "go.yaml.in/yaml/v3"
)

// The fast reader's differential test: on every YAML and JSON file of the
// corpora, the formats and the test data, and on generated platforms, the
// documents eachDocument hands over must be the library's, node for node, or
// it must have fallen back for a library error. The fuzz target does the
// same on arbitrary input.

// fastYAMLInputs are the directories whose YAML and JSON files the
// differential test reads (relative to this package).
var fastYAMLInputs = []string{"../../../shared/conformance", "../../../shared/formats", "../../testdata", "testdata", "../../docs"}

// sameNode reports where two trees first differ ("" when they do not), by
// everything but comments.
func sameNode(path string, a, b *yaml.Node) string {
	if a == nil || b == nil {
		if a != b {
			return fmt.Sprintf("%s: one is nil", path)
		}
		return ""
	}
	if a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) {
		return fmt.Sprintf("%s: fast {kind %v style %v tag %q value %q anchor %q at %d:%d, %d children} library {kind %v style %v tag %q value %q anchor %q at %d:%d, %d children}",
			path, a.Kind, a.Style, a.Tag, a.Value, a.Anchor, a.Line, a.Column, len(a.Content),
			b.Kind, b.Style, b.Tag, b.Value, b.Anchor, b.Line, b.Column, len(b.Content))
	}
	if (a.Alias == nil) != (b.Alias == nil) || a.Alias != nil && (a.Alias.Line != b.Alias.Line || a.Alias.Column != b.Alias.Column) {
		return fmt.Sprintf("%s: aliases differ", path)
	}
	for i := range a.Content {
		if d := sameNode(fmt.Sprintf("%s/%d", path, i), a.Content[i], b.Content[i]); d != "" {
			return d
		}
	}
	return ""
}

// checkFastAgrees reads data through eachDocument and through the
// library alone, as eachDocument did before the fast reader, and returns
// how many pieces the fast reader took itself and the first disagreement:
// in the documents handed over (up to an error) or in the error.
func checkFastAgrees(data []byte) (fast int, problem string) {
	var want []*yaml.Node
	var wantErr error
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			wantErr = parseError("in.yaml", chunk{data: data}, err)
			break
		}
		want = append(want, &doc)
	}
	// Every other document is given back for recycling once compared, as
	// a loader gives back the trees it released: each must equal the
	// library's when handed over, and the ones kept must still equal it
	// after the later documents were built (in recycled nodes or not).
	var got []*yaml.Node
	var early string
	n := 0
	err := eachDocument("in.yaml", chunk{data: data}, string(data), func(doc *yaml.Node) (bool, error) {
		i := n
		n++
		if i >= len(want) {
			return false, nil
		}
		if d := sameNode(fmt.Sprintf("doc %d (handed over)", i), doc, want[i]); d != "" && early == "" {
			early = d
		}
		if i%2 == 1 {
			got = append(got, nil)
			return true, nil
		}
		got = append(got, doc)
		return false, nil
	})
	fast = fastPieces(data)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		return fast, fmt.Sprintf("error %v, library alone: %v", err, wantErr)
	}
	if n != len(want) {
		return fast, fmt.Sprintf("%d documents, library alone: %d", n, len(want))
	}
	if early != "" {
		return fast, early
	}
	for i := range got {
		if got[i] == nil {
			continue
		}
		if d := sameNode(fmt.Sprintf("doc %d (kept)", i), got[i], want[i]); d != "" {
			return fast, d
		}
	}
	return fast, ""
}

// fastPieces counts the pieces of data the fast reader takes itself.
func fastPieces(b []byte) int {
	data := string(b)
	var p fastParser
	n, line := 0, 1
	for start := 0; start < len(data); {
		end := nextDocStart(data, start)
		if _, ok := p.read(data[start:end], line); ok {
			n++
		}
		line += strings.Count(data[start:end], "\n")
		start = end
	}
	return n
}

func TestFastYAMLAgreesWithLibrary(t *testing.T) {
	files, pieces, fast := 0, 0, 0
	for _, dir := range fastYAMLInputs {
		if _, err := os.Stat(dir); err != nil {
			if strings.Contains(dir, "shared") {
				t.Logf("%s: not beside the repository; skipped", dir)
				continue
			}
			t.Fatal(err)
		}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".yaml", ".yml", ".json":
			default:
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			n, problem := checkFastAgrees(data)
			if problem != "" {
				t.Errorf("%s: %s", path, problem)
			}
			fast += n
			for text, start := string(data), 0; start < len(text); start = nextDocStart(text, start) {
				pieces++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d files, %d pieces, %d read by the fast reader", files, pieces, fast)
}

// TestFastYAMLReadsGeneratedPlatforms checks the generated platforms the
// benchmarks use: every document agrees, and the fast reader reads all of
// them itself (a platform it declined would measure nothing).
func TestFastYAMLReadsGeneratedPlatforms(t *testing.T) {
	for name, data := range map[string][]byte{
		"kgateway":     benchgen.Platform(300),
		"envoygateway": benchgen.PlatformEnvoyGateway(300),
	} {
		n, problem := checkFastAgrees(data)
		if problem != "" {
			t.Errorf("%s: %s", name, problem)
		}
		pieces := 0
		for text, start := string(data), 0; start < len(text); start = nextDocStart(text, start) {
			pieces++
		}
		if n != pieces {
			t.Errorf("%s: the fast reader read %d of %d documents", name, n, pieces)
		}
	}
}

// fastYAMLCases are small inputs at the edges of the fast reader's part of
// YAML, each checked against the library.
var fastYAMLCases = []string{
	"", "\n", "# only a comment\n", "---\n", "---", "---\n---\n", "--- # c\na: 1\n", "a: 1\n---\n", "a: 1\n---",
	"a: 1", "a: 1\nb:\n", "a:\nb: 2\n", "a:   \nb: 2\n", "a: # c\n  b: 1\n", "a:\n  # c\n  b: 1\n",
	"a:\n- 1\n- 2\nb: 3\n", "a:\n  - 1\n  - 2\n", "- a: 1\n  b: 2\n- c\n", "- a:\n  - x\n  b: 1\n",
	"- - a\n", "-\n  a: 1\n", "- \n", "-\n", "a: -1\nb: -x\nc: - x\n", "a: b: c\n", "a: foo\n  bar\n",
	"a: foo\n\n  bar\n", "a: foo\n# c\n  bar\n", "- foo\n  bar\n", "a: foo #c\nb: x#y\n",
	"a: 'it''s'\nb: ''\nc: \"q\\\"\\n\\t\\u00e9\\x41\"\nd: \"\\/\"\ne: \"\\ud800\"\n",
	"'a': 1\n\"b\": 2\n\"c\":3\n", "a: 'x\n  y'\n", "a: \"x\n  y\"\n",
	"a: {b: 1, c: [x, y], d: {}}\ne: []\n", "a: {\"b\":1,\"c\":\"d\"}\n", "a: {b:1}\n", "a: [b: 1]\n", "a: [b, ]\n",
	"a: [b,\n  c]\n", "a: {b: }\n", "a: {b}\n", "a: [http://x, a:b]\n", "a: [a:, b]\n", "a: [a?b]\n", "a: {b: c} x\n",
	"a: [x] # c\n", "a: [x]# c\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "a: |\n  x\n", "a: >\n  x\n", "? a\n: b\n",
	"a: 1\n  b: 2\n", "  a: 1\n", "a:\n    b: 1\n  c: 2\n", "a: 1\n- b\n", "- a\nb: 1\n", "a: 1\n...\n", "%YAML 1.1\n---\na: 1\n",
	"a: 1\r\nb: 2\r\n", "a:\tb\n", "a: é\n", "\ufeffa: 1\n", "<<: {a: 1}\n", "a: <<\n",
	"v: [true, True, TRUE, yes, no, on, off, y, n, ~, null, Null, NULL, nULL]\n",
	"v: [1, -1, +1, 0x1F, 0o17, 017, 0b101, 1_000, 1e3, 1.5, .5, 5., -.5, +.inf, -.Inf, .nan, .NaN, .x, 1.2.3]\n",
	"v: [0b+1, 0o-7, -0b+1, -0o7, 9223372036854775808, 18446744073709551616, -9223372036854775809, 0x_1, 1__0, 1e, 1e+, +, -, 0x]\n",
	"v: [2001-12-14, 2001-12-14t21:59:43.10-05:00, 2001-12-14 21:59:43.10, 2001-1-2, 2001-13-45, 20011-1-1, 1:20]\n",
	"a: ---\nb: ...\n", "---x: 1\n", "---\n--- a\n", "a: 1\n---x\n", "a: 1\n--- \nb: 2\n",
	"a: [[1, 2], {b: [c]}]\n", "- {a: 1}\n- [b]\n- 'c'\n", "a: :x\nb: ?x\nc: x:y\n", "a: x::\n", "a: x:\n",
	"a: x : y\n", "a : b\n", "'a' : b\n", "a: [\"x\", 'y''z', \"\"]\n", "a: {'k': v}\n", "a: {k: 'v'}\n", "a: {'k':v}\n",
	"a: @x\n", "a: `x\n", "a: %x\n", "a: x%\n", "a: [x]]\n", "a: [x}\n", "a: {x: y]\n",
	"a:\n  b:\n    c: 1\n  d: 2\ne: 3\n", "a:\n  - b: 1\n    c: 2\n  - d\n", "a:\n- b:\n  - c\n  - d\n  e: f\n",
	"- a\n-\n- b\n", "a:\n -  b\n", "a: 1 # c\n# foot\n", "# head\na: 1\n", "\n\na: 1\n\n\n", "---\n\n\na: 1\n",
	"a: |\n  x\n  y\nb: 1\n", "a: |-\n  x\n\n", "a: |+\n  x\n\n\nb: 1\n", "a: >\n  x\n  y\n\n  z\n   w\n  v\n",
	"a: >-\n  x\n  # not a comment\n# a comment\nb: |\n\n  x\n", "- |\n  x\n- >+\n  y\n", "a: |\n  x", "a: >\n  x\n\n",
	"a: |2\n   x\n", "a: |\n  \n  x\n", "a: |\nb: 1\n", "a: |\n  x\n    y\n  z\n", "a:\n  b: |\n    x\n  c: 1\n",
	"a: | # c\n  x\n", "a: |#c\n  x\n", "a: |\n  x\n ...\n", "a: |\n  x\n...\n", "a: >\n x\n\n\n y\n", "a: |\n  x\n   \n",
	"0: {", "0\n--- \"", "00\r0\n---", // found by FuzzFastYAML
	// numbers and what only looks like one (notInNumber)
	"[10s, 1.5s, 100ms, 5m, 1h30m, 2Gi, 10Mi, 1e3, 1E3, 0x1F, 0X1f, 0o17, 0O17, 0b101, 0B101, -0b101, -0o7, 0x1p-2, 1_000, 0x_1F, +1, -1, +.5, -.5e-3, 1., +inf, -Infinity, +nan, 12:30, 1e, e1, 1_0s, 0xg, 09, 0b2, 1-2, 1+2, 1.2.3, -, +, 2020-01-01, 2020-1-2 3:4:5, 2020-01-01x]\n",
	"a: b\n---\n# c\n---\nc: d\n", "a: [1, 2]\n---\n- x\n", "{a: 1}\n", "[a, b]\n", "x\n", "\"x\"\n",
	// characters past ASCII: columns count characters, not bytes
	"a: {b: é, c: d}\n", "é: 1\nb: [ü, x]\n", "a: ['ñ''x', b]\n", "- ü\n- {a: 日本, b: c}\n", "日本: {語: [x, 😀, y]}\n",
	"a: |\n  ’quoted’ — text\nb: 1\n", "a: >-\n  ümlaut\n  more\nb: 1\n", "a: \"\\u00e9 é\" # é\nb: 1\n", "a: x\u00a0y\n",
	"a: x\u00a0: y\n", "a: é:x\nb: c\n", "a: [é: 1]\n", "é\n", "a: \ufeff\n", "a: x\ufeffy\n", "a: \u0085\n", "a: \u2028x\n", "a: \xff\n",
	"a: \xc3\n", "a: \ud7ff\ue000\ufffd\U00010000\n", "a: \u0080\u009f\n", "a: x\x7fy\n", "\"" + strings.Repeat("é", 600) + "\": 1\n",
	strings.Repeat("é", 900) + ": 1\n", "a: " + strings.Repeat("é", 1100) + "\n",
	// scalars over lines: plain and quoted values fold, keys and flow collections do not
	"a: foo\n  bar\n", "a: foo  \n   bar  baz  \n\n\n  qux\nb: 1\n", "- foo\n  bar\n- x\n", "a:\n  b: x\n   y\n  c: z\n",
	"a: x\n  - y\n  > 0\n  \"q\"\n  'r'\n  [s]\n  {t}\n  !u &v *w |x\n", "a: x\n  y: z\n", "a: x\n  y:\n", "a: x\n  y #c\n", "a: x\n  #c\n",
	"a: x\n  y:z\n  ---\n  ...\n", "a: x\n\n", "a: x\n  \n  y\n", "a: x\nb: y\n  z\n   w\nc: 1\n", "a: 1\n  2\n", "a: true\n  false\n",
	"a: x # c\n  y\n", "a: x\n  é ü\n", "- - x\n    y\n", "a:\n- x\n y\n", "a:\n- x\n  y\n", "x\ny\n", "x\n  y\n",
	"a: 'x\n  y'\n", "a: 'x  \n\n\n   y  '\n", "a: 'x\n'\n", "a: 'x\ny'\n", "a:\n  b: 'x\n  y'\n", "a:\n  b: 'x\n   y'\n", "a: 'it''s\n  ''x'''\n",
	"a: \"x\n  y\"\n", "a: \"x\\\n  y\"\n", "a: \"x\\\n\n  y\"\n", "a: \"x\\ \n  y\"\n", "a: \"x \\t\n  \\u00e9\"\n", "a: \"x\n---\n\"\n",
	"'a\n  b': 1\n", "\"a\n  b\": 1\n", "a: ['x\n  y']\n", "a: {b: \"x\n  y\"}\n", "- 'x\n  y'\n- \"z\n  w\"\n", "a: 'x\n  y' # c\nb: 1\n", "a: 'x\n  y' z\n",
	// block scalars with an indentation indicator, before or after the chomping one
	"a: |2\n   x\n  y\n", "a: |2-\n   x\nb: 1\n", "a: >-2\n  x\n  y\n", "a: |+1\n  x\n\n", "a: |0\n  x\n", "a: |10\n  x\n", "a: |2\n x\n", "a: |2\n\n  x\n",
	"a:\n  b: |2\n     x\n  c: 1\n", "- |1\n  x\n", "a: |-2-\n  x\n", "a: |22\n  x\n", "a: |3\n    x\n   y\n",
}

// TestFastYAMLReadsEnvoyGatewayCRDs checks the CRD bundle of Envoy
// Gateway's module, which the schema stage reads for the kinds it ships
// (their descriptions have characters past ASCII): every document
// agrees, and the fast reader reads all of them itself.
func TestFastYAMLReadsEnvoyGatewayCRDs(t *testing.T) {
	n, problem := checkFastAgrees(envoygateway.GatewayCRDs)
	if problem != "" {
		t.Fatal(problem)
	}
	pieces := 0
	for text, start := string(envoygateway.GatewayCRDs), 0; start < len(text); start = nextDocStart(text, start) {
		pieces++
	}
	if n != pieces {
		t.Errorf("the fast reader read %d of %d documents", n, pieces)
	}
}

func TestFastYAMLCases(t *testing.T) {
	for _, in := range fastYAMLCases {
		if _, problem := checkFastAgrees([]byte(in)); problem != "" {
			t.Errorf("%q: %s", in, problem)
		}
	}
}

// FuzzFastYAML holds the fast reader to the library on arbitrary input:
// equal documents, or a fall-back where the library fails.
func FuzzFastYAML(f *testing.F) {
	for _, in := range fastYAMLCases {
		f.Add([]byte(in))
	}
	f.Add(benchgen.Platform(3))
	f.Add(benchgen.PlatformEnvoyGateway(3))
	for _, pattern := range []string{"../../testdata/examples/*.yaml", "../../../shared/conformance/kgateway/more/*/input.yaml"} {
		files, _ := filepath.Glob(pattern)
		for i, file := range files {
			if i >= 40 {
				break
			}
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		if _, problem := checkFastAgrees(data); problem != "" {
			t.Fatalf("%q: %s", data, problem)
		}
	})
}

// BenchmarkFastYAML compares the fast reader (with its fall-backs, as
// eachDocument uses it) with the library alone on generated platforms;
// run with -benchmem for B/op.
func BenchmarkFastYAML(b *testing.B) {
	for _, routes := range []int{1000, 10000} {
		data := benchgen.Platform(routes)
		for _, recycle := range []bool{false, true} {
			name := "fast"
			if recycle {
				name = "fast-recycled" // every tree given back, as for released objects
			}
			b.Run(fmt.Sprintf("routes=%d/%s", routes, name), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				text := string(data)
				for b.Loop() {
					p := new(fastParser)
					docs, ok := p.chunkDocs(text)
					if !ok {
						b.Fatal("fell back")
					}
					for _, d := range docs {
						if d.lib == nil {
							if _, sl := p.build(d.span); recycle {
								p.spare.put(sl)
							}
						}
					}
				}
			})
		}
		b.Run(fmt.Sprintf("routes=%d/library", routes), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				dec := yaml.NewDecoder(bytes.NewReader(data))
				for {
					var doc yaml.Node
					if err := dec.Decode(&doc); err != nil {
						if !errors.Is(err, io.EOF) {
							b.Fatal(err)
						}
						break
					}
				}
			}
		})
	}
}
