package policyversion

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
)

// writeDefs writes files (path → content) under a fresh directory.
func writeDefs(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const corsYAML = `name: cors
version: v1.0.0
parameters:
  type: object
  properties:
    maxAge: {type: string}
`

// corsJSON is the next major of cors given as JSON, tab-indented as JSON
// editors write it, with a schema of its own.
const corsJSON = "{\n\t\"name\": \"cors\",\n\t\"version\": \"v2.0.0\",\n\t\"parameters\": {\n\t\t\"type\": \"object\",\n\t\t\"properties\": {\"maxAge\": {\"type\": \"integer\"}},\n\t\t\"additionalProperties\": false\n\t}\n}\n"

// TestJSONDefinitions: the gateway-controller loads every .json file of
// its definitions directory as a definition (LoadPoliciesFromDirectory),
// so a definition given as JSON takes part in version resolution and its
// parameters schema is the one params are validated against.
func TestJSONDefinitions(t *testing.T) {
	dir := writeDefs(t, map[string]string{
		"cors/policy-definition.yaml": corsYAML,
		"cors-v2.json":                corsJSON,
	})
	ds, diags, err := LoadDefinitions(dir)
	if err != nil || len(diags) != 0 {
		t.Fatalf("LoadDefinitions: %v %v", err, diags)
	}
	r := ds.Resolve("cors", "v2")
	if !r.OK() || r.Definition.Version != "v2.0.0" || filepath.Base(r.Definition.File) != "cors-v2.json" {
		t.Fatalf("cors v2 resolved to %+v", r)
	}
	if latest := ds.Resolve("cors", ""); !latest.OK() || latest.Definition != r.Definition {
		t.Errorf("a reference without a version resolved to %+v, want the JSON definition (the latest)", latest)
	}
	if r.Definition.Pos.Line != 3 {
		t.Errorf("version position %v, want line 3 of the JSON file", r.Definition.Pos)
	}
	if errs := r.Definition.ValidateParams(map[string]any{"maxAge": "600"}); len(errs) != 1 || !strings.Contains(errs[0].Message, "want integer") {
		t.Errorf("params checked against the JSON schema: %v", errs)
	}
	if errs := r.Definition.ValidateParams(map[string]any{"maxAge": 600}); len(errs) != 0 {
		t.Errorf("valid params refused: %v", errs)
	}
	// A single JSON file given as the definitions.
	one, _, err := LoadDefinitions(filepath.Join(dir, "cors-v2.json"))
	if err != nil || len(one.All()) != 1 {
		t.Errorf("single JSON file: %v %v", one.All(), err)
	}
}

// TestJSONDefinitionDuplicate: one name and version as YAML and as JSON
// is the loader's duplicate definition.
func TestJSONDefinitionDuplicate(t *testing.T) {
	dir := writeDefs(t, map[string]string{
		"a/policy-definition.yaml": corsYAML,
		"b.json":                   `{"name": "cors", "version": "v1.0.0"}`,
	})
	_, diags, err := LoadDefinitions(dir)
	if err != nil || len(diags) != 1 || diags[0].Code != LintAmbiguousMajor.Code || diags[0].Severity != diag.Error {
		t.Fatalf("got %v %v, want one GWP503 error", diags, err)
	}
}

// TestControllerKeyMatching: the controller decodes definitions with
// encoding/json, which matches keys without regard to case, a later key
// overriding an earlier one; YAML reaches it as a map marshalled to JSON,
// so there the keys come in sorted order.
func TestControllerKeyMatching(t *testing.T) {
	dir := writeDefs(t, map[string]string{
		"upper.json":                    `{"Name": "upper", "VERSION": "v1.0.0"}`,
		"later.json":                    `{"name": "later", "version": "v1.0.0", "Version": "v2.0.0"}`,
		"sorted/policy-definition.yaml": "name: sorted\nversion: v1.0.0\nVersion: v2.0.0\n",
	})
	ds, diags, err := LoadDefinitions(dir)
	if err != nil || len(diags) != 0 {
		t.Fatalf("LoadDefinitions: %v %v", err, diags)
	}
	for name, want := range map[string]string{"upper": "v1.0.0", "later": "v2.0.0", "sorted": "v1.0.0"} {
		if got := ds.Named(name); len(got) != 1 || got[0].Version != want {
			t.Errorf("%s: %v, want version %s", name, got, want)
		}
	}
}

// TestJSONDefinitionRefused: what the controller's loader cannot decode
// stops it, and gwpol with a positioned error.
func TestJSONDefinitionRefused(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"YAML in a .json file", "name: x\nversion: v1.0.0\n", "x.json:1:2: not valid JSON"},
		{"trailing text", `{"name": "x", "version": "v1.0.0"} {}`, "not valid JSON"},
		{"empty", "", "not valid JSON"},
		{"version a number", "{\"name\": \"x\",\n \"version\": 1}", "x.json:2:13: version is a JSON number, where the controller reads a string"},
		{"parameters a list", `{"name": "x", "version": "v1.0.0", "parameters": []}`, "parameters is a JSON array, where the controller reads an object"},
		{"not an object", `["x"]`, "must be a JSON object with name and version, found a JSON array"},
		{"no name", `{"version": "v1.0.0"}`, "a policy definition needs a name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeDefs(t, map[string]string{"x.json": tc.text})
			_, _, err := LoadDefinitions(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) || diag.KindOf(err) != diag.Invalid {
				t.Errorf("error %v, want an invalid-input error containing %q", err, tc.want)
			}
			if err != nil && tc.want != "a policy definition needs a name" && !strings.Contains(err.Error(), "controller does not start") {
				t.Errorf("error %v does not say the controller does not start", err)
			}
		})
	}
}

// TestYAMLDefinitionRefused: the controller's loader marshals a YAML
// definition to JSON and decodes it as it decodes a .json file, so a
// field of the wrong JSON type stops it too — at the value, for every key
// encoding/json decodes into the field, also one a later key overrides —
// while null, a quoted number and a timestamp (marshalled as text) load.
func TestYAMLDefinitionRefused(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"version a float", "name: x\nversion: 1.0\n", "p/policy-definition.yaml:2:10: version is a YAML value the controller marshals as a JSON number, where it reads a string"},
		{"name a boolean", "name: true\nversion: v1.0.0\n", "name is a YAML value the controller marshals as a JSON boolean"},
		{"description a number", "name: x\nversion: v1.0.0\ndescription: 5\n", "p/policy-definition.yaml:3:14: description is a YAML value the controller marshals as a JSON number"},
		{"parameters a string", "name: x\nversion: v1.0.0\nparameters: \"{}\"\n", "parameters is a YAML value the controller marshals as a JSON string, where it reads an object (a JSON Schema)"},
		{"systemParameters a list", "name: x\nversion: v1.0.0\nsystemParameters: [a]\n", "systemParameters is a YAML value the controller marshals as a JSON array"},
		{"managedBy a map", "name: x\nversion: v1.0.0\nmanagedBy: {a: b}\n", "managedBy is a YAML value the controller marshals as a JSON object"},
		{"a key encoding/json overrides", "name: x\nversion: v1.0.0\ndisplayName: 3\nDisplayName: ok\n", "p/policy-definition.yaml:3:14: displayName is a YAML value the controller marshals as a JSON number"},
		{"loads", "name: x\nversion: v1.0.0\ndescription: null\ndisplayName: \"5\"\nmanagedBy: 2024-01-01\nparameters: {type: object}\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeDefs(t, map[string]string{"p/policy-definition.yaml": tc.text})
			_, _, err := LoadDefinitions(dir)
			if tc.want == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || diag.KindOf(err) != diag.Invalid || !strings.Contains(err.Error(), "controller does not start") {
				t.Errorf("error %v, want an invalid-input error containing %q that says the controller does not start", err, tc.want)
			}
		})
	}
}

// TestNullVersionIsNoVersion: a null version reaches the controller as
// no version ("policy version is required").
func TestNullVersionIsNoVersion(t *testing.T) {
	dir := writeDefs(t, map[string]string{"p/policy-definition.yaml": "name: p\nversion: null\n"})
	_, diags, err := LoadDefinitions(dir)
	if err != nil || len(diags) != 1 || !strings.Contains(diags[0].Message, "p has no version") {
		t.Errorf("got %v %v, want the no-version GWP507", diags, err)
	}
}

// TestHybridSchema: the controller's gojsonschema reads a schema that
// names no $schema in its hybrid mode, which takes draft-4 forms too: a
// boolean exclusiveMinimum compiles, and validates in draft-4's sense.
func TestHybridSchema(t *testing.T) {
	d := NewDefinition("p", "v1.0.0", []byte(`{"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "exclusiveMinimum": true}}}`), diag.Position{})
	if p := d.SchemaProblem(); p != nil {
		t.Fatalf("draft-4 form refused: %s", p.Message)
	}
	if errs := d.ValidateParams(map[string]any{"n": 0}); len(errs) != 1 {
		t.Errorf("n = 0 with an exclusive minimum of 0: %v", errs)
	}
	if errs := d.ValidateParams(map[string]any{"n": 1}); len(errs) != 0 {
		t.Errorf("n = 1: %v", errs)
	}
}

// TestUncheckableProblem: a schema no draft compiles makes the controller
// refuse every reference; one gwpol cannot compile only because it refers
// outside the definition (which the controller would load) claims nothing.
func TestUncheckableProblem(t *testing.T) {
	bad := NewDefinition("p", "v1.0.0", []byte(`{"type": "object", "properties": {"n": {"type": 12}}}`), diag.Position{})
	if p := bad.UncheckableProblem(); p == nil || !strings.Contains(p.Message, "refuses the API") {
		t.Errorf("invalid schema: %v", p)
	}
	ext := NewDefinition("p", "v1.0.0", []byte(`{"$ref": "https://example.com/s.json"}`), diag.Position{})
	if ext.SchemaProblem() == nil || ext.UncheckableProblem() != nil {
		t.Errorf("external $ref: schema problem %v, uncheckable %v; want the first only", ext.SchemaProblem(), ext.UncheckableProblem())
	}
	if ok := NewDefinition("p", "v1.0.0", []byte(`{"type": "object"}`), diag.Position{}); ok.UncheckableProblem() != nil {
		t.Errorf("valid schema: %v", ok.UncheckableProblem())
	}
}

// TestLaterDocumentNotLoaded: the controller decodes a YAML definition
// file with yaml.Unmarshal, which reads its first document only, so a
// definition in a later document is never loaded (GWP513 on it) and does
// not resolve — not even as a duplicate of the first; a .json file is one
// value either way.
func TestLaterDocumentNotLoaded(t *testing.T) {
	dir := writeDefs(t, map[string]string{
		"p/policy-definition.yaml": "name: a\nversion: v1.0.0\n---\nname: b\nversion: v1.0.0\n---\nname: a\nversion: v1.0.0\n",
	})
	ds, diags, err := LoadDefinitions(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(ds.Named("a")); got != 1 {
		t.Errorf("definitions of a: %d, want 1 (the first document)", got)
	}
	if r := ds.Resolve("b", "v1"); r.OK() {
		t.Errorf("b resolved to %s; the controller never loads it", r.Resolved())
	}
	var lines []int
	for _, d := range diags {
		if d.Code != LintDefinitionNotLoaded.Code {
			t.Errorf("unexpected finding %s: %s", d.Code, d.Message)
			continue
		}
		lines = append(lines, d.Pos.Line)
	}
	if !slices.Equal(lines, []int{5, 8}) {
		t.Errorf("GWP513 on lines %v, want [5 8] (the later documents' versions)", lines)
	}
}
