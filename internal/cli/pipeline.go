package cli

import (
	"errors"
	"strings"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
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
	return policy.NewRegistry(
		trafficpolicy.New(),
		trafficpolicy.NewListenerPolicy(),
		haptic.New(),
		ws.APIPolicy(),
		ws.RestAPI(),
	)
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
}

// Diagnostics collects every stage's findings, sorted.
func (c *Compiled) Diagnostics() []diag.Diagnostic {
	var ds []diag.Diagnostic
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
	return diag.Sort(ds)
}

// PolicyConfig converts the file config into what policy kinds read.
func (c *Config) PolicyConfig() policy.Config {
	pc := policy.Config{
		GlobalPolicyNamespace: c.GlobalPolicyNamespace,
		ReferenceGrantMode:    c.ReferenceGrantMode,
		ValidationMode:        c.ValidationMode,
		PolicyMerge:           map[string]string{},
		Values:                map[string]any{},
	}
	for kind, fields := range c.PolicyMerge {
		for f, s := range fields {
			pc.PolicyMerge[strings.ToLower(kind+"."+f)] = s
		}
	}
	for k, v := range c.WSO2 {
		pc.Values["wso2."+k] = v
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
	m := model.Build(set, model.Options{DefaultNamespace: cfg.Namespace, Extra: reg.GroupKinds()})
	g := topology.Build(m, topology.Options{BackendKinds: reg.BackendKinds()})
	pc := cfg.PolicyConfig()
	pols := reg.Decode(&policy.Env{Model: m, Config: pc})
	att := attach.Attach(g, reg, pols, pc)
	res := merge.Compute(g, reg, pols, att, pc)
	_, sys := ws.System(pc, v.configPos(cfg))
	return &Compiled{Config: cfg, Set: set, Model: m, Graph: g, Policies: pols, Result: res, Versions: v, WSO2: ws, systemDiags: sys}
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
	v, err := loadVersions(g.config)
	if err != nil {
		return nil, err
	}
	return CompileWith(set, g.config, v), nil
}

// loadManifests reads paths within the configured size limit; an input
// over it is told the flag and config key that raise the limit.
func loadManifests(g *globalOptions, paths []string) (*manifest.Set, error) {
	set, err := manifest.Load(paths, manifest.Options{Stdin: g.IO.In, Limits: manifest.Limits{MaxFileBytes: g.config.MaxFileSize}})
	if errors.Is(err, manifest.ErrTooLarge) {
		return nil, diag.Errorf(diag.Invalid, "%w; raise the limit with --max-file-size BYTES or config maxFileSize (GWPOL_MAXFILESIZE) if this is intended", err)
	}
	return set, err
}
