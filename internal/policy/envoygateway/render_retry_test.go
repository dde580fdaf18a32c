package envoygateway

import (
	"slices"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
)

// TestRetryOnAsEnvoyGatewayBuildsIt: a retryOn that sets neither
// triggers nor httpStatusCodes is as if unset (buildRetry keeps it only
// when it sets one), so the default status stays; an empty list of
// statuses is set, and clears it; reset-before-request is a trigger
// Envoy Gateway writes.
func TestRetryOnAsEnvoyGatewayBuildsIt(t *testing.T) {
	for _, tt := range []struct {
		name       string
		on         *egv1a1.RetryOn
		wantOn     string
		wantStatus []uint32
	}{
		{"unset", nil, retryDefaultOn, []uint32{retryDefaultStatus}},
		{"empty", &egv1a1.RetryOn{}, retryDefaultOn, []uint32{retryDefaultStatus}},
		{"empty statuses", &egv1a1.RetryOn{HTTPStatusCodes: []egv1a1.HTTPStatus{}}, retryDefaultOn, nil},
		{"reset before request", &egv1a1.RetryOn{Triggers: []egv1a1.TriggerEnum{"reset-before-request"}}, "reset-before-request", nil},
		// buildRetry keeps triggers and statuses as sets: once each, sorted
		{"triggers out of order", &egv1a1.RetryOn{Triggers: []egv1a1.TriggerEnum{"unavailable", "5xx", "reset"}}, "5xx,reset,unavailable", nil},
		{"a trigger twice", &egv1a1.RetryOn{Triggers: []egv1a1.TriggerEnum{"reset", "cancelled", "reset"}}, "cancelled,reset", nil},
		{"statuses out of order and twice", &egv1a1.RetryOn{HTTPStatusCodes: []egv1a1.HTTPStatus{504, 502, 504, 500}}, retryDefaultOn, []uint32{500, 502, 504}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			frags, err := renderRetry(&egv1a1.Retry{RetryOn: tt.on}, policyName{})
			if err != nil {
				t.Fatal(err)
			}
			rp := frags[0].TypedRouteAction.(*routev3.RouteAction).RetryPolicy
			if rp.RetryOn != tt.wantOn || !slices.Equal(rp.RetriableStatusCodes, tt.wantStatus) {
				t.Errorf("retry on %q, statuses %v; want %q, %v", rp.RetryOn, rp.RetriableStatusCodes, tt.wantOn, tt.wantStatus)
			}
		})
	}
}

// TestJWKSRetryAsEnvoyGatewayBuildsIt: a remote JWKS's backendSettings.retry
// is buildNonRouteRetryPolicy's — Envoy Gateway's default triggers where
// the retry names none (an empty retryOn included), else the triggers
// once each, sorted, as buildRetry keeps them; no statuses, no default
// number of retries.
func TestJWKSRetryAsEnvoyGatewayBuildsIt(t *testing.T) {
	for _, tt := range []struct {
		name   string
		r      *egv1a1.Retry
		wantOn string
	}{
		{"no retryOn", &egv1a1.Retry{NumRetries: new(int32(3))}, retryDefaultOn},
		{"empty retryOn", &egv1a1.Retry{RetryOn: &egv1a1.RetryOn{}}, retryDefaultOn},
		{"empty triggers", &egv1a1.Retry{RetryOn: &egv1a1.RetryOn{Triggers: []egv1a1.TriggerEnum{}}}, retryDefaultOn},
		{"triggers out of order, one twice", &egv1a1.Retry{RetryOn: &egv1a1.RetryOn{Triggers: []egv1a1.TriggerEnum{"reset", "gateway-error", "5xx", "reset"}}}, "5xx,gateway-error,reset"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rp, part, err := nonRouteRetry(tt.r, writtenAt{}, "remoteJWKS.backendSettings.retry")
			if err != nil || part != "" {
				t.Fatalf("part %q, error %v", part, err)
			}
			if rp.RetryOn != tt.wantOn {
				t.Errorf("retry on %q; want %q", rp.RetryOn, tt.wantOn)
			}
			if (tt.r.NumRetries == nil) != (rp.NumRetries == nil) {
				t.Errorf("retries %v; want those set, %v", rp.NumRetries, tt.r.NumRetries)
			}
		})
	}
}
