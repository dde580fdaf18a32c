package xdsjson_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/render/xdsjson"
	"github.com/gwpol/gwpol/internal/render/xdsjson/xdsjsontest"
)

// TestYAMLScalars covers the strings YAML would read as something else,
// and every JSON value shape.
func TestYAMLScalars(t *testing.T) {
	strs := []string{"", "plain", "true", "False", "yes", "No", "on", "OFF", "y", "n", "null", "Null", "~", "1", "1.5", "-1", "+1", ".5",
		"1e3", "0x1F", "0o17", "0b101", "1:30", "2001-12-14", "2001-12-14t21:59:43.10-05:00", ".inf", "-.Inf", ".NaN", "5s", "1.5s", "100ms", "5sec",
		"@type", "`x", "&a", "*a", "!tag", "%d", "|", ">", "'q'", "\"dq\"", "#c", "a #c", "a# c", "- x", "-x", "x-", "a: b", "a:b", "a:", ":a",
		"? x", "[x]", "{x}", "x,y", " lead", "trail ", "tab\there", "new\nline", "cr\rx", "back\\slash", "ctl\x01", "del\x7f", "é ü 中", "\u2028", "\ufeffbom",
		// Issue 16: C1 controls (NEL among them), PS, non-characters, astral runes.
		"a\u0091b", "\u009e", "x\u0085y", "\u0080", "\u009f", "ps\u2029", "\ufffe", "\uffff", "\U0001F600", "\ufffd",
		// Issue 31: bidi controls.
		"evil\u202ecod", "\u2066x\u2069\u200e\u200f\u061c",
		"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router", "listener~80~r1_example_com", "max-age=60", "merge.gateway.kgateway.dev/TrafficPolicy",
		strings.Repeat("long ", 60)}
	doc := map[string]any{
		"strings": strs, "keys": map[string]any{}, "numbers": []any{0, -1, 1.5, 1e21, 1e-07}, "bools": []any{true, false}, "null": nil,
		"empty": map[string]any{"list": []any{}, "map": map[string]any{}}, "nested": []any{[]any{1, []any{2, 3}}, []any{}, map[string]any{"a": []any{map[string]any{"b": 1}}}},
	}
	keys := doc["keys"].(map[string]any)
	for i, s := range strs {
		keys[s] = i
	}
	js, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var ym bytes.Buffer
	if err := xdsjson.ToYAML(&ym, bytes.NewReader(js)); err != nil {
		t.Fatal(err)
	}
	xdsjsontest.SameData(t, "scalars", js, ym.Bytes())
}

func TestYAMLRefusesBrokenJSON(t *testing.T) {
	for _, in := range []string{"", "{", `{"a"}`, `{"a":1,}`, `[1 2]`, `{"a":"x`, `{"a":1}}`} {
		var out bytes.Buffer
		if err := xdsjson.ToYAML(&out, strings.NewReader(in)); err == nil {
			t.Errorf("%q: no error, wrote %q", in, out.String())
		}
	}
}

// TestYAMLLongKeys: a key longer than YAML readers take before its ':'
// (1024 characters) is written as an explicit key, wherever it sits and
// whatever its value; one that fits stays "key:".
func TestYAMLLongKeys(t *testing.T) {
	// a key over 200 characters is quoted: 1022 of them write 1024
	long, quoted := strings.Repeat("k", 1023), strings.Repeat(`é\u0001`, 200)
	for _, tt := range []struct{ name, in string }{
		{"fits", `{"` + strings.Repeat("k", 1022) + `":1}`},
		{"scalar value", `{"` + long + `":"v","next":2}`},
		{"object value", `{"a":{"` + long + `":{"x":{"y":true}},"z":null}}`},
		{"array value", `{"` + long + `":[1,[2],{"c":3}]}`},
		{"first key of an item", `[{"` + long + `":{}},{"` + long + `":[]}]`},
		{"quoted past the limit", `{"` + quoted + `":"v"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := xdsjson.ToYAML(&out, strings.NewReader(tt.in)); err != nil {
				t.Fatal(err)
			}
			xdsjsontest.SameData(t, tt.name, []byte(tt.in), out.Bytes())
			if explicit := strings.Contains(out.String(), "? "); explicit == (tt.name == "fits") {
				t.Errorf("explicit key written: %v\n%s", explicit, out.String())
			}
		})
	}
}

// FuzzJSONToYAML: whatever valid JSON it is given, the YAML parses (with
// sigs.k8s.io/yaml, as Kubernetes tooling reads it) and holds the same
// data; anything else is refused without a panic.
func FuzzJSONToYAML(f *testing.F) {
	for _, seed := range []string{`{"a":1}`, `[]`, `{"x":[{"y":{}},[],["z",null,true]]}`, `{"@type":"t","k":"5s","n":"1.5"}`, `"s"`, `{"a":"line\nbreak"}`,
		`{"v":"a\u0091b"}`, "{\"v\":\"a\u0091b\"}", `{"e":"\ud83d\ude00\/\b\f"}`, `{"lone":"\ud800"}`} {
		f.Add([]byte(seed))
	}
	// A key longer than a YAML reader takes as "key:" (1024 characters):
	// written so, the YAML did not parse (found by this target); now an
	// explicit "? key".
	f.Add([]byte(`{"` + strings.Repeat("K", 1100) + `":"v","b":[{"` + strings.Repeat("k", 1030) + `":{"x":[1]}}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		err := xdsjson.ToYAML(&out, bytes.NewReader(in))
		if !json.Valid(in) {
			return // not JSON: an error or not, only no panic
		}
		if err != nil {
			t.Fatalf("valid JSON refused: %v\n%s", err, in)
		}
		var want any
		if json.Unmarshal(in, &want) != nil {
			return // a number beyond float64: JSON, but no data to compare
		}
		if _, isNumber := want.(float64); isNumber {
			return // a bare number at the top: not a document the writer writes
		}
		xdsjsontest.SameData(t, "fuzz", in, out.Bytes())
	})
}
