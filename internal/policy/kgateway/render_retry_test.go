package kgateway

import (
	"slices"
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

// TestRetryOnAsASet: kgateway writes retry_on as a set — sorted, each
// condition once, retriable-status-codes added when status codes are
// given — whatever order or repetition the policy lists them in.
func TestRetryOnAsASet(t *testing.T) {
	tests := []struct {
		name  string
		on    []string
		codes []int32
		want  string
	}{
		{"listed out of order", []string{"reset", "gateway-error", "connect-failure"}, nil, "connect-failure,gateway-error,reset"},
		{"listed twice", []string{"reset", "5xx", "reset"}, nil, "5xx,reset"},
		{"status codes add their condition in order", []string{"unavailable", "reset"}, []int32{503}, "reset,retriable-status-codes,unavailable"},
		{"status codes with the condition listed too", []string{"retriable-status-codes", "cancelled"}, []int32{502}, "cancelled,retriable-status-codes"},
		{"status codes alone", nil, []int32{500}, "retriable-status-codes"},
		{"nothing", nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &Retry{RetryOn: tt.on, StatusCodes: tt.codes}
			in := policy.FieldInput{Key: "retry", Values: []any{v}, Contributors: []string{Group + "/" + KindTrafficPolicy + "/default/p"}}
			frs, err := Kind{}.RenderField(in, &policy.Env{})
			if err != nil || len(frs) != 1 {
				t.Fatalf("fragments %v, error %v", frs, err)
			}
			ra, ok := frs[0].TypedRouteAction.(*routev3.RouteAction)
			if !ok {
				t.Fatalf("route action is a %T", frs[0].TypedRouteAction)
			}
			if got := ra.GetRetryPolicy().GetRetryOn(); got != tt.want {
				t.Errorf("retry_on %q, want %q", got, tt.want)
			}
			if !slices.Equal(v.RetryOn, tt.on) {
				t.Errorf("rendering changed the merged value to %v", v.RetryOn)
			}
		})
	}
}
