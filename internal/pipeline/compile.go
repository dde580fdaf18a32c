package pipeline

import (
	"context"
	"runtime/trace"
	"slices"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/parallel"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/schema"
	"github.com/gwpol/gwpol/internal/topology"
)

// Families builds the registry of every controller family and its
// policy kinds, with the versioned policy references of a family's kinds
// resolving against v (never nil; its fields are nil when not given).
// The list is not the pipeline's: a package of its own (internal/families)
// names the families, so the pipeline runs them without knowing whose
// they are, and a new controller is added there.
type Families func(v *Versions) *policy.Registry

// Compiled is the whole pipeline's result for one input set.
type Compiled struct {
	Config   *Config
	Set      *manifest.Set
	Model    *model.Model
	Graph    *topology.Graph
	Policies *policy.Set
	Result   *merge.Result

	// Versions are the policy definitions and engine build loaded
	// (never nil; its fields are nil when not given), and the CRDs named.
	Versions *Versions
	// Registry lists the families and kinds this input compiled with
	// (their versioned policy references resolving against Versions).
	Registry *policy.Registry
	// Schema is the schema stage's result: every object whose kind has a
	// known CRD validated against it.
	Schema *schema.Result
	// finishDiags are the findings of the families' Finish steps
	// (policy.Family.Finish).
	finishDiags []diag.Diagnostic
}

// Diagnostics collects every stage's findings, sorted.
func (c *Compiled) Diagnostics() []diag.Diagnostic {
	var ds []diag.Diagnostic
	if c.Set != nil {
		ds = append(ds, c.Set.Problems...)
	}
	if c.Schema != nil {
		ds = append(ds, c.Schema.Diagnostics...)
	}
	var later []diag.Diagnostic
	later = append(later, c.Model.Diagnostics...)
	for _, p := range c.Policies.Policies {
		later = append(later, p.Invalid...)
		later = append(later, p.Warnings...)
		later = append(later, p.Findings...)
	}
	// A type or value the CRD refuses is reported once, by the schema
	// stage: the same finding of model's typed decoding or of a kind's
	// hand-written checks at that field is left out.
	ds = append(ds, c.Schema.Unreported(later, model.LintInvalidDocument.Code, policy.LintPolicyInvalid.Code)...)
	ds = append(ds, c.Graph.Diagnostics...)
	ds = append(ds, c.Policies.Untranslated...)
	ds = append(ds, c.Result.Attach.Diagnostics...)
	if c.Versions != nil {
		ds = append(ds, c.Versions.Diagnostics...)
	}
	ds = append(ds, c.finishDiags...)
	ds = append(ds, c.deploymentDiags()...)
	return diag.Sort(ds)
}

// Predecode is what a loader calls on each object as it is read
// (manifest.Options.Each): the model's decoding of it under cfg, with the
// kinds of reg, after
// which the object's YAML tree is released where nothing later reads it.
// Compile then takes the decoded objects as they are.
func Predecode(cfg *Config, reg *policy.Registry) func(*manifest.Object) {
	opt := model.Options{DefaultNamespace: cfg.Namespace, Extra: reg.GroupKinds(), Wildcards: reg.Wildcards(), LenientFields: cfg.LenientFields()}
	// The CRDs gwpol ships: the schema stage checks an object against
	// them now, while its tree is at hand, and again only if --crds or
	// the input gives its kind another CRD.
	cat := schema.NewCatalog(true)
	sopt := schemaOptions(cfg)
	return func(o *manifest.Object) {
		schema.Early(o, cat, sopt)
		model.Predecode(o, opt)
	}
}

// Compile runs the pipeline on already loaded objects with the families
// fams builds, their versioned policy references resolving against the
// policy definitions and engine build in v (nil: none).
func Compile(set *manifest.Set, cfg *Config, v *Versions, fams Families) *Compiled {
	if v == nil {
		v = &Versions{}
	}
	reg := fams(v)
	region := newStage("schema")
	sres := validateSchemas(set, cfg, v)
	region = region.next("model")
	m := model.Build(set, model.Options{DefaultNamespace: cfg.Namespace, Extra: reg.GroupKinds(), ListLimits: reg.ListBounds(), Enums: reg.Enums(), Wildcards: reg.Wildcards(), LenientFields: cfg.LenientFields(), AssumeExist: cfg.AssumeExist,
		Schema: sres.Verdict})
	pc := cfg.PolicyConfig()
	// The policies' decoding and the topology read the model alone: one
	// is built while the other is.
	var pols *policy.Set
	region = region.next("decode+topology")
	wait := parallel.Go(func() { pols = reg.Decode(&policy.Env{Model: m, Config: pc}) })
	g := topology.Build(m, reg.TopologyOptions(pc, cfg.ControllerName))
	wait()
	for _, p := range pols.Policies {
		if r, ok := p.Kind.(policy.GraphRefiner); ok {
			r.RefineWithGraph(p, g)
		}
	}
	c := &Compiled{Config: cfg, Set: set, Model: m, Graph: g, Policies: pols, Versions: v, Registry: reg, Schema: sres}
	if cfg.ReleaseTrees {
		c.ReleaseTrees() // no later stage reads a tree but for a finding's position
	}
	region = region.next("attach")
	att := attach.Attach(g, reg, pols, pc)
	region = region.next("merge")
	c.Result = merge.Compute(g, reg, pols, att, pc)
	region = region.next("finish")
	defer region.End()
	for _, f := range reg.Families() {
		if f.Finish != nil {
			c.finishDiags = append(c.finishDiags, f.Finish(policy.FinishInput{Model: m, Graph: g, Attached: att, Config: pc, ConfigPos: v.ConfigPos(cfg)})...)
		}
	}
	return c
}

// stage marks a stage of compiling in an execution trace (the hidden
// --trace flag), so that `go tool trace` shows where each stage runs on
// one core or two; it costs nothing when no trace is taken.
type stage struct{ r *trace.Region }

func newStage(name string) stage { return stage{trace.StartRegion(context.Background(), name)} }

// next ends this stage and starts the one named.
func (s stage) next(name string) stage {
	s.r.End()
	return newStage(name)
}

func (s stage) End() { s.r.End() }

// Unreadable reports whether part of the input could not be read (the
// findings name each file).
func (c *Compiled) Unreadable() bool { return c.Set != nil && c.Set.Unreadable() }

// Errors are the errors found while compiling (an object that did not
// decode, a duplicate, a reference that does not resolve): every view
// prints them on stderr, so nothing it shows was shaped silently.
func (c *Compiled) Errors() []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, d := range c.Diagnostics() {
		if d.Severity == diag.Error {
			out = append(out, d)
		}
	}
	return out
}

// ReleaseTrees drops the YAML trees of every object (manifest.Release),
// for a view that builds its output from the compiled result (with
// Config.ReleaseTrees, compile calls it once the policies are decoded):
// the trees of the policies, most of what the loader kept, would
// otherwise be held while attach, merge and the view run. A view that still reads a field (a renderer decoding
// a policy) gets it parsed again from the object's text, the same.
func (c *Compiled) ReleaseTrees() {
	for _, o := range c.Set.Objects {
		o.Release()
	}
}

// validateSchemas is the schema stage: every object whose kind has a
// known CRD — from --crds / config crds first, then the input's
// CustomResourceDefinitions, then the CRDs gwpol ships (schema's catalog) —
// validated as the API server would.
func validateSchemas(set *manifest.Set, cfg *Config, v *Versions) *schema.Result {
	cat := schema.NewCatalog(true)
	cat.Add(v.CRDs, schema.FromFlag)
	cat.Add(set.Objects, schema.FromInput)
	return schema.Validate(set.Objects, cat, schemaOptions(cfg))
}

func schemaOptions(cfg *Config) schema.Options {
	return schema.Options{Lenient: cfg.LenientFields(), Known: knownVersion, DefaultNamespace: cfg.Namespace}
}

// olderPolicyVersions are versions of the Gateway API's policy kinds that
// older Gateway API releases served and the CRDs gwpol ships no longer do
// (BackendTLSPolicy v1alpha2 until v1.2); model knows those of the kinds it
// types.
var olderPolicyVersions = map[schema.GroupKind][]string{
	{Group: model.GatewayGroup, Kind: "BackendTLSPolicy"}: {"v1alpha2"},
}

// knownVersion: gwpol reads version of the kind although the CRDs it ships
// do not serve it (schema.Options.Known).
func knownVersion(group, kind, version string) bool {
	return model.KnownVersion(group, kind, version) || slices.Contains(olderPolicyVersions[schema.GroupKind{Group: group, Kind: kind}], version)
}
