package model

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
)

// A Gateway API kind the model reads whose CRD gwpol does not ship (the
// experimental XListenerSet: the CRD bundles gwpol carries, Gateway API
// v1.6's, have none) is checked by hand where its CRD would refuse a
// value that reaches output or the Envoy config: each listener's name,
// hostname, protocol and port, as the ListenerEntry type both listener
// set kinds share declares them (the v1 ListenerSet CRD,
// config/crd/experimental/gateway.networking.k8s.io_listenersets.yaml:
// SectionName, Hostname, ProtocolType, PortNumber). Without the check a
// listener hostname holding a newline reached the rendered Envoy
// config, which refused it (exit 4). Like the list limits these apply
// only while no CRD for the kind is known (GWP101, dropped by Build when
// the schema stage checked the object against a CRD).

// entryField is a field of each entry of a list, held to a pattern and
// length (strings) or a range (integers).
type entryField struct {
	field    string
	pattern  *regexp.Regexp
	min, max int // string length, or the integer's range when integer
	integer  bool
}

var (
	sectionNamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	hostnamePattern    = regexp.MustCompile(`^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	protocolPattern    = regexp.MustCompile(`^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?$|[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9]+$`)
)

// listenerEntryFields are ListenerEntry's checked fields.
var listenerEntryFields = []entryField{
	{field: "name", pattern: sectionNamePattern, min: 1, max: 253},
	{field: "hostname", pattern: hostnamePattern, min: 1, max: 253},
	{field: "protocol", pattern: protocolPattern, min: 1, max: 255},
	{field: "port", min: 1, max: 65535, integer: true},
}

// entryChecks are, per kind read without a shipped CRD, the lists whose
// entries are checked and the fields checked in each.
var entryChecks = map[GroupKind]map[string][]entryField{
	XListenerSetKind: {"spec.listeners": listenerEntryFields},
}

// entryFindings are the fields of o's checked list entries the kind's
// CRD would refuse (GWP101).
func entryFindings(o *manifest.Object, gk GroupKind) []diag.Diagnostic {
	var out []diag.Diagnostic
	for list, fields := range entryChecks[gk] {
		for i := 0; o.Has(fmt.Sprintf("%s[%d]", list, i)); i++ {
			for _, f := range fields {
				path := fmt.Sprintf("%s[%d].%s", list, i, f.field)
				v, ok := o.Scalar(path)
				if !ok {
					continue // absent, or a wrong type the decoder reports
				}
				if msg := f.problem(v); msg != "" {
					out = append(out, diag.Diagnostic{Code: LintInvalidDocument.Code, Severity: diag.Error, Object: o.Ref(), Field: path, Pos: o.FieldPos(path),
						Message: fmt.Sprintf("%s: Invalid value: %s: %s; the %s CRD does not allow this, so the API server rejects this object and gwpol leaves it out", path, ShownValue(v), msg, gk.Kind)})
				}
			}
		}
	}
	return diag.Sort(out)
}

// problem is why the CRD refuses v, "" when it does not.
func (f entryField) problem(v string) string {
	if f.integer {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			return "" // not an integer: the decoder reports it
		case n < f.min:
			return fmt.Sprintf("should be greater than or equal to %d", f.min)
		case n > f.max:
			return fmt.Sprintf("should be less than or equal to %d", f.max)
		}
		return ""
	}
	switch {
	case len(v) < f.min:
		return fmt.Sprintf("should be at least %d chars long", f.min)
	case len(v) > f.max:
		return fmt.Sprintf("may not be more than %d bytes", f.max)
	case !f.pattern.MatchString(v):
		return fmt.Sprintf("should match '%s'", f.pattern)
	}
	return ""
}
