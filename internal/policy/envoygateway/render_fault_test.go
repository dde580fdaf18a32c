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

// TestRenderRetryBudget: a BackendTrafficPolicy's circuitBreaker
// retryBudget as Envoy Gateway writes it (buildRetryBudget →
// fractionalpercent.ToPercent, buildCircuitBreakerRetryBudget): the
// budget percent always, num/den*100 in that order (1/3 is
// 33.33333333333333, 7/9 77.77777777777779), a numerator of 0 a budget of
// 0 % where leaving it out would be Envoy's 20 %; the minimum retry
// concurrency only where it is not 3. Checked with egctl x translate
// v1.9.0 --to xds.
func TestRenderRetryBudget(t *testing.T) {
	for _, tc := range []struct {
		name     string
		num      int32
		den, min *int32
		pct      float64
		minWant  uint32 // 0: not written
	}{
		{"a numerator of 0 is a budget of 0 %", 0, nil, nil, 0, 0},
		{"a third", 1, new(int32(3)), nil, 33.33333333333333, 0},
		{"seven ninths, the minimum written", 7, new(int32(9)), new(int32(5)), 77.77777777777779, 5},
		{"the default denominator, the default minimum not written", 20, nil, new(int32(3)), 20, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rb := &egv1a1.RetryBudget{Percent: gwapiv1.Fraction{Numerator: tc.num, Denominator: tc.den}}
			if tc.min != nil {
				rb.MinRetryConcurrency = new(uint32(*tc.min))
			}
			got := retryBudget(rb)
			if got.GetBudgetPercent() == nil || got.GetBudgetPercent().GetValue() != tc.pct {
				t.Errorf("budget %v, want %v", got.GetBudgetPercent(), tc.pct)
			}
			if m := got.GetMinRetryConcurrency(); tc.minWant == 0 && m != nil || tc.minWant != 0 && m.GetValue() != tc.minWant {
				t.Errorf("min retry concurrency %v, want %d", m, tc.minWant)
			}
		})
	}
}

// TestRenderBackendUtilization: a BackendUtilization load balancer's
// client-side weighted round robin carries every setting Envoy Gateway
// writes (buildBackendUtilizationLoadBalancingPolicy): the weight update
// period, the error utilization penalty as float32(percent)/100, the
// metric names and out-of-band reports besides the blackout and weight
// expiration periods, a zero period left out (before: only the two
// periods, the rest dropped without a word). Checked with egctl x
// translate v1.9.0 --to xds.
func TestRenderBackendUtilization(t *testing.T) {
	zero, two, three := gwapiv1.Duration("0s"), gwapiv1.Duration("2s"), gwapiv1.Duration("3m")
	w, err := clientSideWeighted(&egv1a1.BackendUtilization{BlackoutPeriod: &zero, WeightExpirationPeriod: &three, WeightUpdatePeriod: &two,
		ErrorUtilizationPenaltyPercent: new(uint32(33)), MetricNamesForComputingUtilization: []string{"named_metrics.foo", "cpu_utilization"},
		OutOfBand: &egv1a1.OutOfBandReporting{ReportingPeriod: &two, Port: new(int32(9000)), Authority: new("orca.example.com")}})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case w.GetBlackoutPeriod() != nil:
		t.Errorf("a zero blackout period written: %v", w.GetBlackoutPeriod())
	case w.GetWeightExpirationPeriod().AsDuration().String() != "3m0s" || w.GetWeightUpdatePeriod().AsDuration().String() != "2s":
		t.Errorf("periods %v, %v", w.GetWeightExpirationPeriod(), w.GetWeightUpdatePeriod())
	case w.GetErrorUtilizationPenalty().GetValue() != float32(33)/100.0:
		t.Errorf("penalty %v", w.GetErrorUtilizationPenalty())
	case len(w.GetMetricNamesForComputingUtilization()) != 2:
		t.Errorf("metric names %v", w.GetMetricNamesForComputingUtilization())
	case !w.GetEnableOobLoadReport().GetValue() || w.GetOobReportingPeriod().AsDuration().String() != "2s" ||
		w.GetOobReportingConfig().GetPortValue() != 9000 || w.GetOobReportingConfig().GetAuthority() != "orca.example.com":
		t.Errorf("out of band %v %v %v", w.GetEnableOobLoadReport(), w.GetOobReportingPeriod(), w.GetOobReportingConfig())
	}
	bare, err := clientSideWeighted(&egv1a1.BackendUtilization{OutOfBand: &egv1a1.OutOfBandReporting{}})
	if err != nil || !bare.GetEnableOobLoadReport().GetValue() || bare.GetOobReportingConfig() != nil || bare.GetOobReportingPeriod() != nil {
		t.Errorf("an empty outOfBand: %v, %v", bare, err)
	}
}
