package cli

import (
	"os"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/guardrail"
	"path/filepath"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// section re-reads a top-level mapping of the config file as written,
// keys in their own case (viper lower-cases them); nil when the file has
// none.
func section(c *Config, name string) (map[string]any, error) {
	if c.File == "" {
		return nil, nil
	}
	data, err := os.ReadFile(c.File)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	for k, v := range doc {
		if m, ok := v.(map[string]any); ok && strings.EqualFold(k, name) {
			return m, nil
		}
	}
	return nil, nil
}

// readGuardrails reads the guardrails: section of the config file with
// its positions (guardrail.Parse): an unknown key, an unknown field name
// or a malformed bound is a usage error at its line.
func readGuardrails(c *Config) error {
	c.Guardrails = nil
	if c.File == "" || c.GuardrailsSection == nil {
		return nil
	}
	data, err := os.ReadFile(c.File)
	if err != nil {
		return diag.Errorf(diag.Invalid, "config file %s: %v", c.File, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil // checkConfigFile has reported it
	}
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		if strings.EqualFold(top.Content[i].Value, "guardrails") {
			c.Guardrails, err = guardrail.Parse(c.File, top.Content[i+1], families.Registry())
			return err
		}
	}
	return nil
}

// relative resolves a path from the config file against the file's
// directory.
func relative(c *Config, path string) string {
	if path == "" || c.File == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(filepath.Dir(c.File), path)
}
