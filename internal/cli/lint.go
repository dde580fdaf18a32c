package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/inert"
	"github.com/gwpol/gwpol/internal/lint"
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
  gwpol lint --list-rules`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(o.Output, "text", "json", "sarif", "github"); err != nil {
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
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json, sarif or github")
	f.StringVar(&o.FailOn, "fail-on", "error", "exit 1 when a finding is at or above: error, warning, info or none")
	f.BoolVar(&o.ListRules, "list-rules", false, "list every rule (text or json) and exit")
	f.StringVar(&o.Target, "target", inferredTarget, policy.LintUnsupportedCapability.Code+" checks the capabilities of this "+targetFlagHelp)
	f.StringVar(&o.Out, "out", "", "write the report to this file (atomically) instead of stdout")
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletions("text", "json", "sarif", "github"))
	_ = cmd.RegisterFlagCompletionFunc("fail-on", fixedCompletions("error", "warning", "info", "none"))
	_ = cmd.RegisterFlagCompletionFunc("target", fixedCompletions(targetChoices()...))
	return cmd
}

func runLint(o *lintOptions) error {
	if o.ListRules {
		return listRules(o)
	}
	c, err := o.compile()
	if err != nil {
		return err
	}
	in := &lint.Input{Result: c.Result, Stage: c.Diagnostics(), Skipped: c.Skipped(), Guardrails: c.Config.Guardrails}
	extra, err := lintExtra(c, o.Target)
	if err != nil {
		return err
	}
	in.Extra = extra
	rep := lint.Run(in, lintConfig(c.Config))
	var b bytes.Buffer
	switch o.Output {
	case "json":
		err = writeLintJSON(&b, rep)
	case "sarif":
		err = writeSARIF(&b, rep)
	case "github":
		writeGitHub(&b, rep)
	default:
		writeLintText(&b, rep, o.IO.Color())
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
	if err := inputResult(c); err != nil {
		return err // exit 3 in every format, after the report
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
	Line     int            `json:"line"`
	Column   int            `json:"column"`
}

type jsonReport struct {
	Diagnostics []jsonDiagnostic `json:"diagnostics"`
	Summary     map[string]int   `json:"summary"`
	Skipped     []string         `json:"skipped,omitempty"`
}

func writeLintJSON(w io.Writer, rep *lint.Report) error {
	out := jsonReport{Diagnostics: []jsonDiagnostic{}, Skipped: rep.Skipped, Summary: map[string]int{
		"error": rep.Count(diag.Error), "warning": rep.Count(diag.Warning), "info": rep.Count(diag.Info), "suppressed": rep.Suppressed,
	}}
	for _, d := range rep.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, jsonDiagnostic{Code: d.Code, Severity: d.Severity.String(), Message: d.Message,
			Object: d.Object, Field: d.Field, File: d.Pos.File, Line: d.Pos.Line, Column: d.Pos.Col})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func writeGitHub(w io.Writer, rep *lint.Report) {
	esc := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	prop := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
	for _, d := range rep.Diagnostics {
		level := map[diag.Severity]string{diag.Error: "error", diag.Warning: "warning", diag.Info: "notice"}[d.Severity]
		// GitHub's log shows the line as well as the annotation, and
		// interprets terminal escapes: control characters are escaped
		// first, then what the workflow command syntax needs.
		fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", level, prop.Replace(inert.String(d.Pos.File)), d.Pos.Line, d.Pos.Col, d.Code, esc.Replace(inert.String(d.Message)))
	}
}

func writeLintText(w io.Writer, rep *lint.Report, color bool) {
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
		fmt.Fprintf(w, "  %d:%d  %s  %s  %s\n", d.Pos.Line, d.Pos.Col, sev[d.Severity].Render(fmt.Sprintf("%-7s", d.Severity)), d.Code, inert.String(d.Message))
	}
	fmt.Fprintf(w, "%d error(s), %d warning(s), %d info, %d suppressed\n", rep.Count(diag.Error), rep.Count(diag.Warning), rep.Count(diag.Info), rep.Suppressed)
	for _, s := range rep.Skipped {
		fmt.Fprintf(w, "skipped: %s\n", inert.String(s))
	}
}

func listRules(o *lintOptions) error {
	rules := lintRules()
	if o.Output == "json" {
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
	}
	_, err := io.WriteString(o.IO.Out, RulesTable())
	return err
}

// RulesTable is the rule list in Markdown, as the README carries it.
func RulesTable() string {
	var b strings.Builder
	b.WriteString("| code | severity | name | finding |\n|---|---|---|---|\n")
	for _, r := range lintRules() {
		// The anchor is each rule's stable helpUri in SARIF (ruleHelpURI).
		fmt.Fprintf(&b, "| <a id=\"%s\"></a>%s | %s | %s | %s |\n", strings.ToLower(r.Code), r.Code, r.Severity, r.Name, r.Title)
	}
	return b.String()
}

// lintRules is lint's registry with the rules of every supported kind.
func lintRules() []lint.Rule { return lint.Rules(pipeline.Registry()) }
