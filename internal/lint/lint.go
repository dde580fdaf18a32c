package lint

import (
	"path"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
)

// Rule is one lint rule.
type Rule struct {
	Code     string
	Name     string
	Title    string // one line
	Doc      string
	Severity diag.Severity
	Run      func(*Input) []diag.Diagnostic
}

// Input is what rules read.
type Input struct {
	Result *merge.Result
	// Stage are the findings the pipeline stages already made (decode,
	// attach, policy validation) and Extra those of other views (render's
	// capability check); rules for those codes select from them.
	Stage []diag.Diagnostic
	Extra []diag.Diagnostic
	// Skipped names checks that could not run, for the summary (e.g. the
	// engine-build checks without --engine-manifest).
	Skipped []string
}

// Ignore suppresses a code, for all objects or those matching a glob
// "Kind/namespace/name".
type Ignore struct {
	Code   string
	Object string
}

// Config adjusts a run.
type Config struct {
	Ignore   []Ignore
	Severity map[string]diag.Severity
}

// Report is the result of a run.
type Report struct {
	Diagnostics []diag.Diagnostic
	// Suppressed counts the findings an ignore rule or annotation hid;
	// SuppressedFindings are those findings, for formats that carry them
	// (SARIF shows them as suppressed, so a code-scanning UI can tell a
	// reviewed finding from a fixed one).
	Suppressed         int
	SuppressedFindings []SuppressedFinding
	Skipped            []string
}

// SuppressedFinding is a finding hidden by the user, and how.
type SuppressedFinding struct {
	diag.Diagnostic
	By Suppression
}

// Suppression says where a finding was suppressed.
type Suppression int

// The two places a user suppresses findings.
const (
	// ByConfig is an ignore entry in the config file.
	ByConfig Suppression = iota + 1
	// ByAnnotation is the gwpol.dev/ignore annotation on the object.
	ByAnnotation
)

// Count returns the number of findings at a severity.
func (r *Report) Count(s diag.Severity) int {
	n := 0
	for _, d := range r.Diagnostics {
		if d.Severity == s {
			n++
		}
	}
	return n
}

// AtLeast reports whether any finding is at or above the threshold.
func (r *Report) AtLeast(threshold diag.Severity) bool {
	for _, d := range r.Diagnostics {
		if d.Severity >= threshold {
			return true
		}
	}
	return false
}

// IgnoreAnnotation lists codes to suppress on the annotated object.
const IgnoreAnnotation = "gwpol.dev/ignore"

// Run runs every rule.
func Run(in *Input, cfg Config) *Report {
	rep := &Report{Skipped: in.Skipped}
	for _, r := range Rules() {
		for _, d := range r.Run(in) {
			d.Code = r.Code
			if d.Severity == 0 {
				d.Severity = r.Severity
			}
			if s, ok := cfg.Severity[r.Code]; ok {
				d.Severity = s
			}
			if by := suppressedBy(in, cfg, d); by != 0 {
				rep.Suppressed++
				rep.SuppressedFindings = append(rep.SuppressedFindings, SuppressedFinding{Diagnostic: d, By: by})
				continue
			}
			rep.Diagnostics = append(rep.Diagnostics, d)
		}
	}
	rep.Diagnostics = diag.Sort(rep.Diagnostics)
	slices.SortStableFunc(rep.SuppressedFindings, func(a, b SuppressedFinding) int { return a.Diagnostic.Compare(b.Diagnostic) })
	return rep
}

// suppressedBy says whether the config or the object's annotation hides
// d (0: neither).
func suppressedBy(in *Input, cfg Config, d diag.Diagnostic) Suppression {
	for _, ig := range cfg.Ignore {
		if !strings.EqualFold(ig.Code, d.Code) {
			continue
		}
		if ig.Object == "" {
			return ByConfig
		}
		if ok, _ := path.Match(ig.Object, d.Object.String()); ok {
			return ByConfig
		}
	}
	if in.Result == nil {
		return 0
	}
	o, ok := in.Result.Graph.Model.Object(model.Key{Group: d.Object.Group, Kind: d.Object.Kind, Namespace: d.Object.Namespace, Name: d.Object.Name})
	if !ok {
		return 0
	}
	for _, c := range strings.Split(o.Annotations[IgnoreAnnotation], ",") {
		if strings.EqualFold(strings.TrimSpace(c), d.Code) {
			return ByAnnotation
		}
	}
	return 0
}

// stageRule is a rule whose findings a pipeline stage makes.
func stageRule(code, name, title, doc string, sev diag.Severity) Rule {
	return Rule{Code: code, Name: name, Title: title, Doc: doc, Severity: sev, Run: func(in *Input) []diag.Diagnostic {
		var out []diag.Diagnostic
		for _, src := range [][]diag.Diagnostic{in.Stage, in.Extra} {
			for _, d := range src {
				if d.Code == code {
					out = append(out, d)
				}
			}
		}
		return out
	}}
}

// Rules is the registry, in code order.
func Rules() []Rule {
	rules := slices.Concat(inputRules(), attachRules(), mergeRules(), policyRules(), versionRules())
	slices.SortFunc(rules, func(a, b Rule) int { return strings.Compare(a.Code, b.Code) })
	return rules
}

// Lookup finds a rule by code.
func Lookup(code string) (Rule, bool) {
	for _, r := range Rules() {
		if r.Code == code {
			return r, true
		}
	}
	return Rule{}, false
}
