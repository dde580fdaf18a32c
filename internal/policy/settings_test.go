package policy

import (
	"slices"
	"testing"
)

// TestSettingParse: a value is converted to the type of the setting's
// default, from YAML's types and from the strings GWPOL_* variables give;
// anything else is an error naming the key.
func TestSettingParse(t *testing.T) {
	b := Setting{Key: "x.on", Default: false}
	n := Setting{Key: "x.n", Default: 0}
	s := Setting{Key: "x.mode", Default: "opt-in", Choices: []string{"opt-in", "default-on"}}
	l := Setting{Key: "x.list", Default: []string{}}
	good := []struct {
		s    Setting
		in   any
		want any
	}{
		{b, true, true}, {b, "false", false}, {b, " TRUE ", true},
		{n, 3, 3}, {n, float64(4), 4}, {n, "12", 12},
		{s, "Default-On", "default-on"},
		{l, []any{"a", "b"}, []string{"a", "b"}}, {l, "a, b", []string{"a", "b"}},
	}
	for _, g := range good {
		got, err := g.s.Parse(g.in)
		if err != nil {
			t.Errorf("%s: Parse(%#v): %v", g.s.Key, g.in, err)
			continue
		}
		if gl, ok := got.([]string); ok {
			if !slices.Equal(gl, g.want.([]string)) {
				t.Errorf("%s: Parse(%#v) = %v, want %v", g.s.Key, g.in, got, g.want)
			}
		} else if got != g.want {
			t.Errorf("%s: Parse(%#v) = %#v, want %#v", g.s.Key, g.in, got, g.want)
		}
	}
	bad := []struct {
		s    Setting
		in   any
		want string
	}{
		{b, "yes please", `x.on must be true or false, not "yes please"`},
		{b, map[string]any{}, "x.on must be true or false, not a map"},
		{n, 1.5, "x.n must be a whole number, not 1.5"},
		{s, "sometimes", `x.mode must be one of opt-in, default-on, not "sometimes"`},
		{s, 3, `x.mode must be one of opt-in, default-on, not "3"`},
		{s, []any{"opt-in"}, "x.mode must be a string, not a list"},
		{l, []any{"a", 1}, "x.list must be a list of strings, not one holding 1"},
	}
	for _, c := range bad {
		if _, err := c.s.Parse(c.in); err == nil || err.Error() != c.want {
			t.Errorf("%s: Parse(%#v) error = %v, want %q", c.s.Key, c.in, err, c.want)
		}
	}
}

// TestSettingValue: a setting reads its value from Config.Values and
// falls back to its default when the config holds none (or holds one that
// does not fit).
func TestSettingValue(t *testing.T) {
	on := Setting{Key: "x.on", Default: true}
	mode := Setting{Key: "x.mode", Default: "opt-in", Choices: []string{"opt-in", "default-on"}}
	if !on.Bool(Config{}) || mode.String(Config{}) != "opt-in" {
		t.Errorf("defaults: %v %q", on.Bool(Config{}), mode.String(Config{}))
	}
	c := Config{Values: map[string]any{"x.on": "false", "x.mode": "DEFAULT-ON"}}
	if on.Bool(c) || mode.String(c) != "default-on" {
		t.Errorf("set: %v %q", on.Bool(c), mode.String(c))
	}
	r := NewRegistry()
	r.AddSettings(mode, on)
	if got := r.Settings(); len(got) != 2 || got[0].Key != "x.mode" || got[1].Key != "x.on" {
		t.Errorf("Settings() = %v, want sorted by key", got)
	}
}
