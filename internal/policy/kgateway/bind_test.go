package kgateway

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestListenerBindIPv6: kgateway's listeners bind :: with ipv4_compat
// unless the deployment sets listenerBindIpv6 false, and then 0.0.0.0
// without it (Envoy refuses ipv4_compat on an IPv4 address).
func TestListenerBindIPv6(t *testing.T) {
	for _, tt := range []struct {
		set        any
		addr       string
		ipv4Compat bool
	}{
		{nil, "::", true},
		{true, "::", true},
		{false, "0.0.0.0", false},
	} {
		cfg := policy.Config{Values: map[string]any{}}
		if tt.set != nil {
			cfg.Values[ListenerBindIPv6.Key] = tt.set
		}
		addr, compat := Target.ListenerAddress(cfg)
		if addr != tt.addr || compat != tt.ipv4Compat {
			t.Errorf("listenerBindIpv6 %v: address %s, ipv4_compat %v; want %s, %v", tt.set, addr, compat, tt.addr, tt.ipv4Compat)
		}
	}
}
