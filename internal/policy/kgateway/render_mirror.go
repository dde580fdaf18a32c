package kgateway

import (
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// mirrorFraction is the share of requests kgateway mirrors for a
// RequestMirror (krtcollections/builtin.go: convertMirrorIR): a percent
// out of a hundred; a fraction (getFractionPercent) as the ratio
// computed in float64, times a million, truncated — the float rounds
// some ratios just below their exact millionths (41/80 is 512499, not
// 512500), so the share is not num*10^6/den in integers; neither, every
// request.
func mirrorFraction(f *gwv1.HTTPRequestMirrorFilter) policy.MirrorShare {
	if f.Percent != nil || f.Fraction == nil {
		return policy.DefaultMirrorShare(f)
	}
	den := int32(100)
	if f.Fraction.Denominator != nil {
		den = *f.Fraction.Denominator
	}
	if den <= 0 {
		return policy.DefaultMirrorShare(f)
	}
	ratio := float64(max(f.Fraction.Numerator, 0)) / float64(den)
	return policy.MirrorShare{Numerator: uint32(ratio * 1000000), Denominator: 1_000_000}
}
