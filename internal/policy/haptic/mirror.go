package haptic

import (
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// mirrorShare is the Target's MirrorFraction: the share of a rule's
// requests HAPTIC mirrors for a RequestMirror filter, as
// gateway/43-maps-route-filters.yaml@10393603 (PublishGatewayRouteFilterMaps,
// RequestMirror) computes it — a whole percentage, sampled as
// `rand(100) lt pct`: the filter's percent, else its fraction as
// numerator×100÷denominator in integers (rounded down, the denominator
// 100 when unset), else every request. So a fraction of 1/3 mirrors 33 %
// and one of 1/1000 none, where the Gateway API's exact share would
// mirror 33.33 % and 0.1 %. A denominator that is not positive leaves
// the percentage at 100 (the CRD refuses it first).
func mirrorShare(f *gwv1.HTTPRequestMirrorFilter) policy.MirrorShare {
	switch {
	case f.Percent != nil:
		return policy.MirrorShare{Numerator: uint32(min(max(*f.Percent, 0), 100)), Denominator: 100}
	case f.Fraction != nil:
		den := int64(100)
		if f.Fraction.Denominator != nil {
			den = int64(*f.Fraction.Denominator)
		}
		if den <= 0 {
			return policy.MirrorShare{Every: true}
		}
		pct := int64(f.Fraction.Numerator) * 100 / den
		return policy.MirrorShare{Numerator: uint32(min(max(pct, 0), 100)), Denominator: 100}
	}
	return policy.MirrorShare{Every: true}
}
