package cli

import (
	"github.com/gwpol/gwpol/internal/graph"
	"github.com/spf13/cobra"
)

type graphOptions struct {
	*globalOptions
	Output string
	Out    string
}

func newGraphCmd(g *globalOptions, run func(*graphOptions) error) *cobra.Command {
	o := &graphOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "Draw gateways, listeners, routes, rules and their policies (DOT or Mermaid)",
		Long: `graph draws the topology — Gateways, listeners, routes and rules — with
the policies attached at each level (dashed, labelled with how they attach)
and red "overrides" edges from each field's owner to the policies that lost
that field.`,
		Example: `  gwpol graph -f manifests/ | dot -Tsvg > policies.svg
  gwpol graph -f manifests/ -o mermaid`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			if err := checkFormat(o.Output, "dot", "mermaid"); err != nil {
				return err
			}
			if run != nil {
				return run(o)
			}
			return runGraph(o)
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "dot", "output format: dot or mermaid")
	cmd.Flags().StringVar(&o.Out, "out", "", "write to this file (atomically) instead of stdout")
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletions("dot", "mermaid"))
	return cmd
}

func runGraph(o *graphOptions) error {
	c, err := o.compile()
	if err != nil {
		return err
	}
	printDiagnostics(o.IO.ErrOut, compileErrors(c))
	text := graph.DOT(c.Result)
	if o.Output == "mermaid" {
		text = graph.Mermaid(c.Result)
	}
	return firstErr(writeOut(o.globalOptions, o.Out, []byte(text)), c.inputResult())
}
