// Package families is the list of the controller families gwpol emulates
// (policy.Family) and the policy kinds each registers: the one place that
// names them. A new controller is one new package under internal/policy
// and one line here. The pipeline (internal/pipeline) runs whatever
// families it is given; this package gives it these, and offers the
// pipeline's entry points with them (Compile, CompileWith, LoadVersions,
// Predecode) to the commands.
//
// families comes after internal/pipeline in the import order and before
// internal/cli: it may import the pipeline, internal/policy and its kind
// packages. It is the one package besides the kinds themselves that
// imports a kind package; no stage or view does (their tests compile
// inputs through it). Its tests hold every registered kind to the
// policy-kind contract: a `var _ policy.X = …` assertion for each hook it
// implements, and every hook listed in internal/policy/kind.go.
package families

import (
	"slices"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/backendtlspolicy"
	"github.com/gwpol/gwpol/internal/policy/envoygateway"
	"github.com/gwpol/gwpol/internal/policy/haptic"
	"github.com/gwpol/gwpol/internal/policy/kgateway"
	"github.com/gwpol/gwpol/internal/policy/wso2"
)

// For is the registry of every family and policy kind, the WSO2 kinds
// resolving their versioned policy references against the policy
// definitions and engine build in v (pipeline.Families).
func For(v *pipeline.Versions) *policy.Registry {
	ws := wso2.New(v.Definitions, v.Engine)
	kinds := []policy.Kind{
		kgateway.New(),
		kgateway.NewListenerPolicy(),
		kgateway.NewBackendConfigPolicy(),
		backendtlspolicy.New(),
		kgateway.NewDirectResponse(),
		haptic.New(),
	}
	reg := policy.NewRegistry(slices.Concat(kinds, ws.All(), envoygateway.All())...)
	reg.AddFamilies(kgateway.Family, envoygateway.Family, haptic.Family, ws.Family(v.DefinitionsDir, v.EngineFile))
	return reg
}

// Registry is For with no policy definitions or engine build.
func Registry() *policy.Registry { return For(&pipeline.Versions{}) }

// Compile runs the pipeline with these families on already loaded
// objects, without policy definitions or engine build.
func Compile(set *manifest.Set, cfg *pipeline.Config) *pipeline.Compiled {
	return pipeline.Compile(set, cfg, nil, For)
}

// CompileWith runs the pipeline with these families, the policy
// definitions and engine build in v (nil: none).
func CompileWith(set *manifest.Set, cfg *pipeline.Config, v *pipeline.Versions) *pipeline.Compiled {
	return pipeline.Compile(set, cfg, v, For)
}

// LoadVersions is pipeline.LoadVersions with these families' checks of
// their settings.
func LoadVersions(cfg *pipeline.Config) (*pipeline.Versions, error) {
	return pipeline.LoadVersions(cfg, Registry())
}

// Predecode is pipeline.Predecode with these families' kinds.
func Predecode(cfg *pipeline.Config) func(*manifest.Object) {
	return pipeline.Predecode(cfg, Registry())
}
