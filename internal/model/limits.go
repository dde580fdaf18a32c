package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
)

// Hand-written list limits are for kinds whose CRD gwpol does not ship:
// their families declare the maxItems of those CRDs (Options.ListLimits,
// policy.Family.ListLimits). A list over its limit would be refused whole by the API
// server; gwpol reports it (GWP101) and leaves the object out, instead of
// reading 100,000 targetRefs as valid. They apply only while no CRD for
// the kind is known: given one (--crds, config crds:, or the input), the
// schema stage reports a list over its maxItems in the CRD's words
// (GWP110), the one source of the rule, and Build drops these findings.
// The kinds whose CRDs gwpol ships (the Gateway API's, and a family's
// whose module carries them) always have them, so none of their lists is
// limited here.

// limitFindings are the lists of o longer than its kind's CRD allows
// (extra: the limits families declare for their kinds).
func limitFindings(o *manifest.Object, gk GroupKind, extra map[GroupKind]*manifest.ListBounds) []diag.Diagnostic {
	bounds := extra[gk]
	var out []diag.Diagnostic
	o.ListsOver(bounds, func(path string, n, max int, pos diag.Position) {
		out = append(out, diag.Diagnostic{Code: LintInvalidDocument.Code, Severity: diag.Error, Object: o.Ref(), Field: path, Pos: pos,
			Message: fmt.Sprintf("%s has %d items; the %s CRD allows at most %d, so the API server rejects this object and gwpol leaves it out", path, n, gk.Kind, max)})
	})
	return out
}

// isLimitFinding reports whether d is one of limitFindings',
// enumFindings' or entryFindings' (GWP101; the other refusals,
// nameFindings', are GWP113).
func isLimitFinding(d diag.Diagnostic) bool { return d.Code == LintInvalidDocument.Code }

// FieldEnum is a field of a kind whose CRD gwpol does not ship, held to
// that CRD's enum, and for a union's discriminator to the member the
// value names: the CRD's rules ("extAuth must be set when type is
// ExtAuth") make the API server refuse an object whose discriminator
// names a member it does not set. Like the list limits, these rules
// apply only while no CRD for the kind is known; given one, the schema
// stage reports the same problem in the CRD's words.
type FieldEnum struct {
	// Path is the field's path ("spec.type", "spec.aws.auth.type").
	Path string
	// Values are the values the CRD allows.
	Values []string
	// Members, for a discriminator, are the sibling field each value
	// requires set ("ExtAuth": "extAuth"); nil for a plain enum.
	Members map[string]string
}

// enumFindings are the fields of o outside their kind's FieldEnums, and
// the discriminators naming a member o does not set.
func enumFindings(o *manifest.Object, gk GroupKind, enums map[GroupKind][]FieldEnum) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, e := range enums[gk] {
		v, ok := o.Scalar(e.Path)
		if !ok {
			continue // absent, or a wrong type the decoder reports
		}
		msg := ""
		switch member := e.Members[v]; {
		case !slices.Contains(e.Values, v):
			msg = fmt.Sprintf("%s: Unsupported value: %q: supported values: %s", e.Path, v, quoteAll(e.Values))
		case member != "" && !o.Has(siblingPath(e.Path, member)):
			msg = fmt.Sprintf("%s is %s, but %s is not set", e.Path, v, siblingPath(e.Path, member))
		default:
			continue
		}
		out = append(out, diag.Diagnostic{Code: LintInvalidDocument.Code, Severity: diag.Error, Object: o.Ref(), Field: e.Path, Pos: o.FieldPos(e.Path),
			Message: fmt.Sprintf("%s; the %s CRD does not allow this, so the API server rejects this object and gwpol leaves it out", msg, gk.Kind)})
	}
	return out
}

// siblingPath is the path of field member beside the field at path.
func siblingPath(path, member string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i+1] + member
	}
	return member
}

func quoteAll(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}
