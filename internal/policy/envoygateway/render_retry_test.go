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
