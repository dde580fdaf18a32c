package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policyversion"
	"github.com/gwpol/gwpol/internal/schema"
	yaml "go.yaml.in/yaml/v3"
)

// Versions are the policy definitions (--policy-definitions DIR,
// config policyDefinitions) and the policy engine's build manifest
// (--engine-manifest FILE, config engineManifest) that the versioned
// policy references of a family's kinds resolve against. A nil
// Definitions or Engine was not given.
type Versions struct {
	DefinitionsDir string
	EngineFile     string // the engine manifests, joined by " + "
	Definitions    *policyversion.Definitions
	Engine         *policyversion.EngineManifest
	// Diagnostics are the problems found inside those files (GWP503,
	// GWP506, GWP507), positioned there.
	Diagnostics []diag.Diagnostic
	// CRDs are the CustomResourceDefinition objects read from the files
	// config crds and --crds name (Config.CRDs), in that order.
	CRDs []*manifest.Object
}

// LoadVersions reads what the config (after flags) names. An unreadable
// or unparseable file is an input error (exit 3) naming FILE:LINE:COL: a
// half-read definitions set would give wrong answers. A setting that a
// family of reg refuses as malformed is a usage error (exit 2), as any
// bad config value is (policy.Family.CheckConfig).
func LoadVersions(cfg *Config, reg *policy.Registry) (*Versions, error) {
	files := cfg.EngineManifests
	if len(files) == 0 && cfg.EngineManifest != "" {
		files = []string{cfg.EngineManifest}
	}
	// The manifests together are one engine build (merged, duplicates
	// reported); the same file named twice is still one file.
	files = distinctPaths(files)
	v := &Versions{DefinitionsDir: cfg.PolicyDefinitions, EngineFile: strings.Join(files, " + ")}
	if err := checkFamilyConfigs(cfg, reg); err != nil {
		return nil, err
	}
	if v.DefinitionsDir != "" {
		defs, ds, err := policyversion.LoadDefinitions(v.DefinitionsDir)
		if err != nil {
			return nil, err
		}
		v.Definitions = defs
		v.Diagnostics = append(v.Diagnostics, ds...)
	}
	var builds []*policyversion.EngineManifest
	for _, f := range files {
		m, ds, err := policyversion.LoadEngineManifest(f)
		if err != nil {
			return nil, err
		}
		builds = append(builds, m)
		v.Diagnostics = append(v.Diagnostics, ds...)
	}
	if len(builds) > 0 {
		m, ds := policyversion.MergeEngineManifests(builds...)
		v.Engine = m
		v.Diagnostics = append(v.Diagnostics, ds...)
	}
	crds, err := loadCRDs(cfg)
	if err != nil {
		return nil, err
	}
	v.CRDs = crds
	v.Diagnostics = diag.Sort(v.Diagnostics)
	return v, nil
}

// loadCRDs reads the CRD files and directories cfg names. A file that
// cannot be read, or that holds no CustomResourceDefinition, is an input
// error (exit 3): validating against part of the CRDs the user named
// would pass what their cluster refuses.
func loadCRDs(cfg *Config) ([]*manifest.Object, error) {
	if len(cfg.CRDs) == 0 {
		return nil, nil
	}
	paths := distinctPaths(cfg.CRDs)
	set, err := manifest.Load(paths, manifest.Options{Limits: manifest.Limits{MaxFileBytes: cfg.MaxFileSize}})
	if err != nil {
		return nil, diag.Errorf(diag.Invalid, "--crds: %v", err)
	}
	for _, p := range set.Problems {
		if p.Code == manifest.LintInputUnreadable.Code {
			return nil, diag.Errorf(diag.Invalid, "--crds: %s: %s", p.Pos, p.Message)
		}
	}
	var out []*manifest.Object
	for _, o := range set.Objects {
		if schema.IsCRD(o) {
			out = append(out, o)
		}
	}
	if len(out) == 0 {
		return nil, diag.Errorf(diag.Invalid, "--crds %s: no CustomResourceDefinition found", strings.Join(paths, ", "))
	}
	return out, nil
}

// distinctPaths drops the repeats of a path, keeping the first.
func distinctPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !slices.ContainsFunc(out, func(q string) bool { return filepath.Clean(q) == filepath.Clean(p) }) {
			out = append(out, p)
		}
	}
	return out
}

// Skipped names the families' checks that could not run for lack of an
// input beyond the manifests (policy.Family.SkippedChecks), for lint's
// summary.
func (c *Compiled) Skipped() []string {
	var out []string
	for _, f := range c.Registry.Families() {
		if f.SkippedChecks != nil {
			out = append(out, f.SkippedChecks(c.Policies.Policies, c.Config.PolicyConfig())...)
		}
	}
	return out
}

// ConfigPos places findings about config settings (a family's section,
// such as SECTION.list[0].key) at their line in the config file; without a file, nowhere.
func (v *Versions) ConfigPos(cfg *Config) func(string) diag.Position {
	if v == nil || cfg == nil || cfg.File == "" {
		return nil
	}
	var root *yaml.Node
	return func(path string) diag.Position {
		if root == nil {
			data, err := os.ReadFile(cfg.File)
			if err != nil {
				return diag.Position{File: cfg.File}
			}
			var doc yaml.Node
			if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
				return diag.Position{File: cfg.File}
			}
			root = doc.Content[0]
		}
		return nodePos(cfg.File, root, path)
	}
}

// nodePos follows a field path such as section.list[0].version
// (keys matched case-insensitively, as viper reads them) as far as it goes.
func nodePos(file string, n *yaml.Node, path string) diag.Position {
	at := n
	for _, seg := range strings.Split(strings.ReplaceAll(path, "[", ".["), ".") {
		if seg == "" {
			continue
		}
		var next *yaml.Node
		if strings.HasPrefix(seg, "[") {
			i, err := strconv.Atoi(strings.Trim(seg, "[]"))
			if err == nil && at.Kind == yaml.SequenceNode && i >= 0 && i < len(at.Content) {
				next = at.Content[i]
			}
		} else if at.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(at.Content); j += 2 {
				if strings.EqualFold(at.Content[j].Value, seg) {
					next = at.Content[j+1]
					break
				}
			}
		}
		if next == nil {
			break
		}
		at = next
	}
	return diag.Position{File: file, Line: at.Line, Col: at.Column}
}

func orEnv(path string) string {
	if path == "" {
		return "(environment)"
	}
	return path
}

// checkFamilyConfigs is the first family setting its family refuses as
// malformed (policy.Family.CheckConfig), as a usage error: a bad config
// value exits 2 whichever family reads the key (docs/configuration.md).
func checkFamilyConfigs(cfg *Config, reg *policy.Registry) error {
	pc := cfg.PolicyConfig()
	for _, f := range reg.Families() {
		if f.CheckConfig == nil {
			continue
		}
		if err := f.CheckConfig(pc); err != nil {
			return diag.Errorf(diag.Usage, "config %s: %v", orEnv(cfg.File), err)
		}
	}
	return nil
}
