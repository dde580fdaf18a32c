package lint

import (
	"path"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/guardrail"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policyversion"
	"github.com/gwpol/gwpol/internal/schema"
	"github.com/gwpol/gwpol/internal/topology"
)

// Rule is one entry of lint's registry: a rule value and, for lint's own
// rules, the function that finds its findings in the IR. Run is nil for a
// stage's or a policy kind's rule: the stage made its findings already
// (Input.Stage, Input.Extra) and lint passes them on.
type Rule struct {
	diag.Rule
	Run func(*Input) []diag.Diagnostic
}

// Input is what rules read.
type Input struct {
	Result *merge.Result
	// ControllerName is the controller status reports for (config
	// controllerName); "": the registry's default. The rules that read
	// the policies' statuses (GWP309) read them as status does.
	ControllerName string
	// Stage are the findings the pipeline stages already made (decode,
	// attach, policy validation) and Extra those of other views (render's
	// capability check); rules for those codes select from them.
	Stage []diag.Diagnostic
	Extra []diag.Diagnostic
	// Skipped names checks that could not run, for the summary (e.g. the
	// engine-build checks without --engine-manifest).
	Skipped []string
	// Guardrails are the platform team's rules (config guardrails:),
	// whose violations are GWP601–GWP604.
	Guardrails []guardrail.Rule

	guardrailsDone bool
	guardrails     []diag.Diagnostic
	// own are the findings of lint's own rules, by code (FindOwn).
	own map[string][]diag.Diagnostic
	// ruleViews are the route rules' views two own rules read (views).
	ruleViews ruleViews
}

// FindOwn runs lint's own rules — those that find their findings in the
// compiled input (Rule.Run), which never read Extra — and keeps what
// they find for Run, which calls it unless the caller has: a caller
// computing Extra (render's findings) has them run meanwhile. It only
// reads in.Result, as a render does.
func (in *Input) FindOwn() {
	if in.own != nil {
		return
	}
	in.own = map[string][]diag.Diagnostic{}
	for _, r := range Rules(in.registry()) {
		if r.Run != nil {
			in.own[r.Code] = r.Run(in)
		}
	}
}

func (in *Input) registry() *policy.Registry {
	if in.Result == nil {
		return nil
	}
	return in.Result.Registry
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

// Run runs lint's own rules and passes on the stages' findings, rule by
// rule in code order, with the kinds' rules of in.Result's registry.
func Run(in *Input, cfg Config) *Report {
	rep := &Report{Skipped: in.Skipped}
	staged := map[string][]diag.Diagnostic{}
	for _, src := range [][]diag.Diagnostic{in.Stage, in.Extra} {
		for _, d := range src {
			staged[d.Code] = append(staged[d.Code], d)
		}
	}
	in.FindOwn()
	for _, r := range Rules(in.registry()) {
		found := staged[r.Code]
		if r.Run != nil {
			found = in.own[r.Code]
		}
		for _, d := range found {
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

// Rules is lint's registry, in code order: lint's own rules, the rules of
// every stage (manifest, schema, model, topology, policy, attach, policyversion)
// and those the kinds of reg declare (policy.LintRuleOwner; nil reg: none).
// A rule two kinds share is listed once. A rule's documentation ends
// with the families' notes on it (policy.Family.RuleNotes): what each
// controller does of its own about that finding.
func Rules(reg *policy.Registry) []Rule {
	rules := append(ownRules(), guardrailRules()...)
	var kinds []diag.Rule
	var notes map[string][]string
	if reg != nil {
		kinds = reg.LintRules()
		notes = reg.RuleNotes()
	}
	for _, rs := range [][]diag.Rule{manifest.LintRules(), schema.LintRules(), model.LintRules(), topology.LintRules(), policy.LintRules(),
		attach.LintRules(), policyversion.LintRules(), kinds} {
		for _, r := range rs {
			rules = append(rules, Rule{Rule: r})
		}
	}
	slices.SortStableFunc(rules, func(a, b Rule) int { return strings.Compare(a.Code, b.Code) })
	rules = slices.CompactFunc(rules, func(a, b Rule) bool { return a.Run == nil && b.Run == nil && a.Rule == b.Rule })
	for i := range rules {
		if ns := notes[rules[i].Name]; len(ns) > 0 {
			rules[i].Doc += " " + strings.Join(ns, " ")
		}
	}
	return rules
}

// Lookup finds a rule by code in Rules(reg).
func Lookup(reg *policy.Registry, code string) (Rule, bool) {
	for _, r := range Rules(reg) {
		if r.Code == code {
			return r, true
		}
	}
	return Rule{}, false
}
