package policyversion

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v3"
)

// The gateway-controller's version patterns (policy_validator.go): loaded
// definitions take part in resolution only when their version matches
// fullVersion; a reference must match majorOnly.
var (
	fullVersion = regexp.MustCompile(`^v\d+\.\d+\.\d+$`)
	majorOnly   = regexp.MustCompile(`^v\d+$`)
)

// DefinitionFile is the file name the WSO2 tooling gives a policy
// definition. The gateway-controller's loader reads every *.yaml, *.yml and
// *.json file below its directory as one, whatever its name
// (LoadDefinitions).
const DefinitionFile = "policy-definition.yaml"

// Definition is one policy definition the gateway-controller loads.
type Definition struct {
	Name    string
	Version string          // as written, e.g. "v0.1.3"
	Major   string          // "v0"; empty when no major can be read from Version
	Semver  *semver.Version // nil when Version is not semver (after a leading "v")

	// Parameters is the definition's `parameters` JSON Schema as JSON; nil
	// when the definition has none (then any params are accepted).
	Parameters json.RawMessage
	// SystemParameters is `systemParameters` as JSON; nil when absent.
	SystemParameters json.RawMessage

	Pos  diag.Position // of the version value
	File string

	paramsPos  diag.Position // of the parameters value, for schema problems
	paramsNode *yaml.Node    // the parameters value, to place schema problems
	schemaPath string        // JSON pointer of the first schema problem

	once       sync.Once
	schemaDoc  any // Parameters decoded for coercion
	schema     *jsonschema.Schema
	schemaProb *Problem
	external   bool // the schema refers outside the definition
}

// Resolvable reports whether the gateway-controller can resolve a reference
// to this definition at all: it only considers versions of the exact form
// vMAJOR.MINOR.PATCH, so "1.2.3" or "v1.2.3-rc.1" are loaded but never
// reached.
func (d *Definition) Resolvable() bool { return fullVersion.MatchString(d.Version) }

// Identity is name:vN, the key controller and engine share.
func (d *Definition) Identity() string { return Identity(d.Name, d.Major) }

// Identity is the key the controller and the policy engine registry share:
// name:vN.
func Identity(name, major string) string { return name + ":" + major }

// String is "name version (FILE:LINE:COL)", the form messages cite.
func (d *Definition) String() string {
	if d.Pos.File == "" {
		return d.Name + " " + d.Version
	}
	return d.Name + " " + d.Version + " (" + d.Pos.String() + ")"
}

// NewDefinition builds a definition from its parts, reading Major and Semver
// from version the way LoadDefinitions does. parameters may be nil.
func NewDefinition(name, version string, parameters json.RawMessage, pos diag.Position) *Definition {
	d := &Definition{Name: name, Version: version, Parameters: parameters, Pos: pos, File: pos.File, paramsPos: pos}
	d.Semver, d.Major = parseVersion(version)
	return d
}

// parseVersion reads a definition or engine version. Major follows the
// controller: for vX.Y.Z it is the text before the first dot (so "v01.2.3"
// has major "v01", which is what a reference must say to reach it); for
// other semver it is "v" and the numeric major.
func parseVersion(v string) (*semver.Version, string) {
	sv, err := semver.StrictNewVersion(strings.TrimPrefix(v, "v"))
	if err != nil {
		sv = nil
	}
	switch {
	case fullVersion.MatchString(v):
		return sv, v[:strings.IndexByte(v, '.')]
	case sv != nil:
		return sv, "v" + strconv.FormatUint(sv.Major(), 10)
	}
	return nil, ""
}

// loaderRefuses is what the gateway-controller does with a definition
// whose version is missing or not vMAJOR.MINOR.PATCH, or with a second
// definition of one name and version: LoadPoliciesFromDirectory
// (pkg/utils/policy_loader.go at 1c84e11c) fails, and main exits.
const loaderRefuses = "the gateway-controller's policy loader refuses the definitions and the controller does not start"

// versionProblem is the GWP507 finding for a definition or engine version,
// or nil when the version is the vX.Y.Z the WSO2 code resolves.
func versionProblem(what, name, version string, sv *semver.Version) *Problem {
	switch {
	case fullVersion.MatchString(version) && sv != nil:
		return nil
	case sv != nil:
		return &Problem{
			Code:     LintDefinitionNotSemver.Code,
			Severity: diag.Error,
			Message: fmt.Sprintf("%s %s has version %q, which is semver but not of the form vMAJOR.MINOR.PATCH; %s (and resolves references only to versions of that form)",
				what, name, version, loaderRefuses),
			Hint: fmt.Sprintf("write version: v%d.%d.%d", sv.Major(), sv.Minor(), sv.Patch()),
		}
	case version == "":
		return &Problem{
			Code:     LintDefinitionNotSemver.Code,
			Severity: diag.Error,
			Message:  fmt.Sprintf("%s %s has no version; %s", what, name, loaderRefuses),
			Hint:     "set version to the full semantic version, e.g. version: v1.0.0",
		}
	case fullVersion.MatchString(version):
		// vX.Y.Z with a leading zero: the controller matches it by text, but
		// it is not semver and the engine cannot order it.
		return &Problem{
			Code:     LintDefinitionNotSemver.Code,
			Severity: diag.Error,
			Message:  fmt.Sprintf("%s %s has version %q, which is not semver (a number has a leading zero)", what, name, version),
			Hint:     "drop the leading zeros",
		}
	}
	return &Problem{
		Code:     LintDefinitionNotSemver.Code,
		Severity: diag.Error,
		Message: fmt.Sprintf("%s %s has version %q, which is not semver; %s",
			what, name, version, loaderRefuses),
		Hint: "set version to the full semantic version, e.g. version: v1.0.0",
	}
}

// Definitions is every definition loaded, indexed by name.
type Definitions struct {
	all    []*Definition
	byName map[string][]*Definition
}

// NewDefinitions indexes definitions. Order does not matter: they are kept
// sorted by name, version and position.
func NewDefinitions(defs ...*Definition) *Definitions {
	ds := &Definitions{all: slices.Clone(defs), byName: map[string][]*Definition{}}
	slices.SortStableFunc(ds.all, compareDefs)
	for _, d := range ds.all {
		ds.byName[d.Name] = append(ds.byName[d.Name], d)
	}
	return ds
}

func compareDefs(a, b *Definition) int {
	if c := cmp.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	// Semver versions first, in semver order; the rest after, by text. Keeping
	// the two groups apart keeps the order transitive.
	if c := cmp.Compare(boolInt(a.Semver == nil), boolInt(b.Semver == nil)); c != 0 {
		return c
	}
	if a.Semver != nil {
		if c := a.Semver.Compare(b.Semver); c != 0 {
			return c
		}
	}
	return cmp.Or(cmp.Compare(a.Version, b.Version), a.Pos.Compare(b.Pos))
}

// All is every definition, sorted by name and version.
func (ds *Definitions) All() []*Definition {
	if ds == nil {
		return nil
	}
	return ds.all
}

// Named is every definition of one name, sorted by version.
func (ds *Definitions) Named(name string) []*Definition {
	if ds == nil {
		return nil
	}
	return ds.byName[name]
}

// Majors lists the majors of name a reference can resolve to (definitions
// of the form vX.Y.Z), sorted numerically and without repeats.
func (ds *Definitions) Majors(name string) []string {
	var out []string
	for _, d := range ds.Named(name) {
		if d.Resolvable() && !slices.Contains(out, d.Major) {
			out = append(out, d.Major)
		}
	}
	slices.SortFunc(out, compareMajors)
	return out
}

func compareMajors(a, b string) int {
	na, ea := strconv.ParseUint(strings.TrimPrefix(a, "v"), 10, 64)
	nb, eb := strconv.ParseUint(strings.TrimPrefix(b, "v"), 10, 64)
	if ea == nil && eb == nil && na != nb {
		return cmp.Compare(na, nb)
	}
	return cmp.Compare(a, b)
}

// LoadDefinitions reads the policy definitions below dir (a directory,
// walked recursively, hidden directories too, or a single file) as the
// gateway-controller's loader does at the family's pin
// (pkg/utils/policy_loader.go: LoadPoliciesFromDirectory at 1c84e11c,
// filepath.Walk): every *.yaml, *.yml and *.json file is a definition —
// of a YAML file its first document, which yaml.Unmarshal reads. So a
// file there that is not a definition (a Kubernetes manifest, a Helm
// Chart.yaml, an empty file) has no name, or is not a mapping, and stops
// the controller: it is an error naming FILE:LINE:COL here too. Until
// hap34 gwpol passed over YAML files without top-level name and version
// or with apiVersion or kind, and hidden directories.
//
// Problems in the definitions themselves come back as diagnostics
// positioned in the definition files: GWP507 for a version that is not
// semver (or not the vX.Y.Z form the controller resolves), GWP503 for the
// same name and version defined twice, GWP506 for a parameters schema that
// does not compile. An unreadable or unparseable file is an error naming
// FILE:LINE:COL: a half-read definitions set would give wrong answers.
func LoadDefinitions(dir string) (*Definitions, []diag.Diagnostic, error) {
	files, err := definitionFiles(dir)
	if err != nil {
		return nil, nil, err
	}
	var (
		defs  []*Definition
		diags []diag.Diagnostic
	)
	for _, f := range files {
		got, ds, err := loadDefinitionFile(f)
		if err != nil {
			return nil, nil, err
		}
		defs = append(defs, got...)
		diags = append(diags, ds...)
	}
	all := NewDefinitions(defs...)
	for _, d := range all.all {
		if p := d.SchemaProblem(); p != nil {
			f := "parameters"
			if sub := (ParamError{Path: d.schemaPath}).Field(); sub != "" {
				f += "." + sub
			}
			diags = append(diags, fileDiag(*p, f, d.schemaPos()))
		}
	}
	diags = append(diags, duplicateDiags(all)...)
	return all, diag.Sort(diags), nil
}

func definitionFiles(root string) ([]string, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, diag.Errorf(diag.Invalid, "%s: cannot read policy definitions: %v", root, unwrapPathErr(err))
	}
	if !st.IsDir() {
		return []string{root}, nil
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return diag.Errorf(diag.Invalid, "%s: cannot read: %v", p, unwrapPathErr(err))
		}
		if e.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".yaml", ".yml", ".json":
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

func loadDefinitionFile(file string) ([]*Definition, []diag.Diagnostic, error) {
	data, err := readFile(file)
	if err != nil {
		return nil, nil, err
	}
	jsonFile := isJSONFile(file)
	if jsonFile {
		if err := checkJSONDefinition(file, data); err != nil {
			return nil, nil, err
		}
	}
	docs, err := parseDocs(file, data)
	if err != nil {
		return nil, nil, err
	}
	if len(docs) == 0 {
		// yaml.Unmarshal leaves the map nil: no name (validatePolicy).
		return nil, nil, diag.Errorf(diag.Invalid, "%s:1:1: a policy definition needs a name (a non-empty string); the file is empty, and %s", file, loaderRefuses)
	}
	var (
		defs  []*Definition
		diags []diag.Diagnostic
	)
	for i, doc := range docs {
		// The first document (every document of a JSON file) is read as
		// a definition; a later YAML document only when it looks like
		// one, to say it is not loaded (GWP513).
		d, err := definitionOf(file, doc, i == 0 || jsonFile, jsonFile)
		if err != nil {
			return nil, nil, err
		}
		if d == nil {
			continue
		}
		if i > 0 && !jsonFile {
			diags = append(diags, notLoaded(d))
			continue
		}
		if !jsonFile {
			if err := checkYAMLDefinition(file, doc); err != nil {
				return nil, nil, err
			}
		}
		if p := versionProblem("policy definition", d.Name, d.Version, d.Semver); p != nil {
			diags = append(diags, fileDiag(*p, "version", d.Pos))
		}
		defs = append(defs, d)
	}
	return defs, diags, nil
}

// notLoaded is the GWP513 finding on a definition in a later document of
// a YAML file: loadPolicyFile (policy_loader.go at 1c84e11c) decodes the
// file with yaml.Unmarshal, which reads the first document only.
func notLoaded(d *Definition) diag.Diagnostic {
	return fileDiag(Problem{Code: LintDefinitionNotLoaded.Code, Severity: diag.Warning,
		Message: fmt.Sprintf("policy definition %s %s is not the first YAML document of %s: the gateway-controller reads only a file's first document, so it never loads this definition and references to it do not resolve", d.Name, d.Version, d.File),
		Hint:    "put this definition in a file of its own"}, "name", d.Pos)
}

// definitionOf reads one document as a definition. It returns nil for a
// document that is not one (only possible when named is false: a later
// document of a YAML file, which the controller never reads). Its fields are found as the
// controller's JSON decoding finds them (controllerField); a null version
// is no version, as the controller reads it.
func definitionOf(file string, doc *yaml.Node, named, jsonFile bool) (*Definition, error) {
	if doc.Kind != yaml.MappingNode {
		if named {
			return nil, diag.Errorf(diag.Invalid, "%s:%d:%d: a policy definition must be a mapping with name and version, found %s", file, doc.Line, doc.Column, describeNode(doc))
		}
		return nil, nil
	}
	nameN, nameK := controllerField(doc, "name", jsonFile)
	verN, verK := controllerField(doc, "version", jsonFile)
	if !named {
		if nameK == nil || verK == nil {
			return nil, nil
		}
		if _, k := manifest.Field(doc, "apiVersion"); k != nil {
			return nil, nil
		}
		if _, k := manifest.Field(doc, "kind"); k != nil {
			return nil, nil
		}
	}
	name, ok := manifest.Scalar(nameN)
	if !ok || strings.TrimSpace(name) == "" {
		at := doc
		if nameN != nil {
			at = nameN
		}
		if !named && nameN != nil && nameN.Kind != yaml.ScalarNode {
			return nil, nil // some other YAML that happens to have a name mapping
		}
		return nil, diag.Errorf(diag.Invalid, "%s:%d:%d: a policy definition needs a name (a non-empty string)", file, at.Line, at.Column)
	}
	d := &Definition{Name: name, File: file}
	switch {
	case verN == nil && verK == nil:
		d.Pos = manifest.NodePos(file, nameK)
	case verN != nil && verN.ShortTag() == "!!null":
		d.Pos = manifest.NodePos(file, verN)
	case verN == nil || verN.Kind != yaml.ScalarNode:
		d.Pos = manifest.NodePos(file, verK)
		if verN != nil {
			d.Pos = manifest.NodePos(file, verN)
			d.Version = "<" + strings.TrimPrefix(describeNode(verN), "a ") + ">"
		}
	default:
		d.Version = verN.Value
		d.Pos = manifest.NodePos(file, verN)
	}
	d.Semver, d.Major = parseVersion(d.Version)

	if pn, pk := controllerField(doc, "parameters", jsonFile); pk != nil {
		d.paramsPos, d.paramsNode = manifest.NodePos(file, pn), pn
		raw, err := nodeJSON(file, pn)
		if err != nil {
			return nil, diag.Errorf(diag.Invalid, "%s:%d:%d: parameters: %v", file, pn.Line, pn.Column, err)
		}
		if !bytes.Equal(raw, []byte("null")) {
			d.Parameters = raw
		}
	} else {
		d.paramsPos = manifest.NodePos(file, nameK)
	}
	if sn, sk := controllerField(doc, "systemParameters", jsonFile); sk != nil {
		raw, err := nodeJSON(file, sn)
		if err != nil {
			return nil, diag.Errorf(diag.Invalid, "%s:%d:%d: systemParameters: %v", file, sn.Line, sn.Column, err)
		}
		if !bytes.Equal(raw, []byte("null")) {
			d.SystemParameters = raw
		}
	}
	return d, nil
}

// duplicateDiags reports one name and version defined more than once. The
// gateway-controller's loader keys definitions by name|version and fails
// on a second one ("duplicate policy definition"), identical or not, so
// the controller does not start: an error either way, the message saying
// whether the copies differ.
func duplicateDiags(ds *Definitions) []diag.Diagnostic {
	var out []diag.Diagnostic
	for i := 0; i < len(ds.all); {
		j := i + 1
		for j < len(ds.all) && ds.all[j].Name == ds.all[i].Name && ds.all[j].Version == ds.all[i].Version {
			j++
		}
		if j-i > 1 && ds.all[i].Version != "" {
			first := ds.all[i]
			for _, d := range ds.all[i+1 : j] {
				how := "an identical copy of"
				if !bytes.Equal(d.Parameters, first.Parameters) || !bytes.Equal(d.SystemParameters, first.SystemParameters) {
					how = "differing from"
				}
				out = append(out, fileDiag(Problem{
					Code:     LintAmbiguousMajor.Code,
					Severity: diag.Error,
					Message: fmt.Sprintf("policy definition %s %s is defined again here, %s the one at %s; %s (duplicate policy definition)",
						d.Name, d.Version, how, first.Pos, loaderRefuses),
					Hint: "keep one file per policy name and version",
				}, "version", d.Pos))
			}
		}
		i = j
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// schemaPos is where a schema problem sits: the failing keyword's value
// when the YAML has it, else the parameters value.
func (d *Definition) schemaPos() diag.Position {
	n := d.paramsNode
	if n == nil || d.schemaPath == "" {
		return d.paramsPos
	}
	for _, tok := range strings.Split(d.schemaPath[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		n = manifest.Resolve(n)
		switch n.Kind {
		case yaml.MappingNode:
			v, _ := manifest.Field(n, tok)
			if v == nil {
				return d.paramsPos
			}
			n = v
		case yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return d.paramsPos
			}
			n = n.Content[i]
		default:
			return d.paramsPos
		}
	}
	return manifest.NodePos(d.File, n)
}
