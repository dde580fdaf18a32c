package haptic_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy/haptic"
)

// TestRuleTimeout: the route timeout HAPTIC applies for each form of a
// rule's own timeouts (gateway/43-maps-route-filters.yaml@10393603,
// PublishGatewayRouteFilterMaps: request, else backendRequest when request
// is unset or "0s"; whole milliseconds; a value that is not a duration or
// is under a millisecond applies none, without falling back).
func TestRuleTimeout(t *testing.T) {
	d := func(s string) *gwv1.Duration { return new(gwv1.Duration(s)) }
	cases := []struct {
		name string
		ts   *gwv1.HTTPRouteTimeouts
		want string // "" for none
	}{
		{"no timeouts", nil, ""},
		{"empty timeouts", &gwv1.HTTPRouteTimeouts{}, ""},
		{"request only", &gwv1.HTTPRouteTimeouts{Request: d("10s")}, "10s"},
		{"backendRequest only", &gwv1.HTTPRouteTimeouts{BackendRequest: d("5s")}, "5s"},
		{"both: request wins, even when longer", &gwv1.HTTPRouteTimeouts{Request: d("10s"), BackendRequest: d("5s")}, "10s"},
		{"both: request wins, even when shorter", &gwv1.HTTPRouteTimeouts{Request: d("2s"), BackendRequest: d("7s")}, "2s"},
		{"request 0s falls back to backendRequest", &gwv1.HTTPRouteTimeouts{Request: d("0s"), BackendRequest: d("5s")}, "5s"},
		{"request written empty falls back", &gwv1.HTTPRouteTimeouts{Request: d(""), BackendRequest: d("3m")}, "3m0s"},
		{"request 0s alone: none", &gwv1.HTTPRouteTimeouts{Request: d("0s")}, ""},
		{"both 0s: none", &gwv1.HTTPRouteTimeouts{Request: d("0s"), BackendRequest: d("0s")}, ""},
		{"backendRequest 0s alone: none", &gwv1.HTTPRouteTimeouts{BackendRequest: d("0s")}, ""},
		{"request 0ms is not the text 0s: none, no fall back", &gwv1.HTTPRouteTimeouts{Request: d("0ms"), BackendRequest: d("5s")}, ""},
		{"request 0m: none, no fall back", &gwv1.HTTPRouteTimeouts{Request: d("0m"), BackendRequest: d("5s")}, ""},
		{"request not a duration: none, no fall back", &gwv1.HTTPRouteTimeouts{Request: d("ten"), BackendRequest: d("5s")}, ""},
		{"backendRequest not a duration: none", &gwv1.HTTPRouteTimeouts{Request: d("0s"), BackendRequest: d("5")}, ""},
		{"under a millisecond: none", &gwv1.HTTPRouteTimeouts{Request: d("500us")}, ""},
		{"whole milliseconds, rounded down", &gwv1.HTTPRouteTimeouts{Request: d("1500ms"), BackendRequest: d("1s")}, "1.5s"},
		{"several units", &gwv1.HTTPRouteTimeouts{BackendRequest: d("1h30m5s")}, "1h30m5s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := haptic.Target.RuleTimeout(tc.ts)
			g := ""
			if got != nil {
				g = *got
			}
			if g != tc.want {
				t.Errorf("timeout %q, want %q", g, tc.want)
			}
		})
	}
}

// TestRuleTimeoutRendered: a rule's own timeouts render as HAPTIC applies
// them on HAPTIC's Gateways — request 10s beside backendRequest 5s is 10 s
// there — while another controller's Gateway keeps the shared Gateway API
// reading (kgateway: the backendRequest, 5 s).
func TestRuleTimeoutRendered(t *testing.T) {
	rules := []struct {
		timeouts  string
		retry     bool
		hapticTO  string
		kgatewayT string
	}{
		{"{request: 10s, backendRequest: 5s}", false, "10s", "5s"},
		{"{backendRequest: 5s}", false, "5s", "5s"},
		{"{request: 0s, backendRequest: 4s}", false, "4s", "4s"},
		{"{request: 0ms, backendRequest: 5s}", false, "", "5s"},
		{"{request: 0s}", false, "", "0s"},
		{"{backendRequest: 5s}", true, "5s", ""},
	}
	var b strings.Builder
	for _, r := range rules {
		b.WriteString(rule(nil))
		b.WriteString("      timeouts: " + r.timeouts + "\n")
		if r.retry {
			b.WriteString("      retry: {attempts: 2}\n")
		}
	}
	for _, class := range []struct{ controller, name string }{{"haproxy-haptic.org/controller", "HAPTIC"}, {"kgateway.dev/kgateway", "kgateway"}} {
		t.Run(class.name, func(t *testing.T) {
			base := strings.Replace(referenceBase, "controllerName: haproxy-haptic.org/controller", "controllerName: "+class.controller, 1)
			file := filepath.Join(t.TempDir(), "input.yaml")
			if err := os.WriteFile(file, []byte(base+b.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			c := compile(t, file)
			_, routes, _ := renderedXDS(t, c, "")
			rt := c.Graph.Routes[0]
			for i, r := range rules {
				want := r.hapticTO
				if class.name == "kgateway" {
					want = r.kgatewayT
				}
				mine := routesOf(routes, rt, rt.Rules[i])
				if len(mine) == 0 {
					t.Fatalf("rule %d: no Envoy route", i)
				}
				for _, x := range mine {
					var action struct {
						Timeout string `json:"timeout"`
					}
					if err := json.Unmarshal(x.Route, &action); err != nil {
						t.Fatalf("rule %d: %v", i, err)
					}
					if action.Timeout != want {
						t.Errorf("rule %d (timeouts %s, retry %v): route timeout %q, want %q", i, r.timeouts, r.retry, action.Timeout, want)
					}
				}
			}
		})
	}
}
