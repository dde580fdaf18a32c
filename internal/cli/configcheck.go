package cli

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/lint"
	yaml "go.yaml.in/yaml/v3"
)

// configSchema is what the config may say, read off Config's mapstructure
// tags so that a key added to Config is known here without a second list.
type configSchema struct {
	// leaves are the dotted key paths of scalar and list settings.
	leaves []string
	// open are the dotted paths of map settings, whose keys are the
	// user's own (policyMerge kinds, lint.severity codes, wso2 params).
	open []string
}

func newConfigSchema() configSchema {
	var s configSchema
	s.walk(reflect.TypeOf(Config{}), "")
	// the controller families' deployment settings, as they declare them
	for _, d := range families.Registry().Settings() {
		if _, open := d.Default.(map[string]any); open {
			s.open = append(s.open, d.Key)
		} else {
			s.leaves = append(s.leaves, d.Key)
		}
	}
	slices.Sort(s.leaves)
	return s
}

func (s *configSchema) walk(t reflect.Type, prefix string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
		if opts == "squash" {
			s.walk(f.Type, prefix)
			continue
		}
		if tag == "" || tag == "-" {
			continue
		}
		key := prefix + tag
		switch f.Type.Kind() {
		case reflect.Struct:
			s.walk(f.Type, key+".")
		case reflect.Map:
			s.open = append(s.open, key)
		default:
			s.leaves = append(s.leaves, key)
		}
	}
}

// known reports whether the dotted key is a setting, or lies inside one.
func (s configSchema) known(key string) bool {
	for _, l := range s.leaves {
		if strings.EqualFold(l, key) {
			return true
		}
	}
	for _, o := range s.open {
		if strings.EqualFold(o, key) || len(key) > len(o) && strings.EqualFold(key[:len(o)+1], o+".") {
			return true
		}
	}
	return false
}

// isSection reports whether key names a group of settings (lint).
func (s configSchema) isSection(key string) bool {
	for _, l := range slices.Concat(s.leaves, s.open) {
		if len(l) > len(key) && strings.EqualFold(l[:len(key)+1], key+".") {
			return true
		}
	}
	return false
}

// suggest is the nearest known key, for "did you mean".
func (s configSchema) suggest(key string) string {
	all := slices.Concat(s.leaves, s.open)
	lower := make([]string, len(all))
	for i, k := range all {
		lower[i] = strings.ToLower(k)
	}
	best := closest(strings.ToLower(key), lower)
	if i := slices.Index(lower, best); best != "" && i >= 0 {
		return all[i]
	}
	return ""
}

func (s configSchema) unknownKey(where, key string) error {
	msg := fmt.Sprintf("config %s: unknown key %q", where, key)
	if near := s.suggest(key); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	} else {
		msg += fmt.Sprintf(" (known keys: %s)", strings.Join(slices.Concat(s.leaves, s.open), ", "))
	}
	return diag.Errorf(diag.Usage, "%s", msg)
}

// checkConfigFile fails on the first key of the file that gwpol does not
// read: a misspelled key (failOnn) would otherwise leave its setting at
// the default without a word, and a CI gate would fail open.
func checkConfigFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return diag.Errorf(diag.Invalid, "config file %s: %v", path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return configSyntaxError(path, err)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	if err := duplicateKeys(path, doc.Content[0]); err != nil {
		return err
	}
	return newConfigSchema().checkMapping(path, doc.Content[0], "")
}

// yamlLine is the "line N: " yaml.v3 puts in its messages.
var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// configSyntaxError turns the YAML library's message into a positioned
// usage error (a config file is part of the command line: exit 2).
func configSyntaxError(path string, err error) error {
	msg := strings.TrimSpace(err.Error())
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return diag.Errorf(diag.Usage, "config %s:%s: not valid YAML: %s", path, m[1], m[2])
	}
	return diag.Errorf(diag.Usage, "config %s: not valid YAML: %s", path, strings.TrimPrefix(msg, "yaml: "))
}

// duplicateKeys fails on a mapping that sets one key twice: the YAML
// library refuses such a file with a message that names neither the file
// nor the setting, and which value was meant is anyone's guess.
func duplicateKeys(path string, n *yaml.Node) error {
	switch n.Kind {
	case yaml.MappingNode:
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if prev, dup := seen[k.Value]; dup && k.Kind == yaml.ScalarNode {
				return diag.Errorf(diag.Usage, "config %s:%d:%d: key %q is set twice (also at line %d); keep one", path, k.Line, k.Column, k.Value, prev.Line)
			}
			seen[k.Value] = k
			if err := duplicateKeys(path, n.Content[i+1]); err != nil {
				return err
			}
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for _, c := range n.Content {
			if err := duplicateKeys(path, c); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s configSchema) checkMapping(file string, n *yaml.Node, prefix string) error {
	if n.Kind != yaml.MappingNode {
		if prefix == "" && n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return nil
		}
		return diag.Errorf(diag.Usage, "config %s:%d:%d: %s must be a mapping of settings", file, n.Line, n.Column, orTop(prefix))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := prefix + k.Value
		switch {
		case s.known(key):
			if err := s.checkValue(file, key, v); err != nil {
				return err
			}
		case s.isSection(key):
			if err := s.checkMapping(file, v, key+"."); err != nil {
				return err
			}
		default:
			return s.unknownKey(fmt.Sprintf("%s:%d:%d", file, k.Line, k.Column), key)
		}
	}
	return nil
}

func orTop(prefix string) string {
	if prefix == "" {
		return "the file"
	}
	return strings.TrimSuffix(prefix, ".")
}

// checkValue looks inside the settings whose content names lint rules:
// an ignore entry or severity for a code that does not exist suppresses
// nothing, which is the silent failure this check is for.
func (s configSchema) checkValue(file, key string, v *yaml.Node) error {
	at := func(n *yaml.Node) string { return fmt.Sprintf("%s:%d:%d", file, n.Line, n.Column) }
	switch strings.ToLower(key) {
	case "lint.severity":
		if v.Kind != yaml.MappingNode {
			return diag.Errorf(diag.Usage, "config %s: lint.severity must map rule codes to severities", at(v))
		}
		for i := 0; i < len(v.Content); i += 2 {
			if err := checkRuleCode(at(v.Content[i]), "lint.severity", v.Content[i].Value); err != nil {
				return err
			}
		}
	case "lint.ignore":
		return checkIgnore(at, v)
	}
	return nil
}

func checkIgnore(at func(*yaml.Node) string, v *yaml.Node) error {
	if v.Kind != yaml.SequenceNode {
		return diag.Errorf(diag.Usage, "config %s: lint.ignore must be a list of {code, object} entries", at(v))
	}
	for _, e := range v.Content {
		if e.Kind != yaml.MappingNode {
			return diag.Errorf(diag.Usage, "config %s: a lint.ignore entry must be a mapping {code: GWPnnn, object: Kind/ns/name}", at(e))
		}
		for i := 0; i+1 < len(e.Content); i += 2 {
			k, val := e.Content[i], e.Content[i+1]
			switch k.Value {
			case "code":
				if err := checkRuleCode(at(val), "lint.ignore", val.Value); err != nil {
					return err
				}
			case "object":
			default:
				msg := fmt.Sprintf("config %s: unknown key %q in a lint.ignore entry (keys: code, object)", at(k), k.Value)
				if near := closest(k.Value, []string{"code", "object"}); near != "" {
					msg += fmt.Sprintf("; did you mean %q?", near)
				}
				return diag.Errorf(diag.Usage, "%s", msg)
			}
		}
	}
	return nil
}

// checkRuleCode fails on a code that no lint rule has.
func checkRuleCode(where, key, code string) error {
	if _, ok := lint.Lookup(families.Registry(), strings.ToUpper(code)); ok {
		return nil
	}
	var codes []string
	for _, r := range lintRules() {
		codes = append(codes, r.Code)
	}
	msg := fmt.Sprintf("config %s: %s names rule %q, which does not exist", where, key, code)
	if near := closest(strings.ToUpper(code), codes); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	return diag.Errorf(diag.Usage, "%s (gwpol lint --list-rules lists them)", msg)
}

// checkConfigEnv fails on a GWPOL_* variable that names no setting: the
// environment is config too, and a typo there fails open the same way.
func checkConfigEnv(environ []string) error {
	s := newConfigSchema()
	var envKeys []string
	byEnv := map[string]bool{}
	for _, l := range s.leaves {
		e := "GWPOL_" + strings.ToUpper(strings.ReplaceAll(l, ".", "_"))
		byEnv[e] = true
		envKeys = append(envKeys, e)
	}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if name == "GWPOL_GUARDRAILS" {
			// a list of rules with positions: read from the file only, so
			// a value here would be dropped without a word
			return diag.Errorf(diag.Usage, "environment variable %s: guardrails are read from the config file only (guardrails:, see docs/guardrails.md)", name)
		}
		if !strings.HasPrefix(name, "GWPOL_") || byEnv[name] {
			continue
		}
		msg := fmt.Sprintf("environment variable %s names no gwpol setting", name)
		if near := closest(name, envKeys); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
		}
		return diag.Errorf(diag.Usage, "%s", msg)
	}
	return nil
}
