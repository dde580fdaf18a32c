// Package xdsjsontest holds the references the xdsjson writers are checked
// against (protojson for the JSON writer, sigs.k8s.io/yaml for the YAML
// transcoder), shared by xdsjson's own tests and render/envoy's tests over
// rendered resources. It is no stage of the pipeline: tests import it,
// and it imports xdsjson.
package xdsjsontest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"sigs.k8s.io/yaml"

	"github.com/gwpol/gwpol/internal/render/xdsjson"
)

// Protojson is what the writer must reproduce: protojson with proto names,
// indented by json.Indent at depth (or compacted).
func Protojson(m proto.Message, indent bool, depth int) (string, error) {
	raw, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if indent {
		err = json.Indent(&b, raw, strings.Repeat("  ", depth), "  ")
	} else {
		err = json.Compact(&b, raw)
	}
	return b.String(), err
}

// Written is m as xdsjson.Writer writes it.
func Written(m proto.Message, indent bool, depth int) (string, error) {
	w := xdsjson.Writer{Indent: indent, Depth: depth}
	err := w.Message(m.ProtoReflect())
	return string(w.Buf), err
}

// WrittenTyped is m as a writer with typed writers writes it.
func WrittenTyped(m proto.Message, indent bool, depth int, typed xdsjson.Typed) (string, error) {
	w := xdsjson.Writer{Indent: indent, Depth: depth, Typed: typed}
	err := w.Message(m.ProtoReflect())
	return string(w.Buf), err
}

// AssertTypedSameAsReflective checks a writer with typed writers against
// the reflective writer and protojson on m, indented and compact, at
// depth 0 and deeper: the same text (byte for byte), or an error from
// all three (the same error from both writers).
func AssertTypedSameAsReflective(t testing.TB, name string, m proto.Message, typed xdsjson.Typed) {
	t.Helper()
	AssertSameAsProtojson(t, name, m)
	for _, indent := range []bool{true, false} {
		for _, depth := range []int{0, 3} {
			want, werr := Written(m, indent, depth)
			got, gerr := WrittenTyped(m, indent, depth, typed)
			if (werr != nil) != (gerr != nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Errorf("%s (indent %v): reflective writer error %v, typed writer error %v", name, indent, werr, gerr)
				continue
			}
			if werr == nil && got != want {
				t.Errorf("%s (indent %v, depth %d): typed writer output differs from the reflective writer's\n got: %s\nwant: %s", name, indent, depth, got, want)
			}
		}
	}
}

// AssertSameAsProtojson checks the writer against protojson on m,
// indented and compact, at depth 0 and deeper: the same text, or an error
// from both.
func AssertSameAsProtojson(t testing.TB, name string, m proto.Message) {
	t.Helper()
	for _, indent := range []bool{true, false} {
		for _, depth := range []int{0, 3} {
			want, werr := Protojson(m, indent, depth)
			got, gerr := Written(m, indent, depth)
			if (werr != nil) != (gerr != nil) {
				t.Errorf("%s (indent %v): protojson error %v, writer error %v", name, indent, werr, gerr)
				continue
			}
			if werr == nil && got != want {
				t.Errorf("%s (indent %v, depth %d): writer output differs from protojson\n got: %s\nwant: %s", name, indent, depth, got, want)
			}
		}
	}
}

// SameData asserts that YAML, read as Kubernetes tooling reads it
// (sigs.k8s.io/yaml, YAML 1.1), holds exactly the JSON document.
func SameData(t testing.TB, name string, js, ym []byte) {
	t.Helper()
	fromYAML, err := yaml.YAMLToJSON(ym)
	if err != nil {
		t.Fatalf("%s: YAML output does not parse: %v\n%s", name, err, ym)
	}
	var want, got any
	if err := json.Unmarshal(js, &want); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := json.Unmarshal(fromYAML, &got); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: YAML output reads back differently (-json +yaml):\n%s", name, diff)
	}
}
