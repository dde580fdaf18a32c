package envoygateway

import (
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// mirrorFraction is the share of requests Envoy Gateway mirrors for a
// RequestMirror. Its Gateway API translator (filters.go:
// processRequestMirrorFilter) turns the fraction, when there is one, else
// the percent, into a float32 percentage — 100*num/den in float32 for a
// fraction (denominator 100 unless given) — and its xDS translator
// (route.go: mirrorPercentByPolicy, fractionalpercent.FromFloat32)
// writes a positive percentage as uint32(p*10000) millionths, computed
// in float32 and truncated (floatMillionths: 1/3 is 333333, 20/21
// 952381 where the exact share is 952380), a zero one as
// no mirror policy at all (the mirror's cluster is still written), and a
// mirror with neither as 100 out of a hundred.
func mirrorFraction(f *gwv1.HTTPRequestMirrorFilter) policy.MirrorShare {
	var p float32
	switch {
	case f.Fraction != nil:
		den := int32(100)
		if f.Fraction.Denominator != nil {
			den = *f.Fraction.Denominator
		}
		if den <= 0 {
			// the CRD refuses it (minimum 1); no share to compute
			return policy.MirrorShare{Off: true}
		}
		p = 100 * float32(f.Fraction.Numerator) / float32(den)
	case f.Percent != nil:
		p = float32(*f.Percent)
	default:
		return policy.MirrorShare{Numerator: 100, Denominator: 100}
	}
	if !(p > 0) {
		return policy.MirrorShare{Off: true}
	}
	return policy.MirrorShare{Numerator: floatMillionths(p), Denominator: 1_000_000}
}
