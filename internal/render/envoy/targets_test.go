package envoy

import (
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/envoygateway"
	"github.com/gwpol/gwpol/internal/policy/haptic"
	"github.com/gwpol/gwpol/internal/policy/trafficpolicy"
)

// WithFamilyTargets registers the families' render targets on a registry
// a test builds by hand (internal/pipeline registers them in gwpol's).
func WithFamilyTargets(reg *policy.Registry) *policy.Registry {
	reg.AddTargets(trafficpolicy.Target, envoygateway.Target, haptic.Target)
	return reg
}

// FamilyTargets are the render targets of the registries tests build.
func FamilyTargets() *policy.Registry { return WithFamilyTargets(policy.NewRegistry()) }
