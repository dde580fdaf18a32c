package cli

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	yaml "go.yaml.in/yaml/v3"
)

// settingError is a config value gwpol cannot use: the dotted key that
// holds it (as written or lower-cased, as viper gives it) and why.
type settingError struct {
	key string
	err error
}

func (e settingError) Error() string { return e.err.Error() }

func badSetting(key string, format string, args ...any) error {
	return settingError{key: key, err: fmt.Errorf(format, args...)}
}

// valueError turns a bad config value into a usage error (exit 2) that
// says where the value was given: the file's line and column of the value
// when the file sets the key, else the GWPOL_* variable that does.
// fallbackKey names the setting when err does not carry a key.
func valueError(path, fallbackKey string, err error) error {
	key := fallbackKey
	var se settingError
	if errors.As(err, &se) {
		key = se.key
	}
	// A family's section check names the key inside its section first in
	// its message ("haptic.rateLimit.shared.enabled must be …"): point at
	// that key rather than at the whole section.
	if lead := leadingKey(err.Error()); key == "" || hasKeyPrefix(lead, key) {
		key = lead
	}
	return diag.Errorf(diag.Usage, "%s: %v", configPlace(path, key), err)
}

// leadingKey is the dotted key a message starts with, up to the first
// space or colon.
func leadingKey(msg string) string {
	end := strings.IndexAny(msg, " :")
	if end < 0 {
		return msg
	}
	return msg[:end]
}

func hasKeyPrefix(key, prefix string) bool {
	if prefix == "" || len(key) < len(prefix) || !strings.EqualFold(key[:len(prefix)], prefix) {
		return false
	}
	return len(key) == len(prefix) || key[len(prefix)] == '.'
}

// configPlace says where the value of key came from: a GWPOL_* variable
// (which overrides the file), the file's position of the value, or the
// file alone when the key cannot be found in it.
func configPlace(path, key string) string {
	if key != "" {
		env := "GWPOL_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
		if _, set := os.LookupEnv(env); set {
			return "environment variable " + env
		}
	}
	if path == "" {
		return "config (environment)"
	}
	if n := configValueNode(path, key); n != nil {
		return fmt.Sprintf("config %s:%d:%d", path, n.Line, n.Column)
	}
	return "config " + path
}

// configValueNode finds the value of a dotted key in the config file,
// keys compared without case (viper lower-cases them); nil when the file
// does not set it. The file was checked before (checkConfigFile), so a
// read or parse error only means there is no position to give.
func configValueNode(path, key string) *yaml.Node {
	if key == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	n := doc.Content[0]
	for _, part := range strings.Split(key, ".") {
		name, indexes, _ := strings.Cut(part, "[")
		if n = mappingValue(n, name); n == nil {
			return nil
		}
		if indexes != "" {
			if n = listItems(n, "["+indexes); n == nil {
				return nil
			}
		}
	}
	return n
}

// listItems follows "[i][j]…" into nested sequences (a family's message
// names a list entry so: "wso2.systemPolicies[1].name").
func listItems(n *yaml.Node, indexes string) *yaml.Node {
	for indexes != "" {
		end := strings.IndexByte(indexes, ']')
		if indexes[0] != '[' || end < 0 {
			return nil
		}
		i, err := strconv.Atoi(indexes[1:end])
		if err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
			return nil
		}
		n, indexes = n.Content[i], indexes[end+1:]
	}
	return n
}

func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if strings.EqualFold(n.Content[i].Value, key) {
			return n.Content[i+1]
		}
	}
	return nil
}
