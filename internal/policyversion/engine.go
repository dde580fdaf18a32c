package policyversion

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	yaml "go.yaml.in/yaml/v3"
)

// EnginePolicy is one policy compiled into the policy engine, as the
// gateway builder's lock file (build-manifest.yaml) records it.
type EnginePolicy struct {
	Name    string
	Version string          // the exact version compiled in, e.g. "v1.2.1"
	Major   string          // "v1"; empty when Version has no readable major
	Semver  *semver.Version // nil when Version is not semver
	Pos     diag.Position   // of the version value (of the entry when it has none)
	// Index is the entry's index in its manifest's policies list.
	Index int
}

// Identity is name:vN, the engine registry's key.
func (p EnginePolicy) Identity() string { return Identity(p.Name, p.Major) }

// EngineManifest is the policy engine's compiled set.
type EngineManifest struct {
	File     string
	Policies []EnginePolicy // in file order, which is registration order

	once sync.Once
	idx  map[string][]int // identity → indices into Policies
	byNm map[string][]int // name → indices
}

func (m *EngineManifest) index() {
	m.once.Do(func() {
		m.idx = map[string][]int{}
		m.byNm = map[string][]int{}
		for i, p := range m.Policies {
			m.byNm[p.Name] = append(m.byNm[p.Name], i)
			if p.Major != "" {
				m.idx[p.Identity()] = append(m.idx[p.Identity()], i)
			}
		}
	})
}

// LoadEngineManifest reads a build-manifest.yaml: a mapping whose policies
// list has entries {name, version, ...} (gomodule, pipPackage and the rest
// are ignored). Diagnostics, positioned in the manifest: GWP507 for an
// entry whose version is not semver, GWP503 for a second entry of one
// name:vN (the engine registry rejects the second registration as a
// duplicate). An unreadable or unparseable file, or one that is not a build
// manifest, is an error naming FILE:LINE:COL.
func LoadEngineManifest(file string) (*EngineManifest, []diag.Diagnostic, error) {
	data, err := readFile(file)
	if err != nil {
		return nil, nil, err
	}
	return ParseEngineManifest(file, data)
}

// ParseEngineManifest is LoadEngineManifest on bytes already read.
func ParseEngineManifest(file string, data []byte) (*EngineManifest, []diag.Diagnostic, error) {
	docs, err := parseDocs(file, data)
	if err != nil {
		return nil, nil, err
	}
	if len(docs) != 1 {
		if len(docs) == 0 {
			return nil, nil, diag.Errorf(diag.Invalid, "%s: empty; an engine build manifest needs a policies list", file)
		}
		return nil, nil, diag.Errorf(diag.Invalid, "%s:%d:%d: an engine build manifest is one YAML document, found another here", file, docs[1].Line, docs[1].Column)
	}
	root := docs[0]
	if root.Kind != yaml.MappingNode {
		return nil, nil, diag.Errorf(diag.Invalid, "%s:%d:%d: an engine build manifest must be a mapping with a policies list, found %s", file, root.Line, root.Column, describeNode(root))
	}
	list, key := manifest.Field(root, "policies")
	if key == nil {
		return nil, nil, diag.Errorf(diag.Invalid, "%s:%d:%d: not an engine build manifest: no policies list", file, root.Line, root.Column)
	}
	m := &EngineManifest{File: file}
	if list.Kind == yaml.ScalarNode && list.ShortTag() == "!!null" {
		return m, nil, nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, nil, diag.Errorf(diag.Invalid, "%s:%d:%d: policies: must be a list, found %s", file, list.Line, list.Column, describeNode(list))
	}
	var diags []diag.Diagnostic
	for i, it := range list.Content {
		it = manifest.Resolve(it)
		at := fmt.Sprintf("policies[%d]", i)
		if it.Kind != yaml.MappingNode {
			return nil, nil, diag.Errorf(diag.Invalid, "%s:%d:%d: %s: each policy must be a mapping with name and version, found %s", file, it.Line, it.Column, at, describeNode(it))
		}
		nameN, _ := manifest.Field(it, "name")
		name, ok := manifest.Scalar(nameN)
		if !ok || strings.TrimSpace(name) == "" {
			n := it
			if nameN != nil {
				n = nameN
			}
			return nil, nil, diag.Errorf(diag.Invalid, "%s:%d:%d: %s.name: each policy needs a name", file, n.Line, n.Column, at)
		}
		p := EnginePolicy{Name: name, Pos: manifest.NodePos(file, it), Index: i}
		if verN, _ := manifest.Field(it, "version"); verN != nil {
			p.Pos = manifest.NodePos(file, verN)
			if v, ok := manifest.Scalar(verN); ok {
				p.Version = v
			}
		}
		if fp, _ := manifest.Field(it, "filePath"); p.Version == "" && fp != nil {
			if err := localVersion(file, fp, &p); err != nil {
				diags = append(diags, fileDiag(Problem{
					Code:     LintDefinitionNotSemver.Code,
					Severity: diag.Error,
					Message:  fmt.Sprintf("engine policy %s is built from filePath %q, whose version is in its policy definition, but %v; its name:vN key in the engine registry cannot be known", name, fp.Value, err),
					Hint:     "keep the policy's directory (with its policy-definition.yaml) beside the build lock file",
				}, at+".filePath", manifest.NodePos(file, fp)))
				m.Policies = append(m.Policies, p)
				continue
			}
		}
		p.Semver, p.Major = parseVersion(p.Version)
		if p.Semver == nil {
			msg := fmt.Sprintf("engine policy %s has version %q, which is not semver; its major, and so its name:vN key in the engine registry, cannot be known", name, p.Version)
			if p.Version == "" {
				msg = fmt.Sprintf("engine policy %s has no version; its name:vN key in the engine registry cannot be known", name)
			}
			diags = append(diags, fileDiag(Problem{
				Code:     LintDefinitionNotSemver.Code,
				Severity: diag.Error,
				Message:  msg,
				Hint:     "rebuild the policy engine; the gateway builder writes vX.Y.Z versions",
			}, at+".version", p.Pos))
		}
		m.Policies = append(m.Policies, p)
	}
	diags = append(diags, m.duplicates()...)
	return m, diag.Sort(diags), nil
}

// duplicates are the GWP503 findings for a second entry of one name:vN:
// the policy engine registry rejects the second registration.
func (m *EngineManifest) duplicates() []diag.Diagnostic {
	m.index()
	var diags []diag.Diagnostic
	for _, is := range m.idx {
		first := m.Policies[is[0]]
		for _, i := range is[1:] {
			p := m.Policies[i]
			at := fmt.Sprintf("policies[%d]", p.Index)
			diags = append(diags, fileDiag(Problem{
				Code:     LintAmbiguousMajor.Code,
				Severity: diag.Error,
				Message: fmt.Sprintf("the engine build lists %s again (%s here, %s at %s); the policy engine registry keys policies by name:vN and rejects the second registration as a duplicate",
					p.Identity(), p.Version, first.Version, first.Pos),
				Hint: fmt.Sprintf("build the engine with one version of %s per major", p.Name),
			}, at, p.Pos))
		}
	}
	return diags
}

// MergeEngineManifests is the one engine build several manifests describe
// together, such as the gateway's build-manifest.yaml and the
// system-build-lock.yaml of its system policies: their policies in the
// order given, registered into one registry, so a name:vN listed by two of
// them is a GWP503 duplicate. One manifest is returned as it is.
func MergeEngineManifests(ms ...*EngineManifest) (*EngineManifest, []diag.Diagnostic) {
	if len(ms) == 1 {
		return ms[0], nil
	}
	merged := &EngineManifest{}
	var files []string
	for _, m := range ms {
		files = append(files, m.File)
		merged.Policies = append(merged.Policies, m.Policies...)
	}
	merged.File = strings.Join(files, " + ")
	var diags []diag.Diagnostic
	for _, d := range merged.duplicates() {
		if !slices.ContainsFunc(ms, func(m *EngineManifest) bool { return m.File == d.Pos.File && m.hasDuplicateAt(d.Pos) }) {
			diags = append(diags, d)
		}
	}
	return merged, diag.Sort(diags)
}

// hasDuplicateAt reports whether the manifest alone already has a GWP503
// at pos (reported when it was parsed).
func (m *EngineManifest) hasDuplicateAt(pos diag.Position) bool {
	for _, d := range m.duplicates() {
		if d.Pos == pos {
			return true
		}
	}
	return false
}

// localVersion reads the version of a filePath entry (system-build-lock.yaml
// lists system policies that way): the gateway builder takes it from the
// policy-definition.yaml in that directory, relative to the lock file.
func localVersion(lockFile string, fp *yaml.Node, p *EnginePolicy) error {
	v, ok := manifest.Scalar(fp)
	if !ok || strings.TrimSpace(v) == "" {
		return fmt.Errorf("filePath is empty")
	}
	path := filepath.Join(filepath.Dir(lockFile), v, DefinitionFile)
	data, err := readFile(path)
	if err != nil {
		return fmt.Errorf("%s cannot be read", path)
	}
	docs, err := parseDocs(path, data)
	if err != nil || len(docs) == 0 || docs[0].Kind != yaml.MappingNode {
		return fmt.Errorf("%s is not a policy definition", path)
	}
	verN, _ := manifest.Field(docs[0], "version")
	ver, ok := manifest.Scalar(verN)
	if !ok || ver == "" {
		return fmt.Errorf("%s has no version", path)
	}
	p.Version, p.Pos = ver, manifest.NodePos(path, verN)
	return nil
}

// Lookup finds the engine's policy for name:vN: the first registration when
// the manifest lists the identity more than once (the registry rejects the
// later ones).
func (m *EngineManifest) Lookup(name, major string) (EnginePolicy, bool) {
	if m == nil {
		return EnginePolicy{}, false
	}
	m.index()
	is := m.idx[Identity(name, major)]
	if len(is) == 0 {
		return EnginePolicy{}, false
	}
	return m.Policies[is[0]], true
}

// Majors lists the majors of name compiled into the engine, sorted.
func (m *EngineManifest) Majors(name string) []string {
	if m == nil {
		return nil
	}
	m.index()
	var out []string
	for _, i := range m.byNm[name] {
		if mj := m.Policies[i].Major; mj != "" && !slices.Contains(out, mj) {
			out = append(out, mj)
		}
	}
	slices.SortFunc(out, compareMajors)
	return out
}

// EngineCheck is the answer to "can the engine run name:vN, and is it the
// version the controller resolved?".
type EngineCheck struct {
	// Skipped is true when there is no engine manifest (no
	// --engine-manifest): GWP504 and GWP505 cannot be checked.
	Skipped  bool
	Identity string
	// Engine is the policy the engine registry holds for Identity; nil
	// when it has none.
	Engine  *EnginePolicy
	Problem *Problem
}

// Resolved is the full version the engine holds for the identity, or "".
func (c EngineCheck) Resolved() string {
	if c.Engine == nil {
		return ""
	}
	return c.Engine.Version
}

// engineLacks is what WSO2 does with a deployed API whose chain names
// identity when the engine has no such policy: the gateway-controller
// accepts the API (it checks only its definitions), and the policy
// engine, building each route's chain, finds no identity in its registry
// (registry.go: GetInstance, "policy not found"), skips that route's chain
// (xdsclient/handler.go: HandlePolicyChainUpdate) and answers the route's
// requests 500 (kernel/extproc.go: "Policy chain not found for route").
func engineLacks(identity string) string {
	return fmt.Sprintf("the gateway-controller deploys the API, but the policy engine cannot build the policy chain of a route that runs %s (\"policy not found: %s\"), skips it, and answers that route's requests 500", identity, identity)
}

// Check answers for a reference resolved (or not) to name:major. The
// engine's registry lookup is exact on name:vN with no fallback, so a
// missing name or major is GWP505: at runtime the policy engine answers
// "policy not found". When def (the controller's resolved definition; may
// be nil) has a different version than the engine built, that is GWP504, a
// warning: compatible under major identity, but drifted. A nil manifest
// skips the check.
func (m *EngineManifest) Check(name, major string, def *Definition) EngineCheck {
	c := EngineCheck{Identity: Identity(name, major)}
	if m == nil {
		c.Skipped = true
		return c
	}
	ep, ok := m.Lookup(name, major)
	if !ok {
		p := &Problem{Code: LintEngineMissingMajor.Code, Severity: diag.Error}
		if majors := m.Majors(name); len(majors) > 0 {
			have := make([]string, 0, len(majors))
			for _, mj := range majors {
				e, _ := m.Lookup(name, mj)
				have = append(have, e.Version)
			}
			p.Message = fmt.Sprintf("the policy engine build (%s) has %s only at %s (%s), not %s; %s",
				m.File, name, strings.Join(majors, ", "), strings.Join(have, ", "), major, engineLacks(c.Identity))
			p.Hint = fmt.Sprintf("rebuild the policy engine with %s@%s, or reference one of %s", name, major, strings.Join(majors, ", "))
		} else {
			p.Message = fmt.Sprintf("the policy engine build (%s) does not include %s; %s",
				m.File, name, engineLacks(c.Identity))
			p.Hint = fmt.Sprintf("add %s@%s to the gateway builder's build.yaml and rebuild the policy engine", name, major)
		}
		c.Problem = p
		return c
	}
	c.Engine = &ep
	if def == nil || def.Version == ep.Version {
		return c
	}
	if def.Semver != nil && ep.Semver != nil && def.Semver.Equal(ep.Semver) {
		return c // same version spelt differently ("1.2.3" and "v1.2.3")
	}
	c.Problem = &Problem{
		Code:     LintEngineDrift.Code,
		Severity: diag.Warning,
		Message: fmt.Sprintf("the gateway-controller resolves %s to %s (%s) and checks the params against it, but the policy engine was built with %s (%s) and runs that (its registry keys %s by major alone, with that build's system parameters under the params); compatible under major identity, but drifted",
			c.Identity, def.Version, def.Pos, ep.Version, ep.Pos, c.Identity),
		Hint: fmt.Sprintf("rebuild the policy engine with %s %s, or load the %s definition in the gateway-controller", name, def.Version, ep.Version),
	}
	return c
}
