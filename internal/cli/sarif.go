package cli

import (
	"crypto/sha1"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/lint"
	"github.com/owenrumney/go-sarif/v2/sarif"
)

// projectURI is gwpol's home; rule help lives in its README.
const projectURI = "https://github.com/gwpol/gwpol"

// srcRoot is the uriBaseId of every relative artifact: the directory gwpol
// ran in, which code-scanning uploads take as the repository root.
const srcRoot = "%SRCROOT%"

// ruleHelpURI is a rule's stable anchor in the rule catalogue.
func ruleHelpURI(code string) string {
	return projectURI + "/blob/main/docs/lint-rules.md#" + strings.ToLower(code)
}

// writeSARIF writes a SARIF 2.1.0 log that code-scanning UIs read whole:
// rule help links, tool version, relative percent-encoded artifact URIs,
// and suppressed findings carried as suppressed rather than dropped.
func writeSARIF(w io.Writer, rep *lint.Report, notes []string) error {
	report, err := sarif.New(sarif.Version210)
	if err != nil {
		return err
	}
	run := sarif.NewRunWithInformationURI("gwpol", projectURI)
	describeDriver(run.Tool.Driver)
	addSARIFRules(run, rep)
	wd, _ := os.Getwd()
	for _, d := range rep.Diagnostics {
		sarifResult(run, d, wd)
	}
	for _, s := range rep.SuppressedFindings {
		sarifResult(run, s.Diagnostic, wd).AddSuppression(sarifSuppression(s, wd))
	}
	// An invocation says whether the run read all of its input; when it
	// did not (exit 3), its notifications say why, so an upload of this
	// log shows the reason rather than an empty result set.
	inv := sarif.NewInvocation().WithExecutionSuccess(len(notes) == 0)
	for _, n := range notes {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarif.NewNotification().WithLevel("error").WithTextMessage(n))
	}
	run.AddInvocations(inv)
	report.AddRun(run)
	return report.PrettyWrite(w)
}

func describeDriver(d *sarif.ToolComponent) {
	d.Version = &version
	if v, err := semver.NewVersion(version); err == nil {
		sv := v.String()
		d.SemanticVersion = &sv
	}
}

// addSARIFRules declares the rules the results use, reported or suppressed.
func addSARIFRules(run *sarif.Run, rep *lint.Report) {
	used := map[string]bool{}
	for _, d := range rep.Diagnostics {
		used[d.Code] = true
	}
	for _, s := range rep.SuppressedFindings {
		used[s.Code] = true
	}
	for _, r := range lintRules() {
		if !used[r.Code] {
			continue
		}
		run.AddRule(r.Code).WithName(r.Name).WithShortDescription(sarif.NewMultiformatMessageString(r.Title)).
			WithFullDescription(sarif.NewMultiformatMessageString(r.Doc)).WithHelp(sarif.NewMultiformatMessageString(r.Doc)).
			WithHelpURI(ruleHelpURI(r.Code)).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(sarifLevel(r.Severity)))
	}
}

func sarifResult(run *sarif.Run, d diag.Diagnostic, wd string) *sarif.Result {
	r := run.CreateResultForRule(d.Code).WithLevel(sarifLevel(d.Severity)).WithMessage(sarif.NewTextMessage(d.Message))
	r.AddLocation(sarif.NewLocationWithPhysicalLocation(sarifLocation(d.Pos, wd)))
	return r
}

func sarifLocation(p diag.Position, wd string) *sarif.PhysicalLocation {
	loc := sarif.NewPhysicalLocation().WithArtifactLocation(artifactLocation(p.File, wd))
	if p.Line <= 0 {
		return loc // the whole file: no made-up line 1
	}
	return loc.WithRegion(sarif.NewRegion().WithStartLine(p.Line).WithStartColumn(max(p.Col, 1)))
}

// artifactLocation names a file relative to the working directory under
// %SRCROOT% (what code scanning resolves against the checkout), each path
// segment percent-encoded; a file outside it gets an absolute file URI.
func artifactLocation(file, wd string) *sarif.ArtifactLocation {
	rel := file
	if filepath.IsAbs(file) && wd != "" {
		if r, err := filepath.Rel(wd, file); err == nil && !strings.HasPrefix(r, "..") {
			rel = r
		}
	}
	if filepath.IsAbs(rel) {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(rel)}
		return sarif.NewArtifactLocation().WithUri(u.String())
	}
	segs := strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return sarif.NewArtifactLocation().WithUri(strings.Join(segs, "/")).WithUriBaseId(srcRoot)
}

// sarifSuppression says how a finding was suppressed: in source (the
// object's gwpol.dev/ignore annotation) or externally (lint.ignore in the
// config). Its guid is derived from the finding, so output stays
// deterministic.
func sarifSuppression(s lint.SuppressedFinding, wd string) *sarif.Suppression {
	kind, why := "external", "suppressed by a lint.ignore entry in the gwpol config"
	if s.By == lint.ByAnnotation {
		kind, why = "inSource", fmt.Sprintf("suppressed by the %s annotation on %s", lint.IgnoreAnnotation, s.Object)
	}
	return sarif.NewSuppression(kind).WithStatus("accepted").WithJustifcation(why).
		WithGuid(findingGUID(s.Diagnostic)).
		WithLocation(sarif.NewLocationWithPhysicalLocation(sarifLocation(s.Pos, wd)))
}

// findingGUID is a name-based (version 5 layout) UUID of the finding.
func findingGUID(d diag.Diagnostic) string {
	h := sha1.Sum([]byte(d.Code + "\x00" + d.Pos.String() + "\x00" + d.Message))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

func sarifLevel(s diag.Severity) string {
	switch s {
	case diag.Error:
		return "error"
	case diag.Warning:
		return "warning"
	}
	return "note"
}
