package cli

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/diff"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/inert"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/spf13/cobra"
)

type diffOptions struct {
	*globalOptions
	Old, New string
	Output   string
	ExitCode bool
}

func newDiffCmd(g *globalOptions, run func(*diffOptions) error) *cobra.Command {
	o := &diffOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Show how the effective policy changes between two manifest sets",
		Long: `diff compiles two manifest sets (files or directories, e.g. two git
checkouts) and lists, for every listener and route rule, the policy fields
whose owner, level or value changed, were added or were removed — and the
policies whose status changes. Use it in code review to see what a change
does to traffic before it is applied.

A changed value is shown leaf by leaf, each with its full field path and
old → new value (JSON "leaves"); a value of several lines as a unified
diff. Gateways, listeners, routes and rules added or removed are changes
too (JSON "object": gateway, listener, route or rule), and all of them
count for --exit-code.`,
		Example: `  git worktree add /tmp/main main
  gwpol diff /tmp/main/manifests manifests
  gwpol diff old.yaml new.yaml -o json --exit-code`,
		Args: exactArgs(2, "OLD and NEW paths"),
		RunE: func(_ *cobra.Command, args []string) error {
			o.Old, o.New = args[0], args[1]
			if err := checkFormat(o.Output, "text", "json"); err != nil {
				return err
			}
			if run != nil {
				return run(o)
			}
			return runDiff(o)
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	cmd.Flags().BoolVar(&o.ExitCode, "exit-code", false, "exit 1 when there are changes (like git diff --exit-code)")
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletions("text", "json"))
	return cmd
}

func runDiff(o *diffOptions) error {
	// Both sides resolve policy versions against the same definitions and
	// engine build as every other command does, so a policy's verdict in
	// the diff is the one lint and explain give.
	versions, err := families.LoadVersions(o.config)
	if err != nil {
		return err
	}
	load := func(path string) (*pipeline.Compiled, error) {
		set, err := loadManifests(o.globalOptions, []string{path})
		if err != nil {
			return nil, err
		}
		c := families.CompileWith(set, o.config, versions)
		// Only what could not be read: the findings about the objects
		// are lint's, and both sides would repeat them.
		printDiagnostics(o.IO.ErrOut, slices.DeleteFunc(slices.Clone(set.Problems), func(d diag.Diagnostic) bool { return d.Severity != diag.Error }))
		return c, nil
	}
	old, err := load(o.Old)
	if err != nil {
		return err
	}
	new, err := load(o.New)
	if err != nil {
		return err
	}
	rep := diff.Compare(old.Result, new.Result, o.config.Guardrails...)
	if o.Output == "json" {
		err = writeData(o.globalOptions, "", "json", rep)
	} else {
		_, err = o.IO.Out.Write([]byte(diffText(rep)))
	}
	if err != nil {
		return err
	}
	if err := firstErr(inputResult(old), inputResult(new)); err != nil {
		return err
	}
	if o.ExitCode && (len(rep.Changes) > 0 || slices.ContainsFunc(rep.Guardrails, func(g diff.GuardrailChange) bool { return g.Change == "introduced" })) {
		return errFindings
	}
	return nil
}

func diffText(rep *diff.Report) string {
	var b bytes.Buffer
	writeGuardrailChanges(&b, rep.Guardrails)
	if len(rep.Changes) == 0 {
		return b.String() + "no changes in effective policy, status, Gateways or routes\n"
	}
	target := ""
	for _, c := range rep.Changes {
		if c.Target != target {
			target = c.Target
			fmt.Fprintln(&b, inert.String(target))
		}
		if c.Object != "" {
			fmt.Fprintf(&b, "  %s %s %s\n", map[string]string{"added": "+", "removed": "-"}[c.Kind], inert.String(c.Object), c.Kind)
			continue
		}
		field := inert.String(c.Field)
		if i := strings.LastIndex(field, ":"); i >= 0 {
			field = field[i+1:]
		}
		switch c.Kind {
		case "added":
			fmt.Fprintf(&b, "  + %s: %s\n", field, diffSide(c.New, true))
		case "removed":
			fmt.Fprintf(&b, "  - %s: %s\n", field, diffSide(c.Old, true))
		default:
			head := diffSide(c.Old, false)
			if n := diffSide(c.New, false); n != head {
				head += " → " + n
			}
			if head == "" {
				fmt.Fprintf(&b, "  ~ %s\n", field)
			} else {
				fmt.Fprintf(&b, "  ~ %s: %s\n", field, head)
			}
			writeLeaves(&b, c.Leaves)
		}
	}
	fmt.Fprintf(&b, "%d change(s)\n", len(rep.Changes))
	return b.String()
}

// writeGuardrailChanges lists the guardrail findings a change
// introduces (+) and resolves (-), each where the new (or old) side has it.
func writeGuardrailChanges(b *bytes.Buffer, gs []diff.GuardrailChange) {
	if len(gs) == 0 {
		return
	}
	fmt.Fprintln(b, "guardrails")
	for _, g := range gs {
		sign := "+"
		if g.Change == "resolved" {
			sign = "-"
		}
		fmt.Fprintf(b, "  %s %s %s %s:%d:%d: %s\n", sign, g.Severity, g.Code, inert.String(g.File), g.Line, g.Column, inert.String(g.Message))
	}
	n := 0
	for _, g := range gs {
		if g.Change == "introduced" {
			n++
		}
	}
	fmt.Fprintf(b, "%d guardrail finding(s) introduced, %d resolved\n", n, len(gs)-n)
}

// diffSide is "OWNER (LEVEL)", with the whole value when asked (an added
// or removed field has no leaves to show it by).
func diffSide(s *diff.Side, value bool) string {
	return inert.String(diffSideRaw(s, value))
}

func diffSideRaw(s *diff.Side, value bool) string {
	if s.Owner == "" {
		if value {
			return string(s.Value)
		}
		return ""
	}
	out := shortID(s.Owner) + " (" + s.Level + ")"
	if value && len(s.Value) > 0 {
		out += " " + string(s.Value)
	}
	return out
}

// writeLeaves prints each changed leaf as "path: old → new", or its
// unified diff when the value has several lines.
func writeLeaves(b *bytes.Buffer, leaves []diff.Leaf) {
	side := func(v []byte) string {
		if v == nil {
			return "(unset)"
		}
		return string(v)
	}
	for _, l := range leaves {
		if l.Unified == "" {
			fmt.Fprintf(b, "      %s: %s → %s\n", inert.String(l.Path), inert.String(side(l.Old)), inert.String(side(l.New)))
			continue
		}
		fmt.Fprintf(b, "      %s:\n", inert.String(l.Path))
		for _, line := range strings.Split(strings.TrimSuffix(l.Unified, "\n"), "\n") {
			fmt.Fprintf(b, "        %s\n", inert.String(line))
		}
	}
}
