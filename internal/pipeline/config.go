package pipeline

import (
	"maps"

	"github.com/gwpol/gwpol/internal/guardrail"
	"github.com/gwpol/gwpol/internal/policy"
)

// Config is the content of .gwpol.yaml (every key may also come from a
// GWPOL_* environment variable, e.g. GWPOL_CONTROLLERNAME).
type Config struct {
	Namespace      string `mapstructure:"namespace"`
	ControllerName string `mapstructure:"controllerName"`
	MaxFileSize    int64  `mapstructure:"maxFileSize"`
	// StrictFields makes unknown fields errors (GWP102), as kubectl's
	// strict field validation rejects such objects; false: warnings.
	StrictFields      *bool  `mapstructure:"strictFields"` // nil: the default, true
	PolicyDefinitions string `mapstructure:"policyDefinitions"`
	// CRDs are the files and directories of CustomResourceDefinitions the
	// cluster runs (config crds, then --crds): the first source of CRDs
	// the schema stage validates objects against (docs/crds.md).
	CRDs           []string `mapstructure:"crds"`
	EngineManifest string   `mapstructure:"engineManifest"`
	// EngineManifests are the engine build manifests to load: the
	// --engine-manifest flags when given, else EngineManifest.
	EngineManifests []string   `mapstructure:"-"`
	Lint            LintConfig `mapstructure:"lint"`
	// Render is the render: section.
	Render RenderConfig `mapstructure:"render"`
	// Exclude are globs of input paths not to read (--exclude adds more).
	Exclude []string `mapstructure:"exclude"`
	// AssumeExist are core kinds (Secret, Service, ConfigMap) whose
	// objects live outside the repository: a reference to an absent one
	// is resolved (--assume-exist adds more).
	AssumeExist []string `mapstructure:"assumeExist"`
	// GuardrailsSection marks guardrails: as a key of the file; the CLI
	// reads the section itself, with positions, into Guardrails.
	GuardrailsSection []any `mapstructure:"guardrails"`
	// Guardrails are the platform team's rules (guardrail.Parse), which
	// lint checks (GWP601–GWP604) and explain and diff show.
	Guardrails []guardrail.Rule `mapstructure:"-"`

	// Settings are the controller families' deployment settings
	// (policy.Setting) by key, each of its declared type (a family's
	// section, as written); the config reader fills it from
	// the declarations, a test may set a few. A key not here has its
	// declared default.
	Settings map[string]any `mapstructure:"-"`

	// File is the config file read, "" when none.
	File string `mapstructure:"-"`

	// ReleaseTrees is set by a view that reads no object's tree after
	// compiling, bar the few positions of its findings (render, lint):
	// compile then lets every tree go as soon as the policies are decoded
	// (Compiled.ReleaseTrees), instead of holding the policies' trees
	// through attach and merge, the largest part of the heap while they
	// run. A tree read later is parsed again from the object's text, the
	// same (manifest.Object.Release).
	ReleaseTrees bool `mapstructure:"-"`
}

// RenderConfig is the render: section.
type RenderConfig struct {
	// Target is the render target of render and of lint's capability
	// checks (GWP404) when --target is not given; empty: inferred per
	// Gateway from its GatewayClass.
	Target string `mapstructure:"target"`
}

// LintConfig is the lint: section.
type LintConfig struct {
	FailOn   string            `mapstructure:"failOn"`
	Ignore   []IgnoreRule      `mapstructure:"ignore"`
	Severity map[string]string `mapstructure:"severity"`
}

// IgnoreRule suppresses a code, optionally only for matching objects
// ("Kind/namespace/name", with * globs).
type IgnoreRule struct {
	Code   string `mapstructure:"code"`
	Object string `mapstructure:"object"`
}

// LenientFields reports whether unknown fields are only warnings (config
// strictFields: false).
func (c *Config) LenientFields() bool { return c.StrictFields != nil && !*c.StrictFields }

// PolicyConfig converts the file config into what policy kinds read.
func (c *Config) PolicyConfig() policy.Config {
	pc := policy.Config{Values: map[string]any{}, LenientFields: c.LenientFields()}
	for k, v := range c.Settings {
		pc.Values[k] = v
		if section, ok := v.(map[string]any); ok {
			for sk, sv := range section {
				pc.Values[k+"."+sk] = sv // a section's keys as written (policy.Setting)
			}
		}
	}
	return pc
}

// WithSetting sets the family deployment setting key (policy.Setting) to
// v, as the config file would (tests set a few settings so), and returns
// c.
func (c *Config) WithSetting(key string, v any) *Config {
	c.Settings = maps.Clone(c.Settings)
	if c.Settings == nil {
		c.Settings = map[string]any{}
	}
	c.Settings[key] = v
	return c
}
