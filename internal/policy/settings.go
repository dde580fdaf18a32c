package policy

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Setting is one deployment setting of a controller that changes what the
// controller does with the same manifests: a switch of its own
// configuration (Envoy Gateway's EnvoyGateway resource, a Helm chart's
// values, a controller's environment) that no input object says. A family
// package declares its settings and internal/families registers them
// (Registry.AddSettings); the config reader makes each one a key of
// .gwpol.yaml (and of GWPOL_*) with the controller's default, and hands
// the value to the kinds in Config.Values under the same key. Generic code
// reads the declarations and never names a key.
type Setting struct {
	// Key is the dotted config key, lower camel case after the
	// controller's own name: "envoyGateway.extensionApis.enableEnvoyPatchPolicy".
	Key string
	// Default is the controller's own default; its type (bool, string,
	// int, []string, or []any for a list of entries the family reads
	// itself) is the type the key takes. A map[string]any
	// default makes the key a whole top-level section that the family
	// reads itself (keys kept in the case written): Config.Values holds
	// the section under Key and each of its keys under Key.key; Check
	// validates the section, and a section that does not pass is an input
	// error.
	Default any
	// Doc says in one sentence what the setting changes.
	Doc string
	// Source is where the controller defines the setting, at the version
	// gwpol follows ("api/v1alpha1/envoygateway_types.go: ExtensionAPISettings").
	Source string
	// Choices, when set, are the only values a string setting takes
	// (compared case-insensitively; Value returns the choice's spelling).
	Choices []string
	// Check, when set, validates a value Parse converted (a URL's form,
	// a duration); its error names the key.
	Check func(v any) error
}

// AddSettings registers the deployment settings of the families the
// pipeline lists.
func (r *Registry) AddSettings(s ...Setting) { r.settings = append(r.settings, s...) }

// Settings are the registered deployment settings, sorted by key.
func (r *Registry) Settings() []Setting {
	out := slices.Clone(r.settings)
	slices.SortFunc(out, func(a, b Setting) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// Parse converts a value as the config file or a GWPOL_* variable gives
// it (a YAML scalar or list, or a string) to the setting's type, or says
// why it cannot.
func (s Setting) Parse(v any) (any, error) {
	switch s.Default.(type) {
	case bool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
				return b, nil
			}
		}
		return nil, fmt.Errorf("%s must be true or false, not %s", s.Key, show(v))
	case int:
		switch x := v.(type) {
		case int:
			return x, nil
		case int64:
			return int(x), nil
		case uint64:
			return int(x), nil
		case float64:
			if x == float64(int(x)) {
				return int(x), nil
			}
		case string:
			if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil {
				return n, nil
			}
		}
		return nil, fmt.Errorf("%s must be a whole number, not %s", s.Key, show(v))
	case string:
		var x string
		switch y := v.(type) {
		case string:
			x = y
		case int, int64, uint64, float64, bool: // a YAML scalar written bare (timeout: 20)
			x = fmt.Sprint(y)
		default:
			return nil, fmt.Errorf("%s must be a string, not %s", s.Key, show(v))
		}
		if len(s.Choices) == 0 {
			return x, nil
		}
		for _, c := range s.Choices {
			if strings.EqualFold(c, strings.TrimSpace(x)) {
				return c, nil
			}
		}
		return nil, fmt.Errorf("%s must be one of %s, not %q", s.Key, strings.Join(s.Choices, ", "), x)
	case []string:
		switch x := v.(type) {
		case []string:
			return x, nil
		case string: // GWPOL_* variables: comma or space separated
			return strings.FieldsFunc(x, func(r rune) bool { return r == ',' || r == ' ' }), nil
		case []any:
			out := make([]string, 0, len(x))
			for _, e := range x {
				str, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("%s must be a list of strings, not one holding %s", s.Key, show(e))
				}
				out = append(out, str)
			}
			return out, nil
		}
		return nil, fmt.Errorf("%s must be a list of strings, not %s", s.Key, show(v))
	case []any:
		// a list of entries the family reads itself (label selectors)
		switch x := v.(type) {
		case []any:
			return x, nil
		case nil:
			return []any{}, nil
		}
		return nil, fmt.Errorf("%s must be a list, not %s", s.Key, show(v))
	case map[string]any:
		if m, ok := v.(map[string]any); ok {
			return m, nil
		}
		if v == nil {
			return map[string]any{}, nil
		}
		return nil, fmt.Errorf("%s must be a map, not %s", s.Key, show(v))
	}
	return nil, fmt.Errorf("%s: a setting of type %T is not supported", s.Key, s.Default)
}

// show names a config value in a message: strings quoted, others by type.
func show(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	switch v.(type) {
	case map[string]any:
		return "a map"
	case []any:
		return "a list"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%v", v)
}

// value is the setting's value in the config: Values[Key] when the
// config reader put it there (always, in gwpol's own runs), else the
// default (a Config a test builds by hand).
func (s Setting) value(c Config) any {
	if v, ok := c.Values[s.Key]; ok {
		if p, err := s.Parse(v); err == nil {
			return p
		}
	}
	return s.Default
}

// Bool is a bool setting's value in c.
func (s Setting) Bool(c Config) bool { b, _ := s.value(c).(bool); return b }

// String is a string setting's value in c.
func (s Setting) String(c Config) string { str, _ := s.value(c).(string); return str }

// Int is a whole-number setting's value in c.
func (s Setting) Int(c Config) int { n, _ := s.value(c).(int); return n }

// Strings is a list setting's value in c.
func (s Setting) Strings(c Config) []string { l, _ := s.value(c).([]string); return l }

// WithSetting is c with the deployment setting key set to v, as the
// config file would give it (tests set a few settings so); c's own Values
// are left as they are.
func (c Config) WithSetting(key string, v any) Config {
	values := maps.Clone(c.Values)
	if values == nil {
		values = map[string]any{}
	}
	values[key] = v
	c.Values = values
	return c
}
