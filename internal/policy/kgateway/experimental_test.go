package kgateway_test

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/kgateway"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestExperimentalRuleFieldsRendered: kgateway reads an HTTPRoute rule's
// retry and sessionPersistence only with enableExperimentalGatewayAPIFeatures
// on (buildHTTPRouteRulePolicy); off, the route has neither (no retry
// policy, no stateful session), and its timeout is the backend request
// timeout, as for a rule without a retry.
func TestExperimentalRuleFieldsRendered(t *testing.T) {
	const input = httpGatewayInput + `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{name: cart, port: 80}]
    timeouts: {request: 10s, backendRequest: 2s}
    retry: {attempts: 4, codes: [503]}
    sessionPersistence: {sessionName: cart-session, type: Cookie}
`
	for _, tt := range []struct {
		on      bool
		timeout string // the route's timeout
	}{{true, "10s"}, {false, "2s"}} {
		cfg := policy.Config{}.WithSetting(kgateway.EnableExperimentalGatewayAPIFeatures.Key, tt.on)
		res := compileInline(t, input, cfg)
		out, err := envoy.Render(res, envoy.Options{Target: "kgateway", Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		rc := out.Gateways[0].RouteConfigurations[0]
		r := rc.GetVirtualHosts()[0].GetRoutes()[0]
		if got := r.GetRoute().GetTimeout().AsDuration().String(); got != tt.timeout {
			t.Errorf("experimental %v: timeout %s, want %s", tt.on, got, tt.timeout)
		}
		if got := r.GetRoute().GetRetryPolicy() != nil; got != tt.on {
			t.Errorf("experimental %v: retry policy %v, want one: %v", tt.on, r.GetRoute().GetRetryPolicy(), tt.on)
		}
		_, session := r.GetTypedPerFilterConfig()["envoy.filters.http.stateful_session"]
		if session != tt.on {
			t.Errorf("experimental %v: stateful session on the route %v, want %v", tt.on, session, tt.on)
		}
		chain := out.Gateways[0].Listeners[0].String()
		if strings.Contains(chain, "stateful_session") != tt.on {
			t.Errorf("experimental %v: stateful session filter in the chain: %v", tt.on, !tt.on)
		}
	}
}
