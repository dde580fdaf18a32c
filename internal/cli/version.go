package cli

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

type versionOptions struct {
	*globalOptions
	Output string
}

func newVersionCmd(g *globalOptions, run func(*versionOptions) error) *cobra.Command {
	o := &versionOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print gwpol's version, commit and build date",
		Example: "  gwpol version\n  gwpol version -o json",
		Args:    exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			if o.Output != "text" && o.Output != "json" {
				return usageError("-o must be text or json, not %q", o.Output)
			}
			if run != nil {
				return run(o)
			}
			return runVersion(o)
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletions("text", "json"))
	return cmd
}

func runVersion(o *versionOptions) error {
	info := map[string]string{"version": version, "commit": commit, "date": date, "go": runtime.Version()}
	if o.Output == "json" {
		enc := json.NewEncoder(o.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(info)
	}
	_, err := fmt.Fprintf(o.IO.Out, "gwpol %s (commit %s, built %s, %s)\n", version, commit, date, runtime.Version())
	return err
}

func fixedCompletions(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}
