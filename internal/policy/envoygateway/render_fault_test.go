package envoygateway

import (
	"testing"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	faultv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/fault/v3"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestRenderFaultPercentages: a BackendTrafficPolicy fault's percentage
// is written as Envoy Gateway's xDS translator writes it (fault.go:
// FromFloat32): uint32(p*10000) millionths, the product in float32 and
// truncated, so 0.0007 % is 6 millionths and 0.0101 % 100 (rounding gave
// 7 and 101); a percentage outside 0–100, which the CRD lets through, as
// the pinned build converts it. Unset is the CRD's default, 100 %. Each
// value was checked with egctl x translate v1.9.0 --to xds.
func TestRenderFaultPercentages(t *testing.T) {
	for _, tc := range []struct {
		name string
		pct  *float32
		want uint32
	}{
		{"a percentage the float32 product truncates", new(float32(0.0007)), 6},
		{"another", new(float32(0.0101)), 100},
		{"one it does not", new(float32(33.3)), 333000},
		{"zero", new(float32(0)), 0},
		{"over 100", new(float32(150)), 1500000},
		{"negative, wrapped as the pinned build converts it", new(float32(-0.5)), 4294962296},
		{"unset: the CRD's default", nil, 1000000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := gwapiv1.Duration("1s")
			status := int32(503)
			frags, err := renderFaultInjection(&egv1a1.FaultInjection{
				Delay: &egv1a1.FaultInjectionDelay{FixedDelay: &d, Percentage: tc.pct},
				Abort: &egv1a1.FaultInjectionAbort{HTTPStatus: &status, Percentage: tc.pct},
			}, policyName{})
			if err != nil || len(frags) != 1 {
				t.Fatalf("%d fragments, %v", len(frags), err)
			}
			cfg := frags[0].TypedPerFilterConfig[faultFilter].(*faultv3.HTTPFault)
			if got := cfg.GetDelay().GetPercentage().GetNumerator(); got != tc.want {
				t.Errorf("delay %d millionths, want %d", got, tc.want)
			}
			if got := cfg.GetAbort().GetPercentage().GetNumerator(); got != tc.want {
				t.Errorf("abort %d millionths, want %d", got, tc.want)
			}
		})
	}
}
