package kgateway

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy/policytest"
)

// FuzzDecodeTrafficPolicy: any TrafficPolicy document decodes to a policy
// or to findings at positions, never a panic.
func FuzzDecodeTrafficPolicy(f *testing.F) {
	policytest.AddSeeds(f, "../../../testdata/examples/60-policies.yaml", "../../../testdata/render/*/input.yaml",
		"../../../testdata/render/trafficpolicy/*/input.yaml", "../../../testdata/lint/GWP4*.yaml")
	policytest.FuzzDecode(f, New())
}

// FuzzDecodeListenerPolicy is FuzzDecodeTrafficPolicy for ListenerPolicy.
func FuzzDecodeListenerPolicy(f *testing.F) {
	policytest.AddSeeds(f, "../../../testdata/render/*/input.yaml", "../../../testdata/render/listenerpolicy/*/input.yaml", "../../../testdata/examples/40-infra.yaml")
	f.Add([]byte("apiVersion: gateway.kgateway.dev/v1alpha1\nkind: ListenerPolicy\nmetadata: {name: lp, namespace: infra}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  default:\n    perConnectionBufferLimitBytes: 1024\n    httpSettings: {useRemoteAddress: true, xffNumTrustedHops: 2}\n"))
	policytest.FuzzDecode(f, NewListenerPolicy())
}
