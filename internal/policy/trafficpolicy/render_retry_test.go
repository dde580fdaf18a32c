package trafficpolicy

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestRetryCRDDefaults: a TrafficPolicy's retry renders with the defaults
// its CRD stores (one attempt, a 25ms backoff base interval); a route
// rule's own retry, which has no such defaults, renders as written.
func TestRetryCRDDefaults(t *testing.T) {
	v := &Retry{RetryOn: []string{"5xx"}}
	tests := []struct {
		name, contributor string
		want              map[string]any
	}{
		{"policy", Group + "/" + KindTrafficPolicy + "/default/p", map[string]any{"num_retries": int32(1), "base": "0.025s"}},
		{"rule's own", "gateway.networking.k8s.io/HTTPRoute/default/r", map[string]any{"num_retries": nil, "base": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frs, err := Kind{}.RenderField(policy.FieldInput{Key: "retry", Values: []any{v}, Contributors: []string{tt.contributor}}, &policy.Env{})
			if err != nil || len(frs) != 1 {
				t.Fatalf("fragments %v, error %v", frs, err)
			}
			rp, _ := frs[0].RouteAction["retry_policy"].(map[string]any)
			var base any
			if b, ok := rp["retry_back_off"].(map[string]any); ok {
				base = b["base_interval"]
			}
			if rp["num_retries"] != tt.want["num_retries"] || base != tt.want["base"] {
				t.Errorf("num_retries %v, base interval %v; want %v, %v", rp["num_retries"], base, tt.want["num_retries"], tt.want["base"])
			}
		})
	}
	if v.Attempts != nil || v.BackoffBaseInterval != nil {
		t.Error("rendering changed the merged value")
	}
}
