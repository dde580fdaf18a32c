package cli

import (
	"strings"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/trafficpolicy"
	"github.com/gwpol/gwpol/internal/topology"
)

// Registry is the explicit list of supported policy kinds.
func Registry() *policy.Registry {
	return policy.NewRegistry(
		trafficpolicy.New(),
		trafficpolicy.NewListenerPolicy(),
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

// Compile runs the pipeline on already loaded objects.
func Compile(set *manifest.Set, cfg *Config) *Compiled {
	reg := Registry()
	m := model.Build(set, model.Options{DefaultNamespace: cfg.Namespace, Extra: reg.GroupKinds()})
	g := topology.Build(m, topology.Options{BackendKinds: reg.BackendKinds()})
	pc := cfg.PolicyConfig()
	pols := reg.Decode(&policy.Env{Model: m, Config: pc})
	att := attach.Attach(g, reg, pols, pc)
	res := merge.Compute(g, reg, pols, att, pc)
	return &Compiled{Config: cfg, Set: set, Model: m, Graph: g, Policies: pols, Result: res}
}

// load reads the inputs named by the global flags and compiles them.
func (g *globalOptions) compile() (*Compiled, error) {
	if err := g.requireFiles(); err != nil {
		return nil, err
	}
	set, err := manifest.Load(g.Files, manifest.Options{Stdin: g.IO.In, Limits: manifest.Limits{MaxFileBytes: g.config.MaxFileSize}})
	if err != nil {
		return nil, err
	}
	return Compile(set, g.config), nil
}
