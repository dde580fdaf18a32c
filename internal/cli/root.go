package cli

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/inert"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/spf13/cobra"
)

// Build information, set with -ldflags "-X github.com/gwpol/gwpol/internal/cli.version=…".
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

// globalOptions are the persistent flags every command shares.
type globalOptions struct {
	IO         *IOStreams
	Files      []string
	Namespace  string
	ConfigPath string
	NoColor    bool
	// PolicyDefinitions and EngineManifest override the config keys
	// policyDefinitions and engineManifest (WSO2 policy versions).
	PolicyDefinitions string
	EngineManifests   []string
	// CRDs add to config crds: CustomResourceDefinition files and
	// directories the schema stage validates against first.
	CRDs []string
	// AllowEmpty accepts inputs with no Kubernetes object in them.
	AllowEmpty bool
	// Exclude are globs of input paths not to read, with config exclude.
	Exclude []string
	// AssumeExist are kinds kept outside the repository, with config
	// assumeExist.
	AssumeExist []string
	// StrictFields overrides config strictFields when given.
	StrictFields bool
	// MaxFileSize overrides the config key maxFileSize when positive.
	MaxFileSize int64
	// OutFollowSymlinks: --out FILE may write through a symlink at FILE.
	OutFollowSymlinks bool
	// CPUProfile, MemProfile and Trace are files a CPU profile of the
	// run, a heap profile at its end and an execution trace of the run
	// are written to (hidden flags, for performance work:
	// docs/performance.md).
	CPUProfile, MemProfile, Trace string
	// stopProfiles ends the CPU profile and writes the heap profile; nil
	// when neither was asked for.
	stopProfiles func() error

	config *Config
}

// NewRootCmd builds the command tree.
func NewRootCmd(ios *IOStreams) *cobra.Command {
	root, _ := newRootCmd(ios)
	return root
}

// newRootCmd is NewRootCmd with the global options the commands share, for
// Main to end the profiles they may have started.
func newRootCmd(ios *IOStreams) (*cobra.Command, *globalOptions) {
	g := &globalOptions{IO: ios}
	root := &cobra.Command{
		Use:   "gwpol",
		Short: "Offline compiler and diagnostician for Gateway API policies",
		Long: `gwpol reads Gateway API manifests (Gateways, routes, Services, Secrets) and
the policies attached to them, computes which policy attaches where and
which one wins each field, and renders, explains, lints and reports the
status of the result as each Gateway's controller (kgateway, Envoy Gateway,
HAProxy HAPTIC, WSO2 API Platform) would. It needs no cluster and never
sends anything anywhere.

Kinds read, by API group (others are skipped):
` + supportedKindsText() + `
Exit status, the same in every output format: 0 ok; 1 findings at or above
--fail-on (lint); 2 usage error; 3 input unreadable or unparseable, or no
Kubernetes object in it; 4 internal error.`,
		Example: `  gwpol status -f manifests/
  gwpol explain httproute/shop/orders -f manifests/
  gwpol lint -f manifests/ -o sarif > gwpol.sarif
  gwpol render -f manifests/ --gateway infra/public`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return g.init(cmd)
		},
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError("%v", err) })
	pf := root.PersistentFlags()
	pf.StringArrayVarP(&g.Files, "filename", "f", nil, "manifest file, directory (read recursively) or - for stdin; repeatable")
	pf.StringVarP(&g.Namespace, "namespace", "n", "", `namespace for objects that set none (default "default", or config "namespace")`)
	pf.StringVar(&g.ConfigPath, "config", "", "config file (default: .gwpol.yaml in the working directory, when present)")
	pf.BoolVar(&g.NoColor, "no-color", false, "never colour output (NO_COLOR is honoured too)")
	pf.StringVar(&g.PolicyDefinitions, "policy-definitions", "", "directory of WSO2 policy definitions (policy-definition.yaml) that policy versions resolve against (config policyDefinitions)")
	pf.StringArrayVar(&g.EngineManifests, "engine-manifest", nil, "WSO2 policy engine build manifest (build-manifest.yaml) to check policy versions against (config engineManifest); repeatable: the files together are one engine build (e.g. with system-build-lock.yaml)")
	pf.StringArrayVar(&g.CRDs, "crds", nil, "CustomResourceDefinition file or directory (e.g. a Helm chart's crds/, or kubectl get crd -o yaml) to validate objects against, before the input's CRDs and those gwpol ships; repeatable (config crds; see docs/crds.md)")
	pf.StringArrayVar(&g.Exclude, "exclude", nil, "glob of input paths not to read (repeatable; * within a path segment, ** across them; config exclude)")
	pf.StringArrayVar(&g.AssumeExist, "assume-exist", nil, "kind whose objects live outside the input (Secret, Service, ConfigMap or ClusterTrustBundle; repeatable; config assumeExist): a reference to an absent one is resolved")
	pf.BoolVar(&g.StrictFields, "strict-fields", true, "report unknown fields as errors, as kubectl's strict field validation rejects them (config strictFields); --strict-fields=false: warnings")
	pf.BoolVar(&g.AllowEmpty, "allow-empty", false, "accept inputs that hold no Kubernetes object (default: exit 3, so a CI gate pointed at the wrong path fails)")
	pf.Int64Var(&g.MaxFileSize, "max-file-size", 0, "largest input file (or stdin) read, in bytes (default 67108864, or config maxFileSize)")
	pf.StringVar(&g.CPUProfile, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	pf.StringVar(&g.MemProfile, "memprofile", "", "write a heap profile at the end of the run to this file (go tool pprof)")
	pf.StringVar(&g.Trace, "trace", "", "write an execution trace of the run to this file (go tool trace)")
	_ = pf.MarkHidden("cpuprofile")
	_ = pf.MarkHidden("trace")
	_ = pf.MarkHidden("memprofile")
	_ = root.RegisterFlagCompletionFunc("assume-exist", fixedCompletions(model.AssumableKinds...))
	_ = root.MarkPersistentFlagFilename("filename", "yaml", "yml", "json")
	_ = root.MarkPersistentFlagFilename("config", "yaml", "yml")
	_ = root.MarkPersistentFlagDirname("policy-definitions")
	_ = root.MarkPersistentFlagFilename("engine-manifest", "yaml", "yml")
	_ = root.MarkPersistentFlagFilename("crds", "yaml", "yml", "json")

	root.AddCommand(
		newVersionCmd(g, nil),
		newStatusCmd(g, nil),
		newRenderCmd(g, nil),
		newExplainCmd(g, nil),
		newLintCmd(g, nil),
		newDiffCmd(g, nil),
		newGraphCmd(g, nil),
		newGenDocsCmd(),
	)
	// cobra adds the completion command on Execute; added now, its
	// commands get examples in help and man pages like the others.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Example = "  source <(gwpol completion bash)\n  gwpol completion zsh > \"${fpath[1]}/_gwpol\""
		for _, sh := range c.Commands() {
			sh.Example = completionExamples[sh.Name()]
		}
	}
	return root, g
}

// completionExamples are how each shell loads gwpol's completions (the
// release archives also carry them, in completions/).
var completionExamples = map[string]string{
	"bash":       "  source <(gwpol completion bash)\n  gwpol completion bash > /etc/bash_completion.d/gwpol",
	"zsh":        "  gwpol completion zsh > \"${fpath[1]}/_gwpol\"",
	"fish":       "  gwpol completion fish > ~/.config/fish/completions/gwpol.fish",
	"powershell": "  gwpol completion powershell | Out-String | Invoke-Expression",
}

func (g *globalOptions) init(cmd *cobra.Command) error {
	stop, err := startProfiles(g.CPUProfile, g.MemProfile, g.Trace)
	if err != nil {
		return err
	}
	g.stopProfiles = stop
	if g.NoColor {
		g.IO.NoColor = true
	}
	c, _, err := loadConfig(g.ConfigPath)
	if err != nil {
		return err
	}
	if g.Namespace != "" {
		c.Namespace = g.Namespace
	}
	c.AssumeExist = slices.Concat(c.AssumeExist, g.AssumeExist)
	if err := checkAssumeExist(c.AssumeExist); err != nil {
		return err
	}
	if cmd.Flags().Changed("strict-fields") {
		c.StrictFields = &g.StrictFields
	}
	// Paths in the config file are relative to it; flags to the working
	// directory.
	c.PolicyDefinitions, c.EngineManifest = relative(c, c.PolicyDefinitions), relative(c, c.EngineManifest)
	if g.PolicyDefinitions != "" {
		c.PolicyDefinitions = g.PolicyDefinitions
	}
	for i, p := range c.CRDs {
		c.CRDs[i] = relative(c, p)
	}
	c.CRDs = append(c.CRDs, g.CRDs...) // the flags' after the config's: the later wins a kind
	c.EngineManifests = nil
	if c.EngineManifest != "" {
		c.EngineManifests = []string{c.EngineManifest}
	}
	if len(g.EngineManifests) > 0 {
		c.EngineManifests = g.EngineManifests
	}
	switch {
	case g.MaxFileSize < 0:
		return usageError("--max-file-size must be a positive number of bytes, not %d", g.MaxFileSize)
	case g.MaxFileSize > 0:
		c.MaxFileSize = g.MaxFileSize
	}
	g.config = c
	return nil
}

// checkAssumeExist fails on a kind gwpol cannot take as present: a typo
// would otherwise leave every reference of that kind unresolved.
func checkAssumeExist(kinds []string) error {
	for _, k := range kinds {
		if model.CanonicalAssumableKind(k) == "" {
			msg := fmt.Sprintf("assumeExist: %q is not a kind gwpol can assume (%s)", k, strings.Join(model.AssumableKinds, ", "))
			if near := closest(strings.ToLower(k), []string{"configmap", "secret", "service"}); near != "" {
				msg += fmt.Sprintf("; did you mean %s?", model.CanonicalAssumableKind(near))
			}
			return usageError("%s", msg)
		}
	}
	return nil
}

// requireFiles is for commands that read manifests.
func (g *globalOptions) requireFiles() error {
	if len(g.Files) == 0 {
		return usageError("no input: give manifests with -f FILE|DIR (or -f - for stdin)")
	}
	return nil
}

// Main runs gwpol with args and returns the process exit code. A panic is
// a bug: it is reported as an internal error with exit code 4, never as
// Go's exit code 2, which means a usage error here.
func Main(args []string, ios *IOStreams) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(ios.ErrOut, "%s\n%s", inert.Lines(fmt.Sprintf("gwpol: internal error: %v (please report this, with the input if you can)", r)), debug.Stack())
			code = ExitInternal
		}
	}()
	root, g := newRootCmd(ios)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if g.stopProfiles != nil {
		if perr := g.stopProfiles(); perr != nil && err == nil {
			err = perr
		}
	}
	if err == nil {
		return ExitOK
	}
	if !errors.Is(err, errFindings) {
		if diag.KindOf(err) == diag.Internal && isCobraUsage(err) {
			err = usageError("%v", err)
		}
		fmt.Fprintln(ios.ErrOut, errorText(err))
		if diag.KindOf(err) == diag.Usage {
			fmt.Fprintln(ios.ErrOut, "Run 'gwpol --help' for usage.")
		}
	}
	return exitCode(err)
}

// isCobraUsage recognises cobra's own argument errors, which carry no kind.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires ", "invalid argument", "flag needs"} {
		if strings.HasPrefix(msg, p) || strings.Contains(msg, " "+p) {
			return true
		}
	}
	return false
}

// exactArgs is cobra.ExactArgs with a usage error.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError("expected %s, got %d argument(s)", what, len(args))
		}
		return nil
	}
}
