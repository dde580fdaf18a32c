package topology

import (
	"fmt"
	"regexp"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// envoyCommand is one of Envoy's substitution commands in a header value,
// %NAME%, %NAME(ARGS)% or %NAME(ARGS):LENGTH%, as Envoy's parser reads it.
var envoyCommand = regexp.MustCompile(`^%[A-Z0-9_]+(\([^)]*\))?(:[0-9]+)?%`)

// headerFormatProblem: Envoy reads a header value a header modifier adds or
// sets as a substitution format, and refuses one with a % that starts no
// command (%% is a literal %). kgateway's Strict validation runs Envoy's
// own check, so such a rule is replaced. It looks at the rule's filters and
// those of its backendRefs.
func headerFormatProblem(rule *Rule) *RuleProblem {
	for _, f := range headerFilters(rule) {
		if f == nil {
			continue
		}
		for _, h := range append(append([]gwv1.HTTPHeader(nil), f.Set...), f.Add...) {
			if pos, ok := envoyFormatOK(h.Value); !ok {
				return &RuleProblem{Message: fmt.Sprintf("invalid route configuration: the value %s of header %s is not an Envoy substitution format: no valid command at position %d (Strict validation runs Envoy's check)", h.Value, h.Name, pos)}
			}
		}
	}
	return nil
}

// envoyFormatOK reports whether Envoy parses v as a substitution format,
// and otherwise the position of the % that starts no command.
func envoyFormatOK(v string) (int, bool) {
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

// headerFilters are the header modifier filters of a rule and of its
// backendRefs.
func headerFilters(rule *Rule) []*gwv1.HTTPHeaderFilter {
	var out []*gwv1.HTTPHeaderFilter
	switch {
	case rule.HTTP != nil:
		for _, f := range rule.HTTP.Filters {
			out = append(out, f.RequestHeaderModifier, f.ResponseHeaderModifier)
		}
		for _, b := range rule.HTTP.BackendRefs {
			for _, f := range b.Filters {
				out = append(out, f.RequestHeaderModifier, f.ResponseHeaderModifier)
			}
		}
	case rule.GRPC != nil:
		for _, f := range rule.GRPC.Filters {
			out = append(out, f.RequestHeaderModifier, f.ResponseHeaderModifier)
		}
		for _, b := range rule.GRPC.BackendRefs {
			for _, f := range b.Filters {
				out = append(out, f.RequestHeaderModifier, f.ResponseHeaderModifier)
			}
		}
	}
	return out
}
