package model

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
)

// Hand-written list limits are for kinds whose CRD gwpol does not ship:
// their families declare the maxItems of those CRDs (Options.ListLimits;
// kgateway's). A list over its limit would be refused whole by the API
// server; gwpol reports it (GWP101) and leaves the object out, instead of
// reading 100,000 targetRefs as valid. They apply only while no CRD for
// the kind is known: given one (--crds, config crds:, or the input), the
// schema stage reports a list over its maxItems in the CRD's words
// (GWP110), the one source of the rule, and Build drops these findings.
// The Gateway API's and Envoy Gateway's kinds always have their CRDs (the
// ones gwpol ships), so none of their lists is limited here.

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

// isLimitFinding reports whether d is one of limitFindings' (GWP101; the
// other refusals, nameFindings', are GWP113).
func isLimitFinding(d diag.Diagnostic) bool { return d.Code == LintInvalidDocument.Code }
