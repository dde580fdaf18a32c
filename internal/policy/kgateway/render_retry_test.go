package kgateway

import (
	"testing"
	"time"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestRetryCRDDefaults: a TrafficPolicy's retry renders with the defaults
// its CRD stores (one attempt, a 25ms backoff base interval); a route
// rule's own retry, which has no such defaults, renders as written.
func TestRetryCRDDefaults(t *testing.T) {
	v := &Retry{RetryOn: []string{"5xx"}}
	tests := []struct {
		name, contributor string
		retries           *wrapperspb.UInt32Value
		base              *durationpb.Duration
	}{
		{"policy", Group + "/" + KindTrafficPolicy + "/default/p", wrapperspb.UInt32(1), durationpb.New(25 * time.Millisecond)},
		{"rule's own", "gateway.networking.k8s.io/HTTPRoute/default/r", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frs, err := Kind{}.RenderField(policy.FieldInput{Key: "retry", Values: []any{v}, Contributors: []string{tt.contributor}}, &policy.Env{})
			if err != nil || len(frs) != 1 {
				t.Fatalf("fragments %v, error %v", frs, err)
			}
			ra, ok := frs[0].TypedRouteAction.(*routev3.RouteAction)
			if !ok {
				t.Fatalf("route action is a %T", frs[0].TypedRouteAction)
			}
			rp := ra.GetRetryPolicy()
			base := rp.GetRetryBackOff().GetBaseInterval()
			if !proto.Equal(rp.GetNumRetries(), tt.retries) || !proto.Equal(base, tt.base) {
				t.Errorf("num_retries %v, base interval %v; want %v, %v", rp.GetNumRetries(), base, tt.retries, tt.base)
			}
		})
	}
	if v.Attempts != nil || v.BackoffBaseInterval != nil {
		t.Error("rendering changed the merged value")
	}
}
