package envoygateway

import (
	"encoding/json"
	"testing"

	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	xffv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/original_ip_detection/xff/v3"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestConnectionManagerScope: a ClientTrafficPolicy field configures the
// connection manager where its merge is a RouteConfiguration's (the
// Gateway's, or an HTTPS listener's own), and is unsupported where it is
// one HTTP listener's among the others of its port.
func TestConnectionManagerScope(t *testing.T) {
	for _, tc := range []struct {
		name    string
		render  func(json.RawMessage, policyName, policy.Scope) ([]policy.Fragment, error)
		value   string
		scope   policy.Scope
		wantCap string
	}{
		{"http1 on the Gateway", renderHTTP1, `{"preserveHeaderCase":true}`, policy.ScopeRouteConfig, ""},
		{"http1 on one HTTP listener", renderHTTP1, `{"preserveHeaderCase":true}`, policy.ScopeVirtualHost, "envoygateway.ClientTrafficPolicy.http1.one-listener-of-a-shared-port"},
		{"http1 http10 not rendered", renderHTTP1, `{"http10":{}}`, policy.ScopeRouteConfig, "envoygateway.ClientTrafficPolicy.http1.http10"},
		{"scheme", renderScheme, `"MatchBackend"`, policy.ScopeRouteConfig, ""},
		{"custom client IP header not rendered", renderClientIPDetection, `{"customHeader":{"name":"x-real-ip"}}`, policy.ScopeRouteConfig, "envoygateway.ClientTrafficPolicy.clientIPDetection.customHeader"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := tc.render(json.RawMessage(tc.value), policyName{}, tc.scope)
			if err != nil {
				t.Fatal(err)
			}
			if len(frags) != 1 {
				t.Fatalf("%d fragments, want 1", len(frags))
			}
			if frags[0].Capability != tc.wantCap {
				t.Errorf("capability %q, want %q", frags[0].Capability, tc.wantCap)
			}
			if tc.wantCap == "" && frags[0].HCM == nil {
				t.Errorf("no connection manager settings")
			}
		})
	}
}

// TestXFFTrustedHops: Envoy Gateway configures one trusted hop fewer than
// the policy names (Envoy counts the hops differently), and stops using
// the connection's address.
func TestXFFTrustedHops(t *testing.T) {
	frags, err := renderClientIPDetection(json.RawMessage(`{"xForwardedFor":{"numTrustedHops":2}}`), policyName{}, policy.ScopeRouteConfig)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := frags[0].HCM.(*hcmv3.HttpConnectionManager)
	if !ok {
		t.Fatalf("fragment %+v holds no connection manager", frags[0])
	}
	if m.GetUseRemoteAddress().GetValue() {
		t.Errorf("use_remote_address still on")
	}
	cfg := &xffv3.XffConfig{}
	if err := m.GetOriginalIpDetectionExtensions()[0].GetTypedConfig().UnmarshalTo(cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.XffNumTrustedHops != 1 {
		t.Errorf("xff_num_trusted_hops %d, want 1", cfg.XffNumTrustedHops)
	}
}
