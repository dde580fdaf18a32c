package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/spf13/viper"
)

// DefaultConfigFile is read from the working directory when present.
const DefaultConfigFile = ".gwpol.yaml"

// Config is the content of .gwpol.yaml (every key may also come from a
// GWPOL_* environment variable, e.g. GWPOL_CONTROLLERNAME).
type Config struct {
	Namespace             string                       `mapstructure:"namespace"`
	ControllerName        string                       `mapstructure:"controllerName"`
	GlobalPolicyNamespace string                       `mapstructure:"globalPolicyNamespace"`
	ReferenceGrantMode    string                       `mapstructure:"referenceGrantMode"`
	ValidationMode        string                       `mapstructure:"validationMode"`
	PolicyMerge           map[string]map[string]string `mapstructure:"policyMerge"`
	MaxFileSize           int64                        `mapstructure:"maxFileSize"`
	// StrictFields makes unknown fields errors (GWP102), as kubectl's
	// strict field validation rejects such objects; false: warnings.
	StrictFields      *bool  `mapstructure:"strictFields"` // nil: the default, true
	PolicyDefinitions string `mapstructure:"policyDefinitions"`
	EngineManifest    string `mapstructure:"engineManifest"`
	// EngineManifests are the engine build manifests to load: the
	// --engine-manifest flags when given, else EngineManifest.
	EngineManifests []string   `mapstructure:"-"`
	Lint            LintConfig `mapstructure:"lint"`
	// Render is the render: section.
	Render RenderConfig `mapstructure:"render"`
	// Exclude are globs of input paths not to read (--exclude adds more).
	Exclude          []string `mapstructure:"exclude"`
	KgatewaySettings `mapstructure:",squash"`
	WSO2             map[string]any `mapstructure:"wso2"`
	// HAPTIC are the HAPTIC deployment's chart switches (haptic.Settings).
	HAPTIC map[string]any `mapstructure:"haptic"`

	// File is the config file read, "" when none.
	File string `mapstructure:"-"`
}

// KgatewaySettings are kgateway's controller settings that change
// translation, under the lower-camel-case names of kgateway's own, with
// its defaults (DESIGN: controller settings).
type KgatewaySettings struct {
	EnableAuthMetadata                   bool  `mapstructure:"enableAuthMetadata"`
	EnableExperimentalGatewayAPIFeatures bool  `mapstructure:"enableExperimentalGatewayAPIFeatures"`
	WeightedRoutePrecedence              bool  `mapstructure:"weightedRoutePrecedence"`
	EnableRouteSourceMetadata            bool  `mapstructure:"enableRouteSourceMetadata"`
	EnableAwsEc2Discovery                bool  `mapstructure:"enableAwsEc2Discovery"`
	DiscoveryNamespaceSelectors          []any `mapstructure:"discoveryNamespaceSelectors"`
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

// loadConfig reads the config file (explicit path, or .gwpol.yaml when it
// exists) and GWPOL_* variables.
func loadConfig(path string) (*Config, *viper.Viper, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	v.SetEnvPrefix("GWPOL")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	v.SetDefault("namespace", "default")
	v.SetDefault("controllerName", "kgateway.dev/kgateway")
	v.SetDefault("referenceGrantMode", "Permissive") // kgateway's default
	v.SetDefault("validationMode", "Standard")
	v.SetDefault("enableAuthMetadata", false) // kgateway's default
	v.SetDefault("maxFileSize", 64<<20)
	v.SetDefault("lint.failOn", "error")
	v.SetDefault("enableExperimentalGatewayAPIFeatures", true)
	for _, k := range []string{"globalPolicyNamespace", "policyDefinitions", "engineManifest"} {
		v.SetDefault(k, "")
	}
	explicit := path != ""
	if !explicit {
		if _, err := os.Stat(DefaultConfigFile); err == nil {
			path = DefaultConfigFile
		}
	}
	if path != "" {
		v.SetConfigFile(path)
		if err := v.ReadInConfig(); err != nil {
			var nf viper.ConfigFileNotFoundError
			if errors.As(err, &nf) || os.IsNotExist(errors.Unwrap(err)) {
				return nil, nil, diag.Errorf(diag.Usage, "config file %s not found", path)
			}
			return nil, nil, diag.Errorf(diag.Invalid, "config file %s: %v", path, err)
		}
		if err := checkConfigFile(path); err != nil {
			return nil, nil, err
		}
	}
	if err := checkConfigEnv(os.Environ()); err != nil {
		return nil, nil, err
	}
	var c Config
	if err := v.Unmarshal(&c); err != nil {
		return nil, nil, diag.Errorf(diag.Invalid, "config file %s: %v", path, err)
	}
	c.File = v.ConfigFileUsed()
	if err := c.readWSO2(); err != nil {
		return nil, nil, diag.Errorf(diag.Invalid, "config file %s: %v", path, err)
	}
	if err := c.readHAPTIC(); err != nil {
		return nil, nil, diag.Errorf(diag.Invalid, "config %s: %v", orEnv(path), err)
	}
	if err := c.validate(); err != nil {
		// A bad value is a usage error like a bad flag value (exit 2).
		return nil, nil, diag.Errorf(diag.Usage, "config %s: %v", orEnv(path), err)
	}
	return &c, v, nil
}

// lenientFields reports whether unknown fields are only warnings.
func (c *Config) lenientFields() bool { return c.StrictFields != nil && !*c.StrictFields }

func orEnv(path string) string {
	if path == "" {
		return "(environment)"
	}
	return path
}

func (c *Config) validate() error {
	switch strings.ToLower(c.ReferenceGrantMode) {
	case "strict", "permissive", "off":
	default:
		return fmt.Errorf("referenceGrantMode must be Strict, Permissive or Off, not %q", c.ReferenceGrantMode)
	}
	switch strings.ToLower(c.ValidationMode) {
	case "standard", "strict":
	default:
		return fmt.Errorf("validationMode must be Standard or Strict, not %q", c.ValidationMode)
	}
	for kind, fields := range c.PolicyMerge {
		for f, s := range fields {
			if s != "DeepMerge" && s != "ShallowMerge" {
				return fmt.Errorf("policyMerge.%s.%s must be DeepMerge or ShallowMerge, not %q", kind, f, s)
			}
		}
	}
	if t := c.Render.Target; t != "" && !slices.Contains(targetChoices(), t) {
		return fmt.Errorf("render.target must be one of %s, not %q", strings.Join(targetChoices(), ", "), t)
	}
	if _, err := diag.ParseSeverity(c.Lint.FailOn); err != nil {
		return fmt.Errorf("lint.failOn: %v", err)
	}
	for code, s := range c.Lint.Severity {
		if _, err := diag.ParseSeverity(s); err != nil {
			return fmt.Errorf("lint.severity.%s: %v", code, err)
		}
	}
	return nil
}
