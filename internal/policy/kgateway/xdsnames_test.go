package kgateway

import (
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestVirtualHostNames: kgateway sanitizes the whole joined virtual host
// name (makeVhostName → utils.SanitizeForEnvoy), so a dot in an HTTPS
// listener's or a ListenerSet's name becomes "_" there, and the routes
// named after the virtual host follow it.
func TestVirtualHostNames(t *testing.T) {
	for _, tt := range []struct {
		rc, host, want string
	}{
		{"listener~80", "example.com", "listener~80~example_com"},
		{"listener~80", "*", "listener~80~*"},
		{"listener~8080", "*.example.com", "listener~8080~*_example_com"},
		// an HTTPS listener's RouteConfiguration is named after the listener
		{"web.v1", "a.example.com", "web_v1~a_example_com"},
		// a ListenerSet's: <namespace>/<name>/<listener>, the name a DNS subdomain
		{"team/edge.public/https", "*", "team/edge_public/https~*"},
	} {
		if got := XDSNames.VirtualHost(tt.rc, tt.host); got != tt.want {
			t.Errorf("VirtualHost(%q, %q) = %q, want %q", tt.rc, tt.host, got, tt.want)
		}
		route := XDSNames.Route(policy.RouteName{VirtualHost: XDSNames.VirtualHost(tt.rc, tt.host), Kind: "HTTPRoute", Namespace: "ns", Name: "r"})
		if want := tt.want + "-route-0-httproute-r-ns-0-0-matcher-0"; route != want {
			t.Errorf("route name %q, want %q", route, want)
		}
	}
}
