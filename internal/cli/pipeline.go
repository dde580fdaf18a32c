package cli

import (
	"errors"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/backendconfigpolicy"
	"github.com/gwpol/gwpol/internal/policy/backendtlspolicy"
	"github.com/gwpol/gwpol/internal/policy/envoygateway"
	"github.com/gwpol/gwpol/internal/policy/haptic"
	"github.com/gwpol/gwpol/internal/policy/trafficpolicy"
	"github.com/gwpol/gwpol/internal/policy/wso2"
	"github.com/gwpol/gwpol/internal/topology"
)

// Registry is the explicit list of supported policy kinds, with the WSO2
// kinds resolving against no policy definitions or engine build.
func Registry() *policy.Registry { return RegistryWith(nil) }

// RegistryWith is Registry with the WSO2 kinds ws, which carry the policy
// definitions and engine build their references resolve against (nil:
// none loaded).
func RegistryWith(ws *wso2.Kinds) *policy.Registry {
	if ws == nil {
		ws = wso2.New(nil, nil)
	}
	kinds := []policy.Kind{
		trafficpolicy.New(),
		trafficpolicy.NewListenerPolicy(),
		backendconfigpolicy.New(),
		backendtlspolicy.New(),
		haptic.New(),
	}
	return policy.NewRegistry(slices.Concat(kinds, ws.All(), envoygateway.All())...)
}

// Compiled is the whole pipeline's result for one input set.
type Compiled struct {
	Config   *Config
	Set      *manifest.Set
	Model    *model.Model
	Graph    *topology.Graph
	Policies *policy.Set
	Result   *merge.Result

	// Versions are the WSO2 policy definitions and engine build loaded
	// (never nil; its fields are nil when not given) and WSO2 the kinds
	// resolving against them.
	Versions *Versions
	WSO2     *wso2.Kinds
	// systemDiags are the findings about config wso2.systemPolicies.
	systemDiags []diag.Diagnostic
	// wso2Generated are the policies the WSO2 gateway operator adds to the
	// rules of the HTTPRoutes it serves; generatedDiags their findings.
	wso2Generated  map[*model.Rule]*wso2.Chain
	generatedDiags []diag.Diagnostic
}

// Diagnostics collects every stage's findings, sorted.
func (c *Compiled) Diagnostics() []diag.Diagnostic {
	var ds []diag.Diagnostic
	if c.Set != nil {
		ds = append(ds, c.Set.Problems...)
	}
	ds = append(ds, c.Model.Diagnostics...)
	ds = append(ds, c.Graph.Diagnostics...)
	for _, p := range c.Policies.Policies {
		ds = append(ds, p.Invalid...)
		ds = append(ds, p.Warnings...)
		ds = append(ds, p.Findings...)
	}
	ds = append(ds, c.Result.Attach.Diagnostics...)
	if c.Versions != nil {
		ds = append(ds, c.Versions.Diagnostics...)
	}
	ds = append(ds, c.systemDiags...)
	ds = append(ds, c.generatedDiags...)
	ds = append(ds, hapticDeploymentDiags(c)...)
	return diag.Sort(ds)
}

// PolicyConfig converts the file config into what policy kinds read.
func (c *Config) PolicyConfig() policy.Config {
	pc := policy.Config{
		GlobalPolicyNamespace: c.GlobalPolicyNamespace,
		ReferenceGrantMode:    c.ReferenceGrantMode,
		ValidationMode:        c.ValidationMode,
		EnableAuthMetadata:    c.EnableAuthMetadata,
		PolicyMerge:           map[string]string{},
		Values:                map[string]any{},
		LenientFields:         c.lenientFields(),
	}
	for kind, fields := range c.PolicyMerge {
		for f, s := range fields {
			pc.PolicyMerge[strings.ToLower(kind+"."+f)] = s
		}
	}
	for k, v := range c.WSO2 {
		pc.Values["wso2."+k] = v
	}
	for k, v := range c.HAPTIC {
		pc.Values[haptic.ConfigPrefix+k] = v
	}
	return pc
}

// Compile runs the pipeline on already loaded objects, without WSO2 policy
// definitions or engine build.
func Compile(set *manifest.Set, cfg *Config) *Compiled { return CompileWith(set, cfg, nil) }

// CompileWith runs the pipeline with the WSO2 policy definitions and
// engine build in v (nil: none).
func CompileWith(set *manifest.Set, cfg *Config, v *Versions) *Compiled {
	if v == nil {
		v = &Versions{}
	}
	ws := wso2.New(v.Definitions, v.Engine)
	reg := RegistryWith(ws)
	m := model.Build(set, model.Options{DefaultNamespace: cfg.Namespace, Extra: reg.GroupKinds(), LenientFields: cfg.lenientFields()})
	g := topology.Build(m, topology.Options{BackendKinds: reg.BackendKinds(), ValidationMode: cfg.ValidationMode, ReferenceGrantMode: cfg.ReferenceGrantMode})
	pc := cfg.PolicyConfig()
	pols := reg.Decode(&policy.Env{Model: m, Config: pc})
	att := attach.Attach(g, reg, pols, pc)
	res := merge.Compute(g, reg, pols, att, pc)
	_, sys := ws.System(pc, v.configPos(cfg))
	gen, genDiags := wso2Generated(ws, m, g, att)
	return &Compiled{Config: cfg, Set: set, Model: m, Graph: g, Policies: pols, Result: res, Versions: v, WSO2: ws, systemDiags: sys,
		wso2Generated: gen, generatedDiags: genDiags}
}

// load reads the inputs named by the global flags and compiles them.
func (g *globalOptions) compile() (*Compiled, error) {
	if err := g.requireFiles(); err != nil {
		return nil, err
	}
	set, err := loadManifests(g, g.Files)
	if err != nil {
		return nil, err
	}
	if err := g.requireObjects(set); err != nil {
		return nil, err
	}
	v, err := loadVersions(g.config)
	if err != nil {
		return nil, err
	}
	return CompileWith(set, g.config, v), nil
}

// requireObjects fails when the inputs hold no Kubernetes object at all:
// an empty directory, a 0-byte file or empty stdin would otherwise lint
// clean, and a CI gate pointed at the wrong path would pass for ever.
func (g *globalOptions) requireObjects(set *manifest.Set) error {
	if len(set.Objects) > 0 || g.AllowEmpty || set.Unreadable() {
		return nil // an unreadable input is reported as such, after the output
	}
	return diag.Errorf(diag.Invalid, "no Kubernetes objects found in %s: give files with apiVersion and kind, or --allow-empty where no input is fine",
		strings.Join(displayPaths(g.Files), ", "))
}

func displayPaths(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if p == "-" {
			p = manifest.StdinName
		}
		out[i] = p
	}
	return out
}

// loadOptions are the manifest loader's settings from flags and config.
func (g *globalOptions) loadOptions() manifest.Options {
	return manifest.Options{Stdin: g.IO.In, Limits: manifest.Limits{MaxFileBytes: g.config.MaxFileSize},
		Exclude: slices.Concat(g.config.Exclude, g.Exclude), SizeHint: sizeHint}
}

// errUnreadable ends a run whose output was written but some of whose
// input could not be read (exit 3): the findings already name each file.
var errUnreadable = diag.Errorf(diag.Invalid, "some input could not be read (GWP100 findings above); the output covers the rest")

// firstErr is the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// inputResult is what a command returns once its output is written: nil,
// or errUnreadable when part of the input was unreadable.
func (c *Compiled) inputResult() error {
	if c.Set != nil && c.Set.Unreadable() {
		return errUnreadable
	}
	return nil
}

// sizeHint is what an input over the size limit is told: the flag and
// config key that raise it (manifest does not know them).
const sizeHint = "raise the limit with --max-file-size BYTES or config maxFileSize (GWPOL_MAXFILESIZE) if this is intended"

// loadManifests reads paths with the loader settings of flags and config;
// an input over the size limit is told how to raise it.
func loadManifests(g *globalOptions, paths []string) (*manifest.Set, error) {
	set, err := manifest.Load(paths, g.loadOptions())
	if errors.Is(err, manifest.ErrTooLarge) {
		return nil, diag.Errorf(diag.Invalid, "%w; %s", err, sizeHint)
	}
	return set, err
}
