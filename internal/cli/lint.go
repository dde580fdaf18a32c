package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/trace"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/inert"
	"github.com/gwpol/gwpol/internal/lint"
	"github.com/gwpol/gwpol/internal/parallel"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/spf13/cobra"
)

type lintOptions struct {
	*globalOptions
	Output    string
	FailOn    string
	ListRules bool
	Target    string
	Out       string
}

func newLintCmd(g *globalOptions, run func(*lintOptions) error) *cobra.Command {
	o := &lintOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "Report problems with stable codes, positions and a CI-grade exit code",
		Long: fmt.Sprintf(`lint reports every problem gwpol finds, each with a stable code (GWPnnn),
a severity, the object and field, and FILE:LINE:COL of that field.

The exit code is the same in every format: 0 when no finding reaches
--fail-on, 1 when one does, 2 for usage errors, 3 for unreadable input.
Suppress findings with lint.ignore in .gwpol.yaml or the annotation
gwpol.dev/ignore: "%s,%s" on an object; suppressed findings are
counted in the summary.`, lint.PolicyOverridden.Code, lint.PrecedenceByName.Code),
		Example: `  gwpol lint -f manifests/
  gwpol lint -f manifests/ -o sarif > gwpol.sarif
  gwpol lint -f manifests/ -o github --fail-on warning
  gwpol lint --list-rules
  gwpol lint --list-rules -o markdown > docs/lint-rules.md`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			formats := []string{"text", "json", "sarif", "github"}
			if o.ListRules {
				formats = []string{"text", "json", "markdown"}
			}
			if err := checkFormat(o.Output, formats...); err != nil {
				return err
			}
			o.Target = askedTarget(o.Target, cmd.Flags().Changed("target"), o.config)
			if !cmd.Flags().Changed("fail-on") {
				o.FailOn = o.config.Lint.FailOn
			}
			if _, err := diag.ParseSeverity(o.FailOn); err != nil {
				return usageError("--fail-on: %v", err)
			}
			if err := checkChoice("--target", o.Target, targetChoices()...); err != nil {
				return err
			}
			if run != nil {
				return run(o)
			}
			return runLint(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json, sarif or github (with --list-rules: text, json or markdown)")
	f.StringVar(&o.FailOn, "fail-on", "error", "exit 1 when a finding is at or above: error, warning, info or none")
	f.BoolVar(&o.ListRules, "list-rules", false, "list every rule (a plain table; -o json or -o markdown) and exit")
	f.StringVar(&o.Target, "target", inferredTarget, policy.LintUnsupportedCapability.Code+" checks the capabilities of this "+targetFlagHelp)
	f.StringVar(&o.Out, "out", "", "write the report to this file (atomically) instead of stdout")
	f.BoolVar(&g.OutFollowSymlinks, "out-follow-symlinks", false, outFollowHelp)
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletions("text", "json", "sarif", "github"))
	_ = cmd.RegisterFlagCompletionFunc("fail-on", fixedCompletions("error", "warning", "info", "none"))
	_ = cmd.RegisterFlagCompletionFunc("target", fixedCompletions(targetChoices()...))
	return cmd
}

func runLint(o *lintOptions) error {
	if o.ListRules {
		return listRules(o)
	}
	o.config.ReleaseTrees = true // lint reads the trees only for its findings' positions
	c, inputErr, err := o.compileForReport()
	if err != nil {
		return err
	}
	return o.report(c, inputErr)
}

// report writes the findings on compiled inputs (every format of lint;
// the fuzz targets call it so, on one compile); inputErr is the input
// error compileForReport found, nil when none.
func (o *lintOptions) report(c *pipeline.Compiled, inputErr error) (err error) {
	defer trace.StartRegion(context.Background(), "lint").End()
	in := &lint.Input{Result: c.Result, ControllerName: c.Config.ControllerName, Stage: c.Diagnostics(), Skipped: c.Skipped(), Guardrails: c.Config.Guardrails}
	// Render's findings and lint's own rules both only read the
	// compiled input: one runs while the other does.
	var extra []diag.Diagnostic
	wait := parallel.Go(func() { extra, err = lintExtra(c, o.Target) })
	in.FindOwn()
	if wait(); err != nil {
		return err
	}
	in.Extra = extra
	rep := lint.Run(in, lintConfig(c.Config))
	var notes []string // why the run exits 3, in the report itself
	if inputErr != nil {
		notes = append(notes, inputErr.Error())
	}
	var b bytes.Buffer
	switch o.Output {
	case "json":
		err = writeLintJSON(&b, rep, notes)
	case "sarif":
		err = writeSARIF(&b, rep, notes)
	case "github":
		writeGitHub(&b, rep, notes)
	default:
		writeLintText(&b, rep, o.IO.Color(), o.IO.Width)
	}
	if err != nil {
		return err
	}
	data := b.Bytes()
	if o.Output == "json" || o.Output == "sarif" {
		data = inert.JSON(data) // bidi and C1 controls as \u escapes too
	}
	if err := writeOut(o.globalOptions, o.Out, data); err != nil {
		return err
	}
	if inputErr != nil {
		return inputErr // exit 3 in every format, after the report
	}
	threshold, _ := diag.ParseSeverity(o.FailOn)
	if threshold != diag.None && rep.AtLeast(threshold) {
		return errFindings
	}
	return nil
}

func lintConfig(c *Config) lint.Config {
	lc := lint.Config{Severity: map[string]diag.Severity{}}
	for _, ig := range c.Lint.Ignore {
		lc.Ignore = append(lc.Ignore, lint.Ignore{Code: strings.ToUpper(ig.Code), Object: ig.Object})
	}
	for code, s := range c.Lint.Severity {
		sev, _ := diag.ParseSeverity(s)
		lc.Severity[strings.ToUpper(code)] = sev
	}
	return lc
}

// jsonDiagnostic is the documented, stable JSON shape of a finding.
type jsonDiagnostic struct {
	Code     string         `json:"code"`
	Severity string         `json:"severity"`
	Message  string         `json:"message"`
	Object   diag.ObjectRef `json:"object"`
	Field    string         `json:"field"`
	File     string         `json:"file"`
	// Line and Column are left out when unknown (a file that could not
	// be read has no position in it), never given as 0.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

type jsonReport struct {
	Diagnostics []jsonDiagnostic `json:"diagnostics"`
	Summary     map[string]int   `json:"summary"`
	Skipped     []string         `json:"skipped,omitempty"`
	// Notifications say why the run could not read all of its input
	// (exit 3): the report is still complete for what was read.
	Notifications []jsonNotification `json:"notifications,omitempty"`
}

// jsonNotification is a problem of the run rather than of the input's
// objects.
type jsonNotification struct {
	Level   string `json:"level"`
	Message string `json:"message"`
}

func writeLintJSON(w io.Writer, rep *lint.Report, notes []string) error {
	out := jsonReport{Diagnostics: []jsonDiagnostic{}, Skipped: rep.Skipped, Summary: map[string]int{
		"error": rep.Count(diag.Error), "warning": rep.Count(diag.Warning), "info": rep.Count(diag.Info), "suppressed": rep.Suppressed,
	}}
	for _, n := range notes {
		out.Notifications = append(out.Notifications, jsonNotification{Level: "error", Message: n})
	}
	for _, d := range rep.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, jsonDiagnostic{Code: d.Code, Severity: d.Severity.String(), Message: d.Message,
			Object: d.Object, Field: d.Field, File: d.Pos.File, Line: d.Pos.Line, Column: d.Pos.Col})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func writeGitHub(w io.Writer, rep *lint.Report, notes []string) {
	esc := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	for _, n := range notes {
		// a note may name a file found in an input directory
		fmt.Fprintf(w, "::error title=gwpol::%s\n", esc.Replace(inert.String(n)))
	}
	prop := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
	for _, d := range rep.Diagnostics {
		level := map[diag.Severity]string{diag.Error: "error", diag.Warning: "warning", diag.Info: "notice"}[d.Severity]
		// GitHub's log shows the line as well as the annotation, and
		// interprets terminal escapes: control characters are escaped
		// first, then what the workflow command syntax needs. A finding
		// about a whole file has no line: none is made up.
		at := "file=" + prop.Replace(inert.String(d.Pos.File))
		if d.Pos.Line > 0 {
			at += ",line=" + strconv.Itoa(d.Pos.Line)
		}
		if d.Pos.Line > 0 && d.Pos.Col > 0 {
			at += ",col=" + strconv.Itoa(d.Pos.Col)
		}
		fmt.Fprintf(w, "::%s %s,title=%s::%s\n", level, at, d.Code, esc.Replace(inert.String(d.Message)))
	}
}

// writeLintText writes findings grouped by file. On a terminal (width >
// 0) a finding longer than the line puts its message under the position,
// indented and wrapped at spaces, so no object name is split; piped, each
// finding is one line, for grep.
func writeLintText(w io.Writer, rep *lint.Report, color bool, width int) {
	style := func(c string) lipgloss.Style {
		s := lipgloss.NewStyle()
		if color {
			s = s.Foreground(lipgloss.Color(c)).Bold(true)
		}
		return s
	}
	sev := map[diag.Severity]lipgloss.Style{diag.Error: style("9"), diag.Warning: style("11"), diag.Info: style("12")}
	file := ""
	for _, d := range rep.Diagnostics {
		if d.Pos.File != file {
			file = d.Pos.File
			fmt.Fprintln(w, style("15").Render(inert.String(file)))
		}
		at := "file" // the whole file (unreadable, over-size): no made-up 0:0
		if d.Pos.Line > 0 {
			at = fmt.Sprintf("%d:%d", d.Pos.Line, d.Pos.Col)
		}
		head := fmt.Sprintf("  %s  %s  %s", at, sev[d.Severity].Render(fmt.Sprintf("%-7s", d.Severity)), d.Code)
		line := head + "  " + inert.String(d.Message)
		if width <= 0 || ansi.StringWidth(line) <= width {
			fmt.Fprintln(w, line)
			continue
		}
		fmt.Fprintln(w, head)
		for _, l := range wrapWords("    "+inert.String(d.Message), width, "") {
			fmt.Fprintln(w, l)
		}
	}
	fmt.Fprintf(w, "%d error(s), %d warning(s), %d info, %d suppressed\n", rep.Count(diag.Error), rep.Count(diag.Warning), rep.Count(diag.Info), rep.Suppressed)
	for _, s := range rep.Skipped {
		fmt.Fprintln(w, fitLine("skipped: "+inert.String(s), width, "  "))
	}
}

func listRules(o *lintOptions) error {
	rules := lintRules()
	switch o.Output {
	case "json":
		type jr struct {
			Code     string `json:"code"`
			Name     string `json:"name"`
			Severity string `json:"severity"`
			Title    string `json:"title"`
			Doc      string `json:"doc"`
		}
		var out []jr
		for _, r := range rules {
			out = append(out, jr{r.Code, r.Name, r.Severity.String(), r.Title, r.Doc})
		}
		return writeData(o.globalOptions, o.Out, "json", out)
	case "markdown":
		return writeOut(o.globalOptions, o.Out, []byte(RulesTable()))
	}
	return writeOut(o.globalOptions, o.Out, []byte(rulesText(o.IO.Width)))
}

// rulesText is the rule list as a plain table: code, severity, name and
// title, the title wrapped under itself at the terminal's width (0: one
// line per rule).
func rulesText(width int) string {
	var b strings.Builder
	rules := lintRules()
	nameW := len("NAME")
	for _, r := range rules {
		nameW = max(nameW, len(r.Name))
	}
	indent := strings.Repeat(" ", 7+1+8+1+nameW+1)
	fmt.Fprintf(&b, "%-7s %-8s %-*s %s\n", "CODE", "SEVERITY", nameW, "NAME", "FINDING")
	for _, r := range rules {
		line := fmt.Sprintf("%-7s %-8s %-*s %s", r.Code, r.Severity, nameW, r.Name, r.Title)
		if width > 0 {
			line = strings.Join(wrapWords(line, width, strings.Repeat(" ", len(indent))), "\n")
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// RulesTable is the rule list in Markdown: one row per rule, each with
// the anchor that is its stable helpUri in SARIF (ruleHelpURI).
func RulesTable() string {
	var b strings.Builder
	b.WriteString("| code | severity | name | finding |\n|---|---|---|---|\n")
	for _, r := range lintRules() {
		fmt.Fprintf(&b, "| <a id=\"%s\"></a>[%s](#%s-%s) | %s | %s | %s |\n", strings.ToLower(r.Code), r.Code, strings.ToLower(r.Code), r.Name, r.Severity, r.Name, r.Title)
	}
	return b.String()
}

// RulesDoc is docs/lint-rules.md: the table, then each rule's doc under
// its own heading. It is generated from the registry (go generate), and a
// test fails when the committed file is stale.
func RulesDoc() string {
	var b strings.Builder
	b.WriteString("<!-- Generated by `go generate ./...` from the rule registry; do not edit. -->\n")
	b.WriteString("# Lint rules\n\n")
	b.WriteString("Every finding `gwpol lint` reports has a stable code (codes are never reused), a default\n")
	b.WriteString("severity (change it with config `lint.severity`), a name and a title. `gwpol lint --list-rules`\n")
	b.WriteString("prints this table (`-o json`, `-o markdown`). Suppress a finding with config `lint.ignore` or the\n")
	b.WriteString("annotation `gwpol.dev/ignore: \"GWP301,GWP303\"` on the object.\n\n")
	b.WriteString(RulesTable())
	for _, r := range lintRules() {
		fmt.Fprintf(&b, "\n## %s %s\n\n%s, by default. %s\n\n%s\n", r.Code, r.Name, capitalize(r.Severity.String()), capitalize(r.Title)+".", r.Doc)
	}
	return b.String()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// lintRules is lint's registry with the rules of every supported kind.
func lintRules() []lint.Rule { return lint.Rules(families.Registry()) }
