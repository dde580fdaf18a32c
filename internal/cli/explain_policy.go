package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/inert"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
)

// policyKindWords lists the registered policy kinds as explain accepts
// them, for help text.
func policyKindWords() string { return explain.KindWords(families.Registry()) }

// explainPolicy answers explain POLICYKIND/NS/NAME.
func explainPolicy(o *explainOptions, c *pipeline.Compiled) error {
	p, err := explain.LookupPolicy(c.Model, c.Result.Registry, c.Policies, o.Target, o.Namespace)
	if err != nil {
		return err
	}
	rep := explain.Policy(c.Result, p)
	for i := range rep.Targets {
		rep.Targets[i].Fields = explain.SelectFields(rep.Targets[i].Fields, o.Field)
	}
	if o.Output == "json" {
		return writeData(o.globalOptions, "", "json", rep)
	}
	return writePolicyText(o.IO.Out, rep)
}

// explainObject answers explain KIND/NS/NAME for a kind with a view of its
// own (policy.ObjectExplainer: WSO2's RestApi chains); KIND/NAME takes the
// -n (or config) namespace.
func explainObject(o *explainOptions, c *pipeline.Compiled, ox policy.ObjectExplainer) error {
	p, err := explain.LookupPolicy(c.Model, c.Result.Registry, c.Policies, o.Target, c.Config.Namespace)
	if err != nil {
		return err
	}
	v, err := ox.ExplainObject(p, o.ShowValues)
	if err != nil {
		return err
	}
	if o.Output == "json" {
		data, err := encode("json", v)
		if err != nil {
			return err
		}
		_, err = o.IO.Out.Write(data)
		return err
	}
	// A kind's view is plain text (layoutTable draws without colour):
	// escaped whole, newlines kept — tabs too, which a view never writes
	// itself: one there is a manifest's (a RestApi's version "0\t0").
	_, err = io.WriteString(o.IO.Out, inertBlock(v.Text(o.IO.Width, layoutTable)))
	return err
}

// inertBlock is a block of text with every line escaped as
// inert.String escapes it (tabs included), its newlines kept.
func inertBlock(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = inert.String(l)
	}
	return strings.Join(lines, "\n")
}

// layoutTable is the policy.TableLayout kinds' views draw with: a
// bordered table, or, where wider than the terminal, one list entry per
// row ("1. name", then "header: cell" lines), wrapped at the width.
// Nothing is cut.
func layoutTable(headers []string, rows [][]string, width int) string {
	cells := make([][]string, len(rows))
	for i, r := range rows {
		for _, c := range r {
			cells[i] = append(cells[i], inert.String(c))
		}
	}
	rows = cells
	out := table.New().Border(lipgloss.NormalBorder()).BorderStyle(lipgloss.NewStyle()).Headers(headers...).Rows(rows...).Render()
	if width <= 0 || lipgloss.Width(out) <= width {
		return out
	}
	var list []fieldRow
	for _, r := range rows {
		fr := fieldRow{Key: r[0] + ". " + r[1]}
		for i, h := range headers[2:] {
			fr.Lines = append(fr.Lines, strings.ToLower(h)+": "+r[i+2])
		}
		list = append(list, fr)
	}
	var b strings.Builder
	writeList(&b, list, width)
	return strings.TrimSuffix(b.String(), "\n")
}

// writePolicyText is a list rather than a table: one line per target and
// per field, so it reads at any terminal width.
func writePolicyText(w io.Writer, rep explain.PolicyReport) error {
	var b strings.Builder
	state := "accepted"
	switch {
	case rep.PartlyApplied:
		state = "not accepted: the settings its problems name are left out, the others apply"
	case rep.NotApplied:
		state = "not applied"
	case !rep.Accepted:
		state = "not accepted"
	}
	fmt.Fprintf(&b, "%s (%s)\n", inert.String(shortID(rep.Policy)), state)
	if len(rep.Targets) == 0 {
		b.WriteString("  reaches no target\n")
	}
	for _, t := range rep.Targets {
		fmt.Fprintf(&b, "  %s: %s\n", inert.String(refText(t.Target)), inert.String(howReached(t)))
		if t.Invalid {
			b.WriteString("    invalid here: takes no part in the merge\n")
		}
		if na := t.NotApplied; na != nil {
			where := "here"
			if t.Listener != "" {
				where = "on listener " + t.Listener
			}
			fmt.Fprintf(&b, "    not applied %s (%s): %s\n", inert.String(where), inert.String(na.Reason), inert.String(na.Message))
			if na.By != "" {
				fmt.Fprintf(&b, "      %s has it: %s\n", inert.String(shortID(na.By)), inert.String(na.Why))
			}
		}
		for _, n := range t.NotOn {
			fmt.Fprintf(&b, "    not on Gateway %s: %s, so none of the fields below take part there\n", inert.String(n.Gateway), inert.String(n.Why))
		}
		for _, f := range t.Fields {
			b.WriteString("    " + inert.String(fieldText(f)) + "\n")
			for _, s := range f.ShadowedAt {
				fmt.Fprintf(&b, "      shadowed at %s by %s\n", inert.String(s.Target), inert.String(shortID(s.By)))
			}
			for _, s := range f.OverriddenAt {
				fmt.Fprintf(&b, "      not in effect at %s: %s wins %s there (another family's kind)\n", inert.String(s.Target), inert.String(shortID(s.By)), inert.String(s.Path))
			}
		}
	}
	for _, u := range rep.Problems {
		b.WriteString("  problem: " + inert.String(u) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func refText(r explain.Ref) string {
	s := r.Kind + " " + r.Namespace + "/" + r.Name
	if r.Section != "" {
		s += " " + sectionWord(r.Kind) + " " + r.Section
	}
	return s
}

func howReached(t explain.PolicyTarget) string {
	s := "via " + t.Via
	if t.Path != "" {
		s += " (" + t.Path + ")"
	}
	if t.From != "" {
		s += " from parent route " + t.From
	}
	s += ", " + t.Level + " level"
	if len(t.DelegatedBy) > 0 {
		s += ", in the copy delegated by " + strings.Join(t.DelegatedBy, " via ")
	}
	return s
}

func fieldText(f explain.PolicyField) string {
	switch f.Outcome {
	case "lost":
		return fmt.Sprintf("%s: lost to %s: %s", f.Field, shortID(f.Owner), f.Reason)
	case "merged":
		if f.Owner != "" {
			return fmt.Sprintf("%s: merged (owner %s)", f.Field, shortID(f.Owner))
		}
		return f.Field + ": merged (owner)"
	case "not in effect":
		return fmt.Sprintf("%s: not in effect: %s", f.Field, f.Reason)
	}
	return f.Field + ": " + f.Outcome
}
