package policy

import (
	"slices"
	"testing"
)

// TestGatewayMergeProtocols: a controller's own listener protocols that
// merge with the Gateway's, else the default controller's — also for a
// controllerName the registry does not hold.
func TestGatewayMergeProtocols(t *testing.T) {
	r := NewRegistry()
	r.AddControllers(Controller{Name: "own", GatewayMergeProtocols: []string{"HTTPS", "TLS"}},
		Controller{Name: "default", Default: true, GatewayMergeProtocols: []string{"HTTPS"}},
		Controller{Name: "silent"})
	for _, tc := range []struct {
		controller string
		want       []string
	}{
		{"own", []string{"HTTPS", "TLS"}},
		{"default", []string{"HTTPS"}},
		{"silent", []string{"HTTPS"}},
		{"unregistered.example.com/controller", []string{"HTTPS"}},
	} {
		if got := r.GatewayMergeProtocols(tc.controller); !slices.Equal(got, tc.want) {
			t.Errorf("GatewayMergeProtocols(%s) = %v, want %v", tc.controller, got, tc.want)
		}
	}
}
