package envoy

import (
	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/schema"
	"github.com/gwpol/gwpol/internal/topology"
)

// Registry is the registry render's tests compile with: gwpol's own
// (families.Registry), every family registered with its kinds, controller,
// render target and steps. A registry built here by hand from a list of
// kinds would leave out what a family does as a whole — Envoy Gateway's
// validation of the routes and listeners of its Gateways — and render's
// tests would then check a configuration gwpol never writes.
func Registry() *policy.Registry { return families.Registry() }

// Stages runs the stages from schema to merge on set under cfg as
// internal/pipeline runs them (the families' Finish steps aside, which
// render does not read), with reg (Registry). The schema stage's verdicts
// leave out what the API server refuses at a field every view carries
// (model.Options.Schema), so that render, and FuzzRender, see what
// gwpol's own pipeline gives render.
func Stages(reg *policy.Registry, set *manifest.Set, cfg policy.Config) *merge.Result {
	checked := schema.Validate(set.Objects, schema.NewCatalog(true), schema.Options{DefaultNamespace: "default"})
	m := model.Build(set, model.Options{Extra: reg.GroupKinds(), ListLimits: reg.ListBounds(), Enums: reg.Enums(), Wildcards: reg.Wildcards(), Schema: checked.Verdict})
	g := topology.Build(m, reg.TopologyOptions(cfg, ""))
	pols := reg.Decode(&policy.Env{Model: m, Config: cfg})
	return merge.Compute(g, reg, pols, attach.Attach(g, reg, pols, cfg), cfg)
}
