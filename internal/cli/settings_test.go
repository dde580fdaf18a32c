package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	goldenfile "github.com/gwpol/gwpol/internal/golden"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestConfigSettings: every deployment setting a controller family
// declares is a config key and a GWPOL_* variable with the family's
// default, reaches the kinds in policy.Config.Values converted to its
// type, and a value of the wrong type is a usage error naming the key.
func TestConfigSettings(t *testing.T) {
	settings := families.Registry().Settings()
	if len(settings) == 0 {
		t.Fatal("no family declares a deployment setting")
	}
	dir := t.TempDir()
	none := filepath.Join(dir, "none.yaml")
	if err := os.WriteFile(none, []byte("namespace: default\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, err := loadConfig(none)
	if err != nil {
		t.Fatal(err)
	}
	values := c.PolicyConfig().Values
	for _, s := range settings {
		if _, isMap := s.Default.(map[string]any); isMap {
			continue
		}
		if got := fmt.Sprint(values[s.Key]); got != fmt.Sprint(s.Default) {
			t.Errorf("%s: unset, value %s, want the default %v", s.Key, got, s.Default)
		}
	}
	var b policy.Setting
	for _, s := range settings {
		if _, ok := s.Default.(bool); ok {
			b = s
			break
		}
	}
	if b.Key == "" {
		t.Skip("no bool setting to set")
	}
	// the key written in the file, as nested mappings
	parts := strings.Split(b.Key, ".")
	var yml strings.Builder
	for i, p := range parts {
		yml.WriteString(strings.Repeat("  ", i) + p + ":")
		if i == len(parts)-1 {
			fmt.Fprintf(&yml, " %v\n", !b.Default.(bool))
		} else {
			yml.WriteString("\n")
		}
	}
	set := filepath.Join(dir, "set.yaml")
	if err := os.WriteFile(set, []byte(yml.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, err = loadConfig(set)
	if err != nil {
		t.Fatalf("%s:\n%s\n%v", b.Key, yml.String(), err)
	}
	if got := b.Bool(c.PolicyConfig()); got == b.Default.(bool) {
		t.Errorf("%s set to %v in the file, read %v", b.Key, !b.Default.(bool), got)
	}
	// the environment
	env := "GWPOL_" + strings.ToUpper(strings.ReplaceAll(b.Key, ".", "_"))
	t.Setenv(env, fmt.Sprint(!b.Default.(bool)))
	if c, _, err = loadConfig(none); err != nil {
		t.Fatalf("%s: %v", env, err)
	}
	if got := b.Bool(c.PolicyConfig()); got == b.Default.(bool) {
		t.Errorf("%s=%v, read %v", env, !b.Default.(bool), got)
	}
	t.Setenv(env, "maybe")
	if _, _, err = loadConfig(none); err == nil || !strings.Contains(err.Error(), b.Key+` must be true or false, not "maybe"`) {
		t.Errorf("%s=maybe: error %v, want one naming the key", env, err)
	}
	// a key beside it that no family declares is still refused
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(yml.String(), parts[len(parts)-1]+":", parts[len(parts)-1]+"Typo:", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(env, fmt.Sprint(b.Default))
	if _, _, err = loadConfig(bad); err == nil || !strings.Contains(err.Error(), "unknown key") {
		t.Errorf("misspelled %s: error %v, want unknown key", b.Key, err)
	}
}

// settingsBegin and settingsEnd delimit the table of deployment settings
// in docs/configuration.md, which TestSettingsDocumented writes from the
// families' declarations.
const (
	settingsBegin = "<!-- settings: generated from the families' declarations (policy.Setting); go test ./internal/cli -run TestSettingsDocumented -update -->"
	settingsEnd   = "<!-- end settings -->"
)

// TestSettingsDocumented: docs/configuration.md lists every declared
// deployment setting with its default, what it changes and where the
// controller defines it (-update rewrites the table).
func TestSettingsDocumented(t *testing.T) {
	const doc = "../../docs/configuration.md"
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start, end := strings.Index(text, settingsBegin), strings.Index(text, settingsEnd)
	if start < 0 || end < start {
		t.Fatalf("%s has no %q … %q section", doc, settingsBegin, settingsEnd)
	}
	var table strings.Builder
	table.WriteString(settingsBegin + "\n\n| key | default | what it changes | where the controller defines it |\n|---|---|---|---|\n")
	for _, s := range families.Registry().Settings() {
		def := fmt.Sprint(s.Default)
		switch d := s.Default.(type) {
		case string:
			def = fmt.Sprintf("%q", d)
		case []string:
			def = "[" + strings.Join(d, ", ") + "]"
		case map[string]any:
			def = "{}"
		}
		if len(s.Choices) > 0 {
			def += " (" + strings.Join(s.Choices, ", ") + ")"
		}
		fmt.Fprintf(&table, "| `%s` | `%s` | %s | %s |\n", s.Key, def, strings.ReplaceAll(s.Doc, "|", `\|`), strings.ReplaceAll(s.Source, "|", `\|`))
	}
	table.WriteString("\n")
	got := text[:start] + table.String() + text[end:]
	goldenfile.Check(t, doc, []byte(got))
}
