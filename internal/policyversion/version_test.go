package policyversion

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
)

const fixtures = "../../testdata/version"

func fixture(parts ...string) string { return filepath.Join(append([]string{fixtures}, parts...)...) }

func loadDefs(t *testing.T, dir string) (*Definitions, []diag.Diagnostic) {
	t.Helper()
	ds, diags, err := LoadDefinitions(fixture(dir))
	if err != nil {
		t.Fatalf("LoadDefinitions(%s): %v", dir, err)
	}
	return ds, diags
}

func loadEngine(t *testing.T, dir string) (*EngineManifest, []diag.Diagnostic) {
	t.Helper()
	m, diags, err := LoadEngineManifest(fixture(dir, "build-manifest.yaml"))
	if err != nil {
		t.Fatalf("LoadEngineManifest(%s): %v", dir, err)
	}
	return m, diags
}

func containsAll(t *testing.T, what, got string, want []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s %q does not contain %q", what, got, w)
		}
	}
}

func TestLoadDefinitions(t *testing.T) {
	ds, _ := loadDefs(t, "defs")
	type row struct {
		name, version, major string
		semver, resolvable   bool
		file                 string
		line                 int
	}
	var got []row
	for _, d := range ds.All() {
		got = append(got, row{d.Name, d.Version, d.Major, d.Semver != nil, d.Resolvable(), filepath.Base(d.File), d.Pos.Line})
	}
	// jwt-auth-v1.1.yaml and header-filter.yml are definitions, though not
	// named policy-definition.yaml (files that are not: TestStrayFiles).
	want := []row{
		{"api-key-auth", "v0.1.3", "v0", true, true, "policy-definition.yaml", 3},
		{"basic-ratelimit", "v1.1.1", "v1", true, true, "policy-definition.yaml", 2},
		{"header-filter", "1.0", "", false, false, "header-filter.yml", 2},
		{"jwt-auth", "v1.0.0", "v1", true, true, "policy-definition.yaml", 2},
		{"jwt-auth", "v1.1.0", "v1", true, true, "jwt-auth-v1.1.yaml", 3},
		{"set-headers", "v1.0.0", "v1", true, true, "policy-definition.yaml", 2},
		{"set-headers", "v2.0.0", "v2", true, true, "policy-definition.yaml", 2},
		{"url-rewrite", "1.2.0", "v1", true, false, "policy-definition.yaml", 2},
	}
	if !slices.Equal(got, want) {
		t.Errorf("definitions:\n got %v\nwant %v", got, want)
	}

	d := ds.Named("api-key-auth")[0]
	if d.Pos.Col != 10 || d.File != fixture("defs", "api-key-auth", "policy-definition.yaml") {
		t.Errorf("api-key-auth position = %v", d.Pos)
	}
	var schema map[string]any
	if err := json.Unmarshal(d.Parameters, &schema); err != nil || schema["type"] != "object" {
		t.Errorf("parameters = %s (%v)", d.Parameters, err)
	}
	if string(d.SystemParameters) != `{"properties":{},"type":"object"}` {
		t.Errorf("systemParameters = %s", d.SystemParameters)
	}
	if got := ds.Majors("set-headers"); !slices.Equal(got, []string{"v1", "v2"}) {
		t.Errorf("Majors(set-headers) = %v", got)
	}
	if got := ds.Majors("url-rewrite"); len(got) != 0 {
		t.Errorf("Majors(url-rewrite) = %v, want none: 1.2.0 cannot be resolved", got)
	}
}

func TestDefinitionDiagnostics(t *testing.T) {
	type want struct {
		code     string
		severity diag.Severity
		file     string
		line     int
		field    string
		msg      []string
	}
	tests := []struct {
		dir  string
		want []want
	}{
		{"defs", []want{
			{LintDefinitionNotSemver.Code, diag.Error, "header-filter.yml", 2, "version",
				[]string{`header-filter has version "1.0", which is not semver`, "fix: set version"}},
			{LintDefinitionNotSemver.Code, diag.Error, "rewrite/policy-definition.yaml", 2, "version",
				[]string{`"1.2.0", which is semver but not of the form vMAJOR.MINOR.PATCH`, "policy loader refuses the definitions and the controller does not start", "fix: write version: v1.2.0"}},
		}},
		{"dupversion", []want{
			{LintAmbiguousMajor.Code, diag.Error, "b/policy-definition.yaml", 2, "version",
				[]string{"cors v1.0.2 is defined again here, an identical copy of the one at", "a/policy-definition.yaml:2:10", "the controller does not start"}},
			{LintAmbiguousMajor.Code, diag.Error, "c/policy-definition.yaml", 2, "version",
				[]string{"differing from the one at", "(duplicate policy definition)"}},
		}},
		{"badschema", []want{
			{LintParamsSchema.Code, diag.Error, "badschema/policy-definition.yaml", 7, "parameters.properties.count.type",
				[]string{"parameters schema of policy definition bad-schema v1.0.0", "not valid JSON Schema", "at /properties/count/type", "cannot be checked"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			_, diags := loadDefs(t, tt.dir)
			if len(diags) != len(tt.want) {
				t.Fatalf("got %d diagnostics, want %d: %v", len(diags), len(tt.want), diags)
			}
			for i, w := range tt.want {
				d := diags[i]
				if d.Code != w.code || d.Severity != w.severity || d.Pos.Line != w.line || d.Field != w.field ||
					!strings.HasSuffix(filepath.ToSlash(d.Pos.File), w.file) {
					t.Errorf("diagnostic %d = %s %s %s %s, want %s %s %s:%d %s", i, d.Code, d.Severity, d.Pos, d.Field, w.code, w.severity, w.file, w.line, w.field)
				}
				containsAll(t, "message", d.Message, w.msg)
			}
		})
	}
}

func TestLoadDefinitionsErrors(t *testing.T) {
	tests := []struct {
		dir  string
		want string
	}{
		{"broken", "broken/policy-definition.yaml:5:3: invalid YAML: did not find expected ',' or ']'"},
		{"noname", "noname/policy-definition.yaml:1:1: a policy definition needs a name"},
		{"does-not-exist", "does-not-exist: cannot read policy definitions"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			ds, diags, err := LoadDefinitions(fixture(tt.dir))
			if err == nil {
				t.Fatalf("no error; got %v %v", ds, diags)
			}
			if !strings.Contains(filepath.ToSlash(err.Error()), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if diag.KindOf(err) != diag.Invalid {
				t.Errorf("error kind = %s, want invalid", diag.KindOf(err))
			}
		})
	}
}

// TestStrayFiles: the gateway-controller's loader at the pin
// (LoadPoliciesFromDirectory, 1c84e11c) reads every .yaml/.yml/.json file
// below its directory, hidden directories too, as a definition (of a YAML
// file its first document): a file there that is not one stops the
// controller, and gwpol with it. Until hap34 gwpol passed over YAML files
// without top-level name and version or with apiVersion or kind, and
// hidden directories.
func TestStrayFiles(t *testing.T) {
	tests := []struct {
		dir     string
		err     string   // the load stops
		defs    []string // else the definitions loaded
		finding string   // and the code of the one finding
	}{
		{dir: "notes", err: "notes/notes.yaml:2:1: a policy definition needs a name"},
		{dir: "manifest", err: "manifest/cors.yaml:1:1: a policy definition needs a name"},
		{dir: "empty", err: "empty/README.yaml:1:1: a policy definition needs a name (a non-empty string); the file is empty"},
		{dir: "chart", defs: []string{"gateway-policies 0.1.0"}, finding: LintDefinitionNotSemver.Code},
		{dir: "hidden", defs: []string{"hidden-headers v1.0.0"}},
		{dir: "later", defs: []string{"later-headers v1.0.0"}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			ds, diags, err := LoadDefinitions(fixture("strays", tt.dir))
			if tt.err != "" {
				if err == nil || !strings.Contains(filepath.ToSlash(err.Error()), tt.err) || diag.KindOf(err) != diag.Invalid {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range ds.All() {
				got = append(got, d.Name+" "+d.Version)
			}
			if !slices.Equal(got, tt.defs) {
				t.Errorf("definitions %v, want %v", got, tt.defs)
			}
			var codes []string
			for _, d := range diags {
				codes = append(codes, d.Code)
			}
			if want := []string{tt.finding}; tt.finding != "" && !slices.Equal(codes, want) || tt.finding == "" && len(codes) != 0 {
				t.Errorf("findings %v, want %q", diags, tt.finding)
			}
		})
	}
}

func TestYAMLErrorLines(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"parser error, flow sequence", "a: 1\nb: 2\nc: {x: [1, 2}\n", "f.yaml:3:1:"},
		{"parser error, block mapping", "a: 1\nb: 2\n- x\n", "f.yaml:3:1:"},
		{"scanner error", "a: 1\nb: 2\nc: d: e\n", "f.yaml:3:1:"},
		{"scanner error, indented", "a: 1\nb: 2\n  c: 3\n", "f.yaml:3:3:"},
		{"unknown anchor, located at its use", "a: *nope\n", "f.yaml:1:4:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseDocs("f.yaml", []byte(tt.data))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %v, want prefix %q", err, tt.want)
			}
		})
	}
}

// checkNote wants a GWP508 info note containing want, or no note when want
// is empty.
func checkNote(t *testing.T, note *Problem, want []string) {
	t.Helper()
	switch {
	case len(want) == 0 && note != nil:
		t.Errorf("unexpected note %s: %s", note.Code, note.Message)
	case len(want) > 0 && note == nil:
		t.Errorf("no note, want %s", LintVersionDefaulted.Code)
	case note != nil:
		if note.Code != LintVersionDefaulted.Code || note.Severity != diag.Info {
			t.Errorf("note = %s %s, want %s info", note.Code, note.Severity, LintVersionDefaulted.Code)
		}
		containsAll(t, "note", note.Message, want)
	}
}

func TestResolve(t *testing.T) {
	ds, _ := loadDefs(t, "defs")
	dup, _ := loadDefs(t, "dupversion")
	tests := []struct {
		name     string
		defs     *Definitions
		policy   string
		ref      string
		code     string // "" when it resolves
		resolved string
		identity string
		msg      []string
		hint     string
		note     []string // the GWP508 note of a resolution without a version
	}{
		{name: "major resolves", policy: "api-key-auth", ref: "v0", resolved: "v0.1.3", identity: "api-key-auth:v0"},
		{name: "spaces are trimmed like the controller", policy: "basic-ratelimit", ref: " v1 ", resolved: "v1.1.1", identity: "basic-ratelimit:v1"},
		{name: "one major of several", policy: "set-headers", ref: "v2", resolved: "v2.0.0", identity: "set-headers:v2"},
		{name: "identical duplicates count once", defs: dup, policy: "cors", ref: "v1", resolved: "v1.0.2", identity: "cors:v1"},

		{name: "full semver with v", policy: "api-key-auth", ref: "v0.1.3", code: LintVersionNotMajor.Code,
			msg: []string{`full semantic version "v0.1.3"`, "version must be major-only"}, hint: "use version: v0"},
		{name: "full semver without v", policy: "api-key-auth", ref: "1.2.0", code: LintVersionNotMajor.Code,
			msg: []string{`full semantic version "1.2.0"`}, hint: "use version: v1"},
		{name: "prerelease is full semver too", policy: "api-key-auth", ref: "v0.2.0-rc.1", code: LintVersionNotMajor.Code,
			msg: []string{"full semantic version"}, hint: "use version: v0"},
		{name: "malformed uppercase", policy: "api-key-auth", ref: "V0", code: LintVersionNotMajor.Code,
			msg: []string{`"V0", which is not major-only`, "invalid version format"}, hint: "use version: v0"},
		{name: "malformed major.minor", policy: "basic-ratelimit", ref: "v1.1", code: LintVersionNotMajor.Code,
			msg: []string{"not major-only"}, hint: "use version: v1"},
		{name: "malformed bare number", policy: "basic-ratelimit", ref: "1", code: LintVersionNotMajor.Code, hint: "use version: v1"},
		{name: "malformed word", policy: "basic-ratelimit", ref: "latest", code: LintVersionNotMajor.Code,
			hint: "use a major-only version such as version: v1"},
		{name: "empty resolves to the latest definition's major", policy: "set-headers", ref: "", resolved: "v2.0.0", identity: "set-headers:v2",
			note: []string{"policy set-headers has no version", "latest loaded definition, set-headers v2.0.0 (", "major v2 the engine runs"}},
		{name: "blank resolves like empty", policy: "api-key-auth", ref: "  ", resolved: "v0.1.3", identity: "api-key-auth:v0",
			note: []string{"whose major v0 the engine runs"}},
		// ResolvePolicyVersion returns latestVersions[name] for an empty
		// version: two definitions of its major are not ambiguous then.
		{name: "empty takes the latest of a major with several definitions", policy: "jwt-auth", ref: "", resolved: "v1.1.0", identity: "jwt-auth:v1",
			note: []string{"latest loaded definition, jwt-auth v1.1.0 ("}},
		{name: "empty with no definition of the name", policy: "cors", ref: "", code: LintNoDefinitionForMajor.Code,
			msg: []string{"has no version", "policy 'cors' not found in loaded policy definitions"}, hint: "add a policy definition of cors (version vX.Y.Z) to the policy definitions"},
		{name: "empty skips a definition the controller cannot see", policy: "url-rewrite", ref: "", code: LintNoDefinitionForMajor.Code},

		{name: "no such major lists the existing ones", policy: "set-headers", ref: "v3", code: LintNoDefinitionForMajor.Code, identity: "set-headers:v3",
			msg:  []string{"no policy definition of set-headers at v3", "definitions exist for v1, v2", "major version 'v3' not found in loaded policy definitions"},
			hint: "use one of v1, v2, or add a definition of set-headers v3.x.y"},
		{name: "no such major, one other", policy: "api-key-auth", ref: "v1", code: LintNoDefinitionForMajor.Code,
			msg: []string{"definitions exist for v0"}, hint: "use version: v0"},
		{name: "no such name suggests a near one", policy: "api-key-auht", ref: "v0", code: LintNoDefinitionForMajor.Code,
			msg: []string{"no policy definition named api-key-auht is loaded"}, hint: "did you mean api-key-auth?"},
		{name: "no such name", policy: "cors", ref: "v1", code: LintNoDefinitionForMajor.Code,
			msg: []string{"no policy definition named cors"}, hint: "add the policy definition of cors v1.x.y to the policy definitions"},
		{name: "semver definition the controller cannot see", policy: "url-rewrite", ref: "v1", code: LintNoDefinitionForMajor.Code,
			msg: []string{"url-rewrite 1.2.0", "has that major but is not of the form vX.Y.Z"}, hint: "write that definition's version as vX.Y.Z"},
		{name: "non-semver definition", policy: "header-filter", ref: "v1", code: LintNoDefinitionForMajor.Code,
			msg: []string{"none of its definitions has a version of the form vX.Y.Z"}},
		{name: "nil definitions", defs: (*Definitions)(nil), policy: "cors", ref: "v1", code: LintNoDefinitionForMajor.Code},

		{name: "two definitions for one major", policy: "jwt-auth", ref: "v1", code: LintAmbiguousMajor.Code, identity: "jwt-auth:v1",
			msg:  []string{"several policy definitions of jwt-auth match v1", "jwt-auth v1.0.0 (", "jwt-auth v1.1.0 (", "jwt-auth-v1.1.yaml:3:10", "cannot resolve the reference uniquely"},
			hint: "keep exactly one definition of jwt-auth per major in the policy definitions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defs := ds
			if tt.defs != nil || strings.HasPrefix(tt.name, "nil") {
				defs = tt.defs
			}
			r := defs.Resolve(tt.policy, tt.ref)
			if r.Identity != tt.identity && (tt.identity != "" || r.Problem == nil) {
				t.Errorf("Identity = %q, want %q", r.Identity, tt.identity)
			}
			if tt.code == "" {
				if !r.OK() {
					t.Fatalf("did not resolve: %+v", r.Problem)
				}
				if r.Resolved() != tt.resolved {
					t.Errorf("resolved to %s, want %s", r.Resolved(), tt.resolved)
				}
				checkNote(t, r.Note, tt.note)
				return
			}
			if r.OK() || r.Problem == nil {
				t.Fatalf("resolved to %s, want %s", r.Resolved(), tt.code)
			}
			if r.Problem.Code != tt.code || r.Problem.Severity != diag.Error {
				t.Errorf("problem = %s %s, want %s error: %s", r.Problem.Code, r.Problem.Severity, tt.code, r.Problem.Message)
			}
			containsAll(t, "message", r.Problem.Message, tt.msg)
			if tt.hint != "" && r.Problem.Hint != tt.hint {
				t.Errorf("hint = %q, want %q", r.Problem.Hint, tt.hint)
			}
			if tt.code == LintAmbiguousMajor.Code && len(r.Candidates) != 2 {
				t.Errorf("candidates = %v", r.Candidates)
			}
		})
	}
}

func TestEngineManifest(t *testing.T) {
	m, diags := loadEngine(t, "engine")
	if len(diags) != 0 {
		t.Errorf("diagnostics: %v", diags)
	}
	var got []string
	for _, p := range m.Policies {
		got = append(got, p.Identity()+"="+p.Version)
	}
	want := []string{"api-key-auth:v0=v0.1.2", "basic-ratelimit:v1=v1.1.1", "set-headers:v1=v1.0.0", "jwt-auth:v1=v1.1.0", "prompt-guard:v0=v0.9.0"}
	if !slices.Equal(got, want) {
		t.Errorf("policies = %v, want %v", got, want)
	}
	if p := m.Policies[0]; p.Pos.Line != 4 || p.Pos.Col != 16 {
		t.Errorf("api-key-auth version position = %v", p.Pos)
	}
}

func TestEngineManifestDiagnostics(t *testing.T) {
	m, diags := loadEngine(t, "engine-dup")
	if len(diags) != 2 {
		t.Fatalf("diagnostics: %v", diags)
	}
	dup, bad := diags[0], diags[1]
	if dup.Code != LintAmbiguousMajor.Code || dup.Pos.Line != 7 || dup.Field != "policies[1]" {
		t.Errorf("duplicate = %s %s %s", dup.Code, dup.Pos, dup.Field)
	}
	containsAll(t, "duplicate", dup.Message, []string{"lists api-key-auth:v0 again", "v0.1.3 here, v0.1.2 at", "build-manifest.yaml:4:16", "rejects the second registration as a duplicate"})
	if bad.Code != LintDefinitionNotSemver.Code || bad.Pos.Line != 10 || bad.Field != "policies[2].version" {
		t.Errorf("non-semver = %s %s %s", bad.Code, bad.Pos, bad.Field)
	}
	containsAll(t, "non-semver", bad.Message, []string{`cors has version "latest"`, "not semver"})
	// The registry keeps the first registration.
	if p, ok := m.Lookup("api-key-auth", "v0"); !ok || p.Version != "v0.1.2" {
		t.Errorf("Lookup(api-key-auth, v0) = %v %v", p, ok)
	}
}

func TestEngineManifestErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "m.yaml: empty"},
		{"no policies", "version: v1\n", "m.yaml:1:1: not an engine build manifest: no policies list"},
		{"policies not a list", "policies: {a: b}\n", "m.yaml:1:11: policies: must be a list"},
		{"entry not a mapping", "policies:\n  - cors\n", "m.yaml:2:5: policies[0]: each policy must be a mapping"},
		{"entry without name", "policies:\n  - version: v1.0.0\n", "m.yaml:2:5: policies[0].name: each policy needs a name"},
		{"two documents", "policies: []\n---\npolicies: []\n", "m.yaml:3:1: an engine build manifest is one YAML document"},
		{"a sequence", "- a\n", "m.yaml:1:1: an engine build manifest must be a mapping"},
		{"invalid YAML", "policies:\n  - name: [x\n", "m.yaml:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseEngineManifest("m.yaml", []byte(tt.data))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %v, want prefix %q", err, tt.want)
			}
		})
	}
	if _, _, err := LoadEngineManifest(fixture("engine", "missing.yaml")); err == nil || !strings.Contains(err.Error(), "cannot read") {
		t.Errorf("missing file: %v", err)
	}
	m, diags, err := ParseEngineManifest("m.yaml", []byte("version: v1\npolicies:\n"))
	if err != nil || len(diags) != 0 || len(m.Policies) != 0 {
		t.Errorf("empty policies: %v %v %v", m, diags, err)
	}
}

func TestEngineCheck(t *testing.T) {
	ds, _ := loadDefs(t, "defs")
	m, _ := loadEngine(t, "engine")
	tests := []struct {
		name     string
		engine   *EngineManifest
		policy   string
		major    string
		def      bool // pass the resolved definition
		code     string
		severity diag.Severity
		engineV  string
		msg      []string
		hint     string
	}{
		{name: "same version", policy: "basic-ratelimit", major: "v1", def: true, engineV: "v1.1.1"},
		{name: "drift: definitions v0.1.3, engine v0.1.2", policy: "api-key-auth", major: "v0", def: true,
			code: LintEngineDrift.Code, severity: diag.Warning, engineV: "v0.1.2",
			msg: []string{"resolves api-key-auth:v0 to v0.1.3", "policy engine was built with v0.1.2", "build-manifest.yaml:4:16",
				"runs that (its registry keys api-key-auth:v0 by major alone", "compatible under major identity, but drifted"},
			hint: "rebuild the policy engine with api-key-auth v0.1.3, or load the v0.1.2 definition in the gateway-controller"},
		{name: "engine lacks the major", policy: "set-headers", major: "v2", def: true,
			code: LintEngineMissingMajor.Code, severity: diag.Error,
			msg:  []string{"has set-headers only at v1 (v1.0.0), not v2", `"policy not found: set-headers:v2"), skips it, and answers that route's requests 500`},
			hint: "rebuild the policy engine with set-headers@v2, or reference one of v1"},
		{name: "engine lacks the name", policy: "url-rewrite", major: "v1",
			code: LintEngineMissingMajor.Code, severity: diag.Error,
			msg:  []string{"does not include url-rewrite", `"policy not found: url-rewrite:v1"`, "the gateway-controller deploys the API"},
			hint: "add url-rewrite@v1 to the gateway builder's build.yaml and rebuild the policy engine"},
		{name: "unresolved reference is still checked against the engine", policy: "jwt-auth", major: "v1", engineV: "v1.1.0"},
		{name: "no engine manifest: skipped", engine: nil, policy: "api-key-auth", major: "v0", def: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			engine := m
			if strings.HasPrefix(tt.name, "no engine") {
				engine = tt.engine
			}
			var def *Definition
			if tt.def {
				r := ds.Resolve(tt.policy, tt.major)
				if !r.OK() {
					t.Fatalf("fixture does not resolve: %v", r.Problem)
				}
				def = r.Definition
			}
			c := engine.Check(tt.policy, tt.major, def)
			if c.Identity != tt.policy+":"+tt.major {
				t.Errorf("Identity = %q", c.Identity)
			}
			if engine == nil {
				if !c.Skipped || c.Problem != nil || c.Engine != nil {
					t.Errorf("nil manifest: %+v", c)
				}
				return
			}
			if c.Resolved() != tt.engineV {
				t.Errorf("engine version = %q, want %q", c.Resolved(), tt.engineV)
			}
			if tt.code == "" {
				if c.Problem != nil {
					t.Errorf("unexpected problem: %s", c.Problem.Text())
				}
				return
			}
			if c.Problem == nil {
				t.Fatalf("no problem, want %s", tt.code)
			}
			if c.Problem.Code != tt.code || c.Problem.Severity != tt.severity {
				t.Errorf("problem = %s %s, want %s %s", c.Problem.Code, c.Problem.Severity, tt.code, tt.severity)
			}
			containsAll(t, "message", c.Problem.Message, tt.msg)
			if c.Problem.Hint != tt.hint {
				t.Errorf("hint = %q, want %q", c.Problem.Hint, tt.hint)
			}
		})
	}
}

func TestEngineCheckSameVersionSpeltDifferently(t *testing.T) {
	m := &EngineManifest{File: "m.yaml", Policies: []EnginePolicy{{Name: "p", Version: "v1.2.3"}}}
	m.Policies[0].Semver, m.Policies[0].Major = parseVersion("v1.2.3")
	if c := m.Check("p", "v1", NewDefinition("p", "1.2.3", nil, diag.Position{})); c.Problem != nil {
		t.Errorf("1.2.3 vs v1.2.3: %s", c.Problem.Text())
	}
	if c := m.Check("p", "v1", NewDefinition("p", "v1.2.3-rc.1", nil, diag.Position{})); c.Problem == nil || c.Problem.Code != LintEngineDrift.Code {
		t.Errorf("prerelease drift not reported: %+v", c)
	}
}

func TestValidateParams(t *testing.T) {
	ds, _ := loadDefs(t, "defs")
	def := func(name, major string) *Definition {
		r := ds.Resolve(name, major)
		if !r.OK() {
			t.Fatalf("fixture %s %s: %v", name, major, r.Problem)
		}
		return r.Definition
	}
	tests := []struct {
		name   string
		def    *Definition
		params any
		want   []ParamError
	}{
		{name: "valid", def: def("api-key-auth", "v0"),
			params: map[string]any{"key": "X-API-Key", "in": "header"}},
		{name: "absent params are an empty object", def: def("api-key-auth", "v0"), params: nil,
			want: []ParamError{{"", "missing properties 'key', 'in'"}}},
		{name: "unknown property, wrong enum, wrong type", def: def("api-key-auth", "v0"),
			params: map[string]any{"key": 5, "in": "body", "header": "X-API-Key"},
			want: []ParamError{
				{"/header", `property "header" is not allowed by the schema (additionalProperties is false)`},
				{"/in", "value must be one of 'header', 'query'"},
				{"/key", "got number, want string"},
			}},
		{name: "nested array items", def: def("basic-ratelimit", "v1"),
			params: map[string]any{"limits": []any{
				map[string]any{"requests": 10, "duration": "1m"},
				map[string]any{"requests": 0, "duration": "1 hour"},
				map[string]any{"duration": "1h"},
			}},
			want: []ParamError{
				{"/limits/1/duration", "'1 hour' does not match pattern '^[0-9]+(s|m|h)$'"},
				{"/limits/1/requests", "minimum: got 0, want 1"},
				{"/limits/2", "missing property 'requests'"},
			}},
		// validatePolicyParams at 1c84e11c hands gojsonschema the params as
		// parsed: no coercion of strings (that came in f15757a16).
		{name: "strings are not coerced", def: def("basic-ratelimit", "v1"),
			params: map[string]any{"limits": []any{map[string]any{"requests": "10", "duration": "1m"}}, "enabled": "true"},
			want: []ParamError{
				{"/enabled", "got string, want boolean"},
				{"/limits/0/requests", "got string, want integer"},
			}},
		{name: "uncoercible string", def: def("basic-ratelimit", "v1"),
			params: map[string]any{"limits": []any{map[string]any{"requests": "ten", "duration": "1m"}}, "enabled": "yes"},
			want: []ParamError{
				{"/enabled", "got string, want boolean"},
				{"/limits/0/requests", "got string, want integer"},
			}},
		{name: "raw JSON", def: def("basic-ratelimit", "v1"),
			params: json.RawMessage(`{"limits": []}`),
			want:   []ParamError{{"/limits", "minItems: got 0, want 1"}}},
		{name: "anyOf is one error", def: def("set-headers", "v2"),
			params: map[string]any{"other": 1},
			want:   []ParamError{{"", "'anyOf' failed (missing property 'request'; missing property 'response')"}}},
		{name: "no schema accepts anything", def: NewDefinition("free", "v1.0.0", nil, diag.Position{}),
			params: map[string]any{"anything": []any{1, "two"}}},
		{name: "params that are not JSON", def: def("api-key-auth", "v0"),
			params: map[string]any{"key": make(chan int)},
			want:   []ParamError{{"", "params cannot be read as JSON: json: unsupported type: chan int"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.def.ValidateParams(tt.params)
			if !slices.Equal(got, tt.want) {
				t.Errorf("ValidateParams:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestCheckParamsDeferred: params the operator (valueFrom) or the
// gateway-controller (templates) resolve at deploy time are strings there:
// they fit where the schema admits a string (their content unchecked) and
// come back as deferred, and fail where it wants another type; malformed
// forms are errors, as upstream.
func TestCheckParamsDeferred(t *testing.T) {
	ds, _ := loadDefs(t, "defs")
	rl := ds.Resolve("basic-ratelimit", "v1").Definition
	vf := func(kind string, ref map[string]any) map[string]any {
		return map[string]any{"valueFrom": map[string]any{kind: ref}}
	}
	limit := func(requests, duration any) map[string]any {
		return map[string]any{"limits": []any{map[string]any{"requests": requests, "duration": duration}}}
	}
	tests := []struct {
		name     string
		params   any
		want     []ParamError
		deferred []Deferred
	}{
		{name: "secretKeyRef for an integer", params: limit(vf("secretKeyRef", map[string]any{"name": "rl", "key": "requests"}), "1m"),
			want:     []ParamError{{"/limits/0/requests", `Secret rl key "requests" (valueFrom.secretKeyRef) yields a string: got string, want integer`}},
			deferred: []Deferred{{"/limits/0/requests", `Secret rl key "requests" (valueFrom.secretKeyRef)`}}},
		{name: "configMapKeyRef with namespace for a patterned string", params: limit(5, vf("configMapKeyRef", map[string]any{"name": "rl", "key": "window", "namespace": "ops"})),
			deferred: []Deferred{{"/limits/0/duration", `ConfigMap ops/rl key "window" (valueFrom.configMapKeyRef)`}}},
		{name: "env template for an integer", params: limit(`{{ env "RL_REQUESTS" }}`, "1m"),
			want:     []ParamError{{"/limits/0/requests", `template {{ env "RL_REQUESTS" }} yields a string: got string, want integer`}},
			deferred: []Deferred{{"/limits/0/requests", `template {{ env "RL_REQUESTS" }}`}}},
		{name: "env template for a patterned string", params: limit(5, `{{ env "RL_WINDOW" }}`),
			deferred: []Deferred{{"/limits/0/duration", `template {{ env "RL_WINDOW" }}`}}},
		{name: "chained template functions for a patterned string", params: limit(1, `{{ env "W" | default "1m" | trim }}`),
			deferred: []Deferred{{"/limits/0/duration", `template {{ env "W" | default "1m" | trim }}`}}},
		{name: "valueFrom where the schema wants an array stays an error", params: map[string]any{"limits": vf("secretKeyRef", map[string]any{"name": "rl", "key": "all"})},
			want:     []ParamError{{"/limits", `Secret rl key "all" (valueFrom.secretKeyRef) yields a string: got string, want array`}},
			deferred: []Deferred{{"/limits", `Secret rl key "all" (valueFrom.secretKeyRef)`}}},
		{name: "unknown template function", params: limit(`{{ envv "X" }}`, "1m"),
			want: []ParamError{{"/limits/0/requests", `template "{{ envv \"X\" }}" does not parse (the gateway-controller rejects the API): function "envv" not defined; its functions are default, env, lower, redact, replace, required, secret, trim, upper`}}},
		{name: "both refs", params: limit(map[string]any{"valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "a", "key": "b"}, "configMapKeyRef": map[string]any{"name": "a", "key": "b"}}}, "1m"),
			want: []ParamError{{"/limits/0/requests/valueFrom", "valueFrom needs exactly one of secretKeyRef and configMapKeyRef; the gateway operator rejects it"}}},
		{name: "ref without key", params: limit(vf("secretKeyRef", map[string]any{"name": "a"}), "1m"),
			want: []ParamError{{"/limits/0/requests/valueFrom", "valueFrom.secretKeyRef needs a non-empty name and key; the gateway operator rejects it"}}},
		{name: "unknown valueFrom field", params: limit(map[string]any{"valueFrom": map[string]any{"fieldRef": map[string]any{}}}, "1m"),
			want: []ParamError{{"/limits/0/requests/valueFrom", "valueFrom has unknown field(s) fieldRef (want one of secretKeyRef, configMapKeyRef); the gateway operator rejects it"}}},
		{name: "a map with valueFrom and more is a plain object", params: limit(map[string]any{"valueFrom": "x", "other": 1}, "1m"),
			want: []ParamError{{"/limits/0/requests", "got object, want integer"}}},
		{name: "literal values are still checked beside deferred ones", params: limit(0, `{{ env "W" }}`),
			want:     []ParamError{{"/limits/0/requests", "minimum: got 0, want 1"}},
			deferred: []Deferred{{"/limits/0/duration", `template {{ env "W" }}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs, deferred := rl.CheckParams(tt.params)
			if !slices.Equal(errs, tt.want) {
				t.Errorf("errors:\n got %q\nwant %q", errs, tt.want)
			}
			if !slices.Equal(deferred, tt.deferred) {
				t.Errorf("deferred:\n got %q\nwant %q", deferred, tt.deferred)
			}
		})
	}
}

func TestValidateParamsDoesNotModifyCaller(t *testing.T) {
	ds, _ := loadDefs(t, "defs")
	d := ds.Resolve("basic-ratelimit", "v1").Definition
	ref := map[string]any{"valueFrom": map[string]any{"configMapKeyRef": map[string]any{"name": "rl", "key": "window"}}}
	params := map[string]any{"limits": []any{map[string]any{"requests": 10, "duration": ref}}}
	if errs := d.ValidateParams(params); len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if v, ok := params["limits"].([]any)[0].(map[string]any)["duration"].(map[string]any); !ok || v["valueFrom"] == nil {
		t.Errorf("caller's params changed: duration = %#v", params["limits"].([]any)[0].(map[string]any)["duration"])
	}
}

func TestValidateParamsConcurrent(t *testing.T) {
	ds, _ := loadDefs(t, "defs")
	d := NewDefinition("p", "v1.0.0", ds.Named("api-key-auth")[0].Parameters, diag.Position{})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if errs := d.ValidateParams(map[string]any{"key": "k", "in": "query"}); len(errs) != 0 {
				t.Errorf("errors: %v", errs)
			}
		})
	}
	wg.Wait()
}

func TestSchemaProblem(t *testing.T) {
	ds, _ := loadDefs(t, "badschema")
	d := ds.Named("bad-schema")[0]
	p := d.SchemaProblem()
	if p == nil || p.Code != LintParamsSchema.Code {
		t.Fatalf("SchemaProblem = %v", p)
	}
	if errs := d.ValidateParams(map[string]any{"count": "x"}); errs != nil {
		t.Errorf("a broken schema must not report params errors: %v", errs)
	}
	// Not JSON Schema at all, and a $ref out of the definition.
	for _, schema := range []string{`{"type": "object", "pattern": "("}`, `{"$ref": "file:///etc/passwd"}`, `{"$ref": "https://example.com/s.json"}`} {
		d := NewDefinition("p", "v1.0.0", json.RawMessage(schema), diag.Position{})
		if p := d.SchemaProblem(); p == nil {
			t.Errorf("%s: no problem", schema)
		} else if strings.Contains(p.Message, "\n") {
			t.Errorf("%s: message spans lines: %q", schema, p.Message)
		}
	}
	if p := NewDefinition("p", "v1.0.0", json.RawMessage(`{"type": "object"}`), diag.Position{}).SchemaProblem(); p != nil {
		t.Errorf("valid schema: %v", p.Text())
	}
}

func TestParamErrorField(t *testing.T) {
	tests := map[string]string{
		"":                   "",
		"/header":            "header",
		"/limits/0/requests": "limits[0].requests",
		"/a~1b/c~0d":         "a/b.c~d",
	}
	for path, want := range tests {
		if got := (ParamError{Path: path}).Field(); got != want {
			t.Errorf("Field(%q) = %q, want %q", path, got, want)
		}
	}
	d := NewDefinition("api-key-auth", "v0.1.3", nil, diag.Position{File: "d.yaml", Line: 3, Col: 10})
	p := ParamError{Path: "/in", Message: "value must be one of 'header', 'query'"}.Problem(d)
	if p.Code != LintParamsSchema.Code || p.Severity != diag.Error {
		t.Errorf("problem = %+v", p)
	}
	containsAll(t, "message", p.Message, []string{"params.in of api-key-auth:v0", "api-key-auth v0.1.3 (d.yaml:3:10)", "value must be one of"})
}

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in         string
		major      string
		semver     bool
		resolvable bool
		problem    bool
	}{
		{"v1.2.3", "v1", true, true, false},
		{"v0.10.0", "v0", true, true, false},
		{"1.2.3", "v1", true, false, true},
		{"v1.2.3-rc.1", "v1", true, false, true},
		{"v1.2.3+build.5", "v1", true, false, true},
		{"v01.2.3", "v01", false, true, true}, // the controller matches it by text
		{"v1.2", "", false, false, true},
		{"1.0", "", false, false, true},
		{"latest", "", false, false, true},
		{"", "", false, false, true},
	}
	for _, tt := range tests {
		d := NewDefinition("p", tt.in, nil, diag.Position{})
		if d.Major != tt.major || (d.Semver != nil) != tt.semver || d.Resolvable() != tt.resolvable {
			t.Errorf("%q: major %q semver %v resolvable %v, want %q %v %v", tt.in, d.Major, d.Semver != nil, d.Resolvable(), tt.major, tt.semver, tt.resolvable)
		}
		if p := versionProblem("policy definition", "p", tt.in, d.Semver); (p != nil) != tt.problem {
			t.Errorf("%q: problem %v, want %v", tt.in, p, tt.problem)
		} else if p != nil && p.Code != LintDefinitionNotSemver.Code {
			t.Errorf("%q: code %s", tt.in, p.Code)
		}
	}
}

func TestProblemDiagnostic(t *testing.T) {
	p := Problem{Code: LintVersionNotMajor.Code, Severity: diag.Error, Message: "policy x uses the full semantic version", Hint: "use version: v1"}
	obj := diag.ObjectRef{Group: "gateway.api-platform.wso2.com", Kind: "RestApi", Namespace: "ns", Name: "api"}
	pos := diag.Position{File: "api.yaml", Line: 12, Col: 16}
	d := p.Diagnostic(obj, "spec.policies[0].version", pos)
	want := diag.Diagnostic{Code: "GWP501", Severity: diag.Error, Message: "policy x uses the full semantic version; fix: use version: v1",
		Object: obj, Field: "spec.policies[0].version", Pos: pos}
	if d != want {
		t.Errorf("Diagnostic = %+v\nwant %+v", d, want)
	}
	if (Problem{Message: "m"}).Text() != "m" {
		t.Errorf("Text without hint")
	}
}

func TestLoadDefinitionsDeterministic(t *testing.T) {
	a, da := loadDefs(t, "defs")
	b, db := loadDefs(t, "defs")
	if !slices.EqualFunc(a.All(), b.All(), func(x, y *Definition) bool { return x.String() == y.String() }) || !slices.Equal(da, db) {
		t.Errorf("two loads differ")
	}
	// NewDefinitions does not depend on input order.
	all := a.All()
	rev := slices.Clone(all)
	slices.Reverse(rev)
	if got := NewDefinitions(rev...).All(); !slices.Equal(got, all) {
		t.Errorf("order depends on input order")
	}
}

func TestLoadSingleFile(t *testing.T) {
	ds, diags, err := LoadDefinitions(fixture("defs", "header-filter.yml"))
	if err != nil || len(ds.All()) != 1 || len(diags) != 1 || diags[0].Code != LintDefinitionNotSemver.Code {
		t.Errorf("single file: %v %v %v", ds.All(), diags, err)
	}
}

// TestRealWSO2Files reads the WSO2 API Platform's own files (shared next to
// the repository, not part of it) to check the shapes parse.
func TestRealWSO2Files(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "formats", "wso2")
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s not present; skipping the real WSO2 files", dir)
	}
	// The folder holds other files beside the definitions, which stop
	// the controller's loader (TestStrayFiles): the definitions are read
	// one file at a time.
	if _, _, err := LoadDefinitions(dir); err == nil {
		t.Errorf("LoadDefinitions of %s, which holds manifests and build files, loaded", dir)
	}
	var all []*Definition
	for _, f := range []string{"policy-definition-analytics.yaml", "policy-definition-api-key-auth-feb2026.yaml"} {
		one, diags, err := LoadDefinitions(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("LoadDefinitions: %v", err)
		}
		if len(diags) != 0 {
			t.Errorf("diagnostics on the real definitions: %v", diags)
		}
		all = append(all, one.All()...)
	}
	ds := NewDefinitions(all...)
	names := map[string]string{}
	for _, d := range ds.All() {
		names[d.Name] = d.Version
		if !d.Resolvable() || d.Semver == nil || d.SchemaProblem() != nil || d.Parameters == nil {
			t.Errorf("%s: resolvable %v semver %v schema %v", d, d.Resolvable(), d.Semver, d.SchemaProblem())
		}
	}
	for _, n := range []string{"api-key-auth", "wso2_apip_sys_analytics"} {
		if _, ok := names[n]; !ok {
			t.Errorf("definition %s not loaded; got %v", n, names)
		}
	}
	if len(names) != 2 {
		t.Errorf("definitions = %v, want only the two policy-definition files", names)
	}

	r := ds.Resolve("api-key-auth", "v0")
	if !r.OK() {
		t.Fatalf("api-key-auth v0: %v", r.Problem)
	}
	if errs := r.Definition.ValidateParams(map[string]any{"key": "X-API-Key", "in": "header"}); len(errs) != 0 {
		t.Errorf("valid params: %v", errs)
	}
	if errs := r.Definition.ValidateParams(map[string]any{"header": "X-API-Key"}); len(errs) == 0 {
		t.Errorf("params missing key/in and with an unknown property passed")
	}

	m, mdiags, err := LoadEngineManifest(filepath.Join(dir, "build-manifest.yaml"))
	if err != nil {
		t.Fatalf("LoadEngineManifest: %v", err)
	}
	if len(mdiags) != 0 {
		t.Errorf("diagnostics on the real build manifest: %v", mdiags)
	}
	if len(m.Policies) < 10 {
		t.Errorf("only %d engine policies", len(m.Policies))
	}
	for _, p := range m.Policies {
		if p.Semver == nil || p.Major == "" || p.Pos.Line == 0 {
			t.Errorf("engine policy %+v", p)
		}
	}
	// The real engine build has api-key-auth at v1 while the feb2026
	// definition is v0.1.1: exactly the "policy not found" case.
	c := m.Check("api-key-auth", "v0", r.Definition)
	if c.Problem == nil || c.Problem.Code != LintEngineMissingMajor.Code {
		t.Errorf("api-key-auth:v0 against the real engine: %+v", c.Problem)
	}
}

// TestEngineSystemBuildLock: a filePath entry (system-build-lock.yaml) takes
// its version from the policy definition in that directory, as the gateway
// builder does; one it cannot read is GWP507 at the filePath. It was
// GWP507 "has no version" for every such entry.
func TestEngineSystemBuildLock(t *testing.T) {
	lock := fixture("system-lock", "system-build-lock.yaml")
	m, diags, err := LoadEngineManifest(lock)
	if err != nil {
		t.Fatal(err)
	}
	ep, ok := m.Lookup("wso2_apip_sys_analytics", "v1")
	wantPos := diag.Position{File: fixture("system-lock", "analytics", DefinitionFile), Line: 2, Col: 10}
	if !ok || ep.Version != "v1.0.0" || ep.Pos != wantPos {
		t.Errorf("analytics = %+v, %v; want v1.0.0 at %s", ep, ok, wantPos)
	}
	if len(diags) != 1 || diags[0].Code != LintDefinitionNotSemver.Code || diags[0].Field != "policies[1].filePath" || diags[0].Pos.Line != 9 ||
		!strings.Contains(diags[0].Message, "nowhere") {
		t.Errorf("diags = %v, want one GWP507 at policies[1].filePath (line 9)", diags)
	}
}

// TestMergeEngineManifests: several manifests are one engine build; a
// name:vN in two of them is the registry's duplicate (GWP503) at the later
// entry.
func TestMergeEngineManifests(t *testing.T) {
	main, _, err := LoadEngineManifest(fixture("system-lock", "build-manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	lock, _, err := LoadEngineManifest(fixture("system-lock", "system-build-lock.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if one, diags := MergeEngineManifests(main); one != main || diags != nil {
		t.Errorf("one manifest: %v %v", one, diags)
	}
	m, diags := MergeEngineManifests(main, lock)
	if want := main.File + " + " + lock.File; m.File != want {
		t.Errorf("File = %q, want %q", m.File, want)
	}
	for _, want := range []struct{ name, version string }{{"cors", "v1.0.2"}, {"set-headers", "v1.0.0"}, {"wso2_apip_sys_analytics", "v1.0.0"}} {
		if ep, ok := m.Lookup(want.name, "v1"); !ok || ep.Version != want.version {
			t.Errorf("%s: %+v %v, want %s", want.name, ep, ok, want.version)
		}
	}
	if len(diags) != 0 {
		t.Errorf("diags = %v", diags)
	}
	other, _, err := ParseEngineManifest("other.yaml", []byte("policies:\n  - {name: cors, version: v1.1.0}\n  - {name: cors, version: v2.0.0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	m, diags = MergeEngineManifests(main, other)
	if ep, _ := m.Lookup("cors", "v1"); ep.Version != "v1.0.2" {
		t.Errorf("the registry keeps the first registration, got %s", ep.Version)
	}
	if len(diags) != 1 || diags[0].Code != LintAmbiguousMajor.Code || diags[0].Pos.File != "other.yaml" || diags[0].Field != "policies[0]" {
		t.Errorf("diags = %v, want one GWP503 at other.yaml policies[0]", diags)
	}
}

// TestParamFormats: params are checked against `format` as the
// gateway-controller's gojsonschema v1.2.0 checks it (1c84e11c go.mod), not
// as the validator gwpol compiles with: a bare date or time is a
// date-time, a display name is part of an e-mail address, a URI has no
// backslash, a UUID is lower case, a number under a known format fails,
// and formats gojsonschema does not know (duration, semver, anything else)
// pass. Until hap34 the validator's own checks applied.
func TestParamFormats(t *testing.T) {
	tests := []struct {
		format string
		value  any
		ok     bool
	}{
		{"date-time", "2026-12-07", true},
		{"date-time", "15:04:05", true},
		{"date-time", "2026-12-07T04:05:06Z", true},
		{"date-time", "07/12/2026", false},
		{"time", "04:05:06", true},
		{"date", "2026-12-07T04:05:06Z", false},
		{"email", "Ops <ops@example.com>", true},
		{"email", "ops", false},
		{"uri", `https://idp.example/jwks\x`, false},
		{"uri", "https://[::1]:8443/jwks", true},
		{"uri", "/relative/jwks", false},
		{"uri-reference", "/relative/jwks", true},
		{"uuid", "0F8FAD5B-D9CB-469F-A165-70867728950E", false},
		{"uuid", "0f8fad5b-d9cb-469f-a165-70867728950e", true},
		{"ipv4", "::ffff:10.0.0.1", true},
		{"ipv4", "10.0.0", false},
		{"ipv6", "10.0.0.1", false},
		{"hostname", "-edge.example.com", false},
		{"hostname", "edge.example.com", true},
		{"uri-template", "https://api.example/{id}/x", true},
		{"uri-template", "https://api.example/{id/x", false},
		{"duration", "five minutes", true},
		{"semver", "not a version", true},
		{"made-up", "anything", true},
		{"uri", 42, false},
		{"made-up", 42, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %v", tt.format, tt.value), func(t *testing.T) {
			schema := fmt.Sprintf(`{"type":"object","properties":{"v":{"format":%q}}}`, tt.format)
			d := NewDefinition("p", "v1.0.0", json.RawMessage(schema), diag.Position{})
			errs := d.ValidateParams(map[string]any{"v": tt.value})
			if (len(errs) == 0) != tt.ok {
				t.Errorf("errors %v, want ok %v", errs, tt.ok)
			}
		})
	}
}
