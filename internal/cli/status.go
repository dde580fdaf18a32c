package cli

import (
	"github.com/gwpol/gwpol/internal/status"
	"github.com/spf13/cobra"
)

type statusOptions struct {
	*globalOptions
	Output string
	Out    string
}

func newStatusCmd(g *globalOptions, run func(*statusOptions) error) *cobra.Command {
	o := &statusOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Print the status a controller would write for gateways, routes and policies",
		Long: `status computes, without a cluster, the conditions a controller would write:
Gateway and listener conditions (with attached route counts), every route
parentRef's Accepted/ResolvedRefs with the Gateway API reason, and for every
policy, per ancestor, Accepted (Valid, PartiallyValid, Invalid,
TargetNotFound) and Attached (Attached, Merged, Overridden, Pending).`,
		Example: `  gwpol status -f testdata/examples
  gwpol status -f manifests/ -o json | jq '.routes[] | select(.parents[].conditions[].status=="False")'`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			if err := checkFormat(o.Output, "yaml", "json"); err != nil {
				return err
			}
			if run != nil {
				return run(o)
			}
			return runStatus(o)
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "yaml", "output format: yaml or json")
	cmd.Flags().StringVar(&o.Out, "out", "", "write to this file (atomically) instead of stdout")
	cmd.Flags().BoolVar(&g.OutFollowSymlinks, "out-follow-symlinks", false, outFollowHelp)
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletions("yaml", "json"))
	return cmd
}

func runStatus(o *statusOptions) error {
	c, err := o.compile()
	if err != nil {
		return err
	}
	printDiagnostics(o.IO.ErrOut, c.Errors())
	rep := status.Compute(c.Result, status.Options{ControllerName: c.Config.ControllerName, ValidationMode: c.Config.ValidationMode})
	return firstErr(writeData(o.globalOptions, o.Out, o.Output, rep), inputResult(c))
}
