package haptic

import (
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestMirrorShare: HAPTIC samples a RequestMirror at a whole percentage
// (43-maps-route-filters.yaml@10393603: the filter's percent, else
// numerator×100÷denominator in integers, else every request), so a
// fraction that is not a whole percentage rounds down — 1/3 mirrors 33 %,
// 1/1000 none, 999/1000 99 % — where gwpol rendered the exact share on
// HAPTIC's Gateways before (333,333 and 1,000 millionths).
func TestMirrorShare(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	frac := func(num int32, den *int32) *gwv1.HTTPRequestMirrorFilter {
		return &gwv1.HTTPRequestMirrorFilter{Fraction: &gwv1.Fraction{Numerator: num, Denominator: den}}
	}
	for _, tc := range []struct {
		name string
		f    *gwv1.HTTPRequestMirrorFilter
		want policy.MirrorShare
	}{
		{"neither percent nor fraction: every request", &gwv1.HTTPRequestMirrorFilter{}, policy.MirrorShare{Every: true}},
		{"percent 50", &gwv1.HTTPRequestMirrorFilter{Percent: i32(50)}, policy.MirrorShare{Numerator: 50, Denominator: 100}},
		{"percent 0: never", &gwv1.HTTPRequestMirrorFilter{Percent: i32(0)}, policy.MirrorShare{Numerator: 0, Denominator: 100}},
		{"a third rounds down to 33", frac(1, i32(3)), policy.MirrorShare{Numerator: 33, Denominator: 100}},
		{"two thirds round down to 66", frac(2, i32(3)), policy.MirrorShare{Numerator: 66, Denominator: 100}},
		{"one in a thousand: none", frac(1, i32(1000)), policy.MirrorShare{Numerator: 0, Denominator: 100}},
		{"999 in a thousand: 99", frac(999, i32(1000)), policy.MirrorShare{Numerator: 99, Denominator: 100}},
		{"no denominator: a share of 100", frac(7, nil), policy.MirrorShare{Numerator: 7, Denominator: 100}},
		{"the whole fraction: 100", frac(3, i32(3)), policy.MirrorShare{Numerator: 100, Denominator: 100}},
		{"a denominator of 0 leaves 100 (the CRD refuses it)", frac(1, i32(0)), policy.MirrorShare{Every: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mirrorShare(tc.f); got != tc.want {
				t.Errorf("mirrorShare = %+v, want %+v", got, tc.want)
			}
		})
	}
}
