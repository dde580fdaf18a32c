package policyversion

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	yaml "go.yaml.in/yaml/v3"
)

// How the gateway-controller reads a definition file (loadPolicyFile in
// pkg/utils/policy_loader.go at 1c84e11c): a .json file is decoded with
// encoding/json straight into models.PolicyDefinition; a .yaml or .yml
// file is decoded into a map, marshalled to JSON (keys sorted) and decoded
// the same way. Either way encoding/json matches a key to a field without
// regard to case, a later matching key overriding an earlier one, and a
// value of the wrong JSON type fails the file — and with it the loader,
// so the controller does not start. Every .json file under the
// definitions directory is loaded as a definition, like
// policy-definition.yaml.

// isJSONFile reports whether the controller decodes path as JSON.
func isJSONFile(path string) bool { return strings.EqualFold(filepath.Ext(path), ".json") }

// controllerDefinition is the shape the controller decodes a definition
// into (models.PolicyDefinition): what it cannot decode into this, it
// refuses.
type controllerDefinition struct {
	Name             string          `json:"name"`
	Version          string          `json:"version"`
	DisplayName      string          `json:"displayName"`
	Description      *string         `json:"description"`
	Parameters       *map[string]any `json:"parameters"`
	SystemParameters *map[string]any `json:"systemParameters"`
	ManagedBy        string          `json:"managedBy"`
}

// checkJSONDefinition refuses a .json file the controller's loader
// cannot decode, as a FILE:LINE:COL error: text that is not one JSON
// value, or a field of another JSON type than the controller reads.
func checkJSONDefinition(file string, data []byte) error {
	var def controllerDefinition
	err := json.Unmarshal(data, &def)
	if err == nil {
		return nil
	}
	const refused = "; the gateway-controller's policy loader refuses the file and the controller does not start"
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		// Offset counts the bytes read, the offending one included.
		pos := offsetPos(file, data, se.Offset-1)
		return diag.Errorf(diag.Invalid, "%s: not valid JSON: %v%s", pos, se, refused)
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		pos := offsetPos(file, data, te.Offset)
		if te.Field == "" {
			return diag.Errorf(diag.Invalid, "%s: a policy definition must be a JSON object with name and version, found a JSON %s%s", pos, te.Value, refused)
		}
		if at := jsonFieldPos(file, data, te.Field); at.Line > 0 {
			pos = at
		}
		return diag.Errorf(diag.Invalid, "%s: %s is a JSON %s, where the controller reads %s%s", pos, te.Field, te.Value, jsonTypeName(te.Field), refused)
	}
	return diag.Errorf(diag.Invalid, "%s: %v%s", file, err, refused)
}

// controllerFields are the fields of controllerDefinition, each with
// whether the controller reads it as an object (else as a string).
var controllerFields = []struct {
	name   string
	object bool
}{{"name", false}, {"version", false}, {"displayName", false}, {"description", false},
	{"parameters", true}, {"systemParameters", true}, {"managedBy", false}}

// checkYAMLDefinition refuses a YAML definition the controller's loader
// cannot decode: it reads the document into a map, marshals it to JSON
// and decodes that into models.PolicyDefinition, so a field of the wrong
// JSON type — a number, boolean, list or map where it reads a string
// (`version: 1.0`, `name: true`), anything but a map where it reads a
// JSON Schema — fails the file as it does in a .json file (a timestamp
// is marshalled as a string; null leaves the field unset). Every key
// that matches a field without regard to case is decoded into it, so
// each is checked, not only the one that wins.
func checkYAMLDefinition(file string, doc *yaml.Node) error {
	doc = manifest.Resolve(doc)
	for _, f := range controllerFields {
		values := []*yaml.Node{}
		for i := 0; i+1 < len(doc.Content); i += 2 {
			if k := manifest.Resolve(doc.Content[i]); k.Value != "<<" && strings.EqualFold(k.Value, f.name) {
				values = append(values, doc.Content[i+1])
			}
		}
		if v, k := controllerField(doc, f.name, false); k != nil && v != nil {
			values = append(values, v) // a key only a merge (<<) brings in
		}
		for _, v := range values {
			got := yamlJSONType(v)
			if got == "null" || (f.object && got == "object") || (!f.object && got == "string") {
				continue
			}
			return diag.Errorf(diag.Invalid, "%s: %s is a YAML value the controller marshals as a JSON %s, where it reads %s; the gateway-controller's policy loader refuses the file and the controller does not start",
				manifest.NodePos(file, v), f.name, got, jsonTypeName(f.name))
		}
	}
	return nil
}

// yamlJSONType is the JSON type the controller's yaml.v3 decoding and
// json.Marshal give a node.
func yamlJSONType(n *yaml.Node) string {
	n = manifest.Resolve(n)
	switch n.Kind {
	case yaml.MappingNode:
		return "object"
	case yaml.SequenceNode:
		return "array"
	}
	switch n.ShortTag() {
	case "!!null":
		return "null"
	case "!!int", "!!float":
		return "number"
	case "!!bool":
		return "boolean"
	}
	return "string" // !!str, !!timestamp (time.Time marshals as text), !!binary
}

// jsonTypeName says what the controller reads a top-level field as.
func jsonTypeName(field string) string {
	switch field {
	case "parameters", "systemParameters":
		return "an object (a JSON Schema)"
	}
	return "a string"
}

// offsetPos is the line and column of a byte offset in data.
func offsetPos(file string, data []byte, off int64) diag.Position {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return diag.Position{File: file, Line: line, Col: col}
}

// jsonFieldPos is where a top-level field's value sits (the zero
// position when it cannot be found).
func jsonFieldPos(file string, data []byte, field string) diag.Position {
	docs, err := parseDocs(file, data)
	if err != nil || len(docs) != 1 {
		return diag.Position{}
	}
	if v, _ := controllerField(docs[0], field, true); v != nil {
		return manifest.NodePos(file, v)
	}
	return diag.Position{}
}

// controllerField is the value of field in mapping n as encoding/json
// assigns it: of the keys that equal field without regard to case, the
// last — in document order for a JSON file, in sorted order for YAML
// (the controller marshals the YAML's map to JSON, which sorts its keys).
// Merge keys and aliases are resolved as manifest.Field resolves them.
func controllerField(n *yaml.Node, field string, jsonOrder bool) (val, key *yaml.Node) {
	n = manifest.Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	var bestKey string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := manifest.Resolve(n.Content[i])
		if k.Value == "<<" || !strings.EqualFold(k.Value, field) {
			continue
		}
		if key == nil || jsonOrder || k.Value >= bestKey {
			val, key, bestKey = manifest.Resolve(n.Content[i+1]), n.Content[i], k.Value
		}
	}
	if key == nil {
		// A key only a merge (<<) brings in.
		return manifest.Field(n, field)
	}
	return val, key
}
