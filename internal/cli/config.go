package cli

import (
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/spf13/viper"
)

// DefaultConfigFile is read from the working directory when present.
const DefaultConfigFile = ".gwpol.yaml"

// Config and its sections are the content of .gwpol.yaml, which the
// pipeline consumes (pipeline.Config); cli reads it.
type (
	Config       = pipeline.Config
	RenderConfig = pipeline.RenderConfig
	LintConfig   = pipeline.LintConfig
	IgnoreRule   = pipeline.IgnoreRule
)

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
	v.SetDefault("maxFileSize", 64<<20)
	v.SetDefault("lint.failOn", "error")
	for _, k := range []string{"policyDefinitions", "engineManifest"} {
		v.SetDefault(k, "")
	}
	settings := families.Registry().Settings()
	for _, s := range settings {
		v.SetDefault(s.Key, s.Default)
	}
	explicit := path != ""
	if !explicit {
		if _, err := os.Stat(DefaultConfigFile); err == nil {
			path = DefaultConfigFile
		}
	}
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return nil, nil, diag.Errorf(diag.Usage, "config file %s not found", path)
		}
		// Checked before viper reads it: a positioned message for a syntax
		// error, a key set twice or an unknown key.
		if err := checkConfigFile(path); err != nil {
			return nil, nil, err
		}
		v.SetConfigFile(path)
		if err := v.ReadInConfig(); err != nil {
			var nf viper.ConfigFileNotFoundError
			if errors.As(err, &nf) || os.IsNotExist(errors.Unwrap(err)) {
				return nil, nil, diag.Errorf(diag.Usage, "config file %s not found", path)
			}
			return nil, nil, diag.Errorf(diag.Usage, "config file %s: %v", path, err)
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
	if err := readSettings(&c, v, settings); err != nil {
		return nil, nil, valueError(path, "", err)
	}
	if err := readSections(&c, settings); err != nil {
		return nil, nil, valueError(path, "", err)
	}
	if err := readGuardrails(&c); err != nil {
		return nil, nil, err
	}
	if err := validate(&c); err != nil {
		// A bad value is a usage error like a bad flag value (exit 2).
		return nil, nil, valueError(path, "", err)
	}
	return &c, v, nil
}

// readSettings reads the controller families' deployment settings
// (policy.Setting) into c.Settings, each converted to its declared type:
// a value of the wrong type is a usage error naming the key. Sections
// (map settings) are readSections'.
func readSettings(c *Config, v *viper.Viper, settings []policy.Setting) error {
	c.Settings = map[string]any{}
	for _, s := range settings {
		if _, open := s.Default.(map[string]any); open {
			continue
		}
		val, err := s.Parse(v.Get(s.Key))
		if err != nil {
			return settingError{s.Key, err}
		}
		if s.Check != nil {
			if err := s.Check(val); err != nil {
				return settingError{s.Key, err}
			}
		}
		c.Settings[s.Key] = val
	}
	return nil
}

// readSections reads the families' config sections (map settings, such as
// wso2: and haptic:) into c.Settings, re-read from the file with their keys
// in their own case (viper lower-cases them: WSO2 system policies' params,
// HAPTIC's trusted WAF policy names are case-sensitive), and checks each
// (Setting.Check): a section that does not pass is a usage error, as a
// bad value of any other key is (exit 2, docs/configuration.md).
func readSections(c *Config, settings []policy.Setting) error {
	for _, s := range settings {
		if _, open := s.Default.(map[string]any); !open {
			continue
		}
		m, err := section(c, s.Key)
		if err != nil {
			return settingError{s.Key, err}
		}
		if m == nil {
			m = map[string]any{}
		}
		if s.Check != nil {
			if err := s.Check(m); err != nil {
				return settingError{s.Key, err}
			}
		}
		c.Settings[s.Key] = m
	}
	return nil
}

// validate checks the settings' values (a bad one is a usage error).
func validate(c *Config) error {
	if t := c.Render.Target; t != "" && !slices.Contains(targetChoices(), t) {
		return badSetting("render.target", "render.target must be one of %s, not %q", strings.Join(targetChoices(), ", "), t)
	}
	if _, err := diag.ParseSeverity(c.Lint.FailOn); err != nil {
		return badSetting("lint.failOn", "lint.failOn: %v", err)
	}
	for code, s := range c.Lint.Severity {
		if _, err := diag.ParseSeverity(s); err != nil {
			return badSetting("lint.severity."+code, "lint.severity.%s: %v", code, err)
		}
	}
	return nil
}
