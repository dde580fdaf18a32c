package policy

import "regexp"

// envoyCommand is one of Envoy's substitution commands in a header value,
// %NAME%, %NAME(ARGS)% or %NAME(ARGS):LENGTH%, as Envoy's parser reads it.
var envoyCommand = regexp.MustCompile(`^%[A-Z0-9_]+(\([^)]*\))?(:[0-9]+)?%`)

// EnvoyFormatOK reports whether Envoy parses v as a substitution format
// (how it reads a header value a route adds or sets), and otherwise the
// position of the % that starts no command (%% is a literal %). Envoy
// refuses a route configuration with such a value when it loads it; no
// proto validation (ValidateAll) sees it.
func EnvoyFormatOK(v string) (int, bool) {
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] != '%':
		case i+1 < len(v) && v[i+1] == '%':
			i++
		default:
			m := envoyCommand.FindString(v[i:])
			if m == "" {
				return i, false
			}
			i += len(m) - 1
		}
	}
	return 0, true
}
