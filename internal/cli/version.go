package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

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
	b := currentBuild(debug.ReadBuildInfo)
	if o.Output == "json" {
		info := map[string]string{"version": b.Version, "commit": b.Commit, "date": b.Date, "go": runtime.Version()}
		enc := json.NewEncoder(o.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(info)
	}
	_, err := fmt.Fprintf(o.IO.Out, "gwpol %s (commit %s, built %s, %s)\n", b.Version, b.Commit, b.Date, runtime.Version())
	return err
}

// build is what gwpol knows about how it was built.
type build struct{ Version, Commit, Date string }

// currentBuild is the ldflags values (release builds), each one left at
// its default filled from the Go toolchain's build information: the module
// version (go install …@vX) and the VCS revision and commit time (a go
// build in a git checkout), so no ordinary build reports "dev (commit
// none)".
func currentBuild(read func() (*debug.BuildInfo, bool)) build {
	b := build{Version: version, Commit: commit, Date: date}
	bi, ok := read()
	if !ok || bi == nil {
		return b
	}
	if b.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		b.Version = bi.Main.Version
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; b.Commit == "none" && rev != "" {
		b.Commit = rev
		if settings["vcs.modified"] == "true" {
			b.Commit += "-dirty"
		}
	}
	if t := settings["vcs.time"]; b.Date == "unknown" && t != "" {
		b.Date = t
	}
	return b
}

func fixedCompletions(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}
