package cli

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gwpol/gwpol/internal/diff"
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
does to traffic before it is applied.`,
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
	load := func(path string) (*Compiled, error) {
		set, err := loadManifests(o.globalOptions, []string{path})
		if err != nil {
			return nil, err
		}
		return Compile(set, o.config), nil
	}
	old, err := load(o.Old)
	if err != nil {
		return err
	}
	new, err := load(o.New)
	if err != nil {
		return err
	}
	rep := diff.Compare(old.Result, new.Result)
	if o.Output == "json" {
		err = writeData(o.globalOptions, "", "json", rep)
	} else {
		_, err = o.IO.Out.Write([]byte(diffText(rep)))
	}
	if err != nil {
		return err
	}
	if o.ExitCode && len(rep.Changes) > 0 {
		return errFindings
	}
	return nil
}

func diffText(rep *diff.Report) string {
	if len(rep.Changes) == 0 {
		return "no changes in effective policy or status\n"
	}
	var b bytes.Buffer
	target := ""
	side := func(s *diff.Side) string {
		if s.Owner == "" {
			return string(s.Value)
		}
		out := shortID(s.Owner) + " (" + s.Level + ")"
		if len(s.Value) > 0 {
			out += " " + truncate(string(s.Value), 60)
		}
		return out
	}
	for _, c := range rep.Changes {
		if c.Target != target {
			target = c.Target
			fmt.Fprintln(&b, target)
		}
		field := c.Field
		if i := strings.LastIndex(field, ":"); i >= 0 {
			field = field[i+1:]
		}
		switch c.Kind {
		case "added":
			fmt.Fprintf(&b, "  + %s: %s\n", field, side(c.New))
		case "removed":
			fmt.Fprintf(&b, "  - %s: %s\n", field, side(c.Old))
		default:
			fmt.Fprintf(&b, "  ~ %s: %s\n      → %s\n", field, side(c.Old), side(c.New))
		}
	}
	fmt.Fprintf(&b, "%d change(s)\n", len(rep.Changes))
	return b.String()
}
