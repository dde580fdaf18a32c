package envoy

import (
	"github.com/gwpol/gwpol/internal/policy"
)

// Target is a render target (policy.Target): the capabilities of an Envoy
// build and the traits of the xDS structure its controller writes. The
// families declare theirs; render reads the traits.
type Target = policy.Target

// BlackholeCluster is the cluster a route names for a backendRef that does
// not resolve (Target.Blackhole); no resource defines it.
const BlackholeCluster = "blackhole-cluster"

// LookupTarget finds a render target by name (case-insensitive) among
// those the registry holds; "" is upstream Envoy (policy.UpstreamTarget).
func LookupTarget(reg *policy.Registry, name string) (Target, bool) { return reg.Target(name) }
