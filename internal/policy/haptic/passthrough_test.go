package haptic_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/status"
)

// TestPassthroughFailsEveryRule: a route that references a
// HAProxyRoutePolicy and passes TLS through fails every rule closed
// (GatewayPolicyReference), also the rule with neither — a 503 from the
// HAPTIC kind, GWP206 at the rule — and the route is Accepted False with
// HAPTIC's IncompatibleFilters.
func TestPassthroughFailsEveryRule(t *testing.T) {
	c := compile(t, filepath.Join(fixturesDir, "passthrough", "input.yaml"))
	if got, want := brokenRules(c), []string{"h_shop_orders_0", "h_shop_orders_1", "h_shop_orders_2"}; !slices.Equal(got, want) {
		t.Fatalf("rules failing closed = %v, want %v", got, want)
	}
	plain := c.Graph.Routes[0].Rules[2]
	fs, ok := c.Result.FixedStatus(plain)
	if !ok || fs.Status != 503 || len(fs.Reasons) != 1 || !strings.HasPrefix(fs.Reasons[0], "GWP206: SSL passthrough bypasses HTTP policy enforcement") {
		t.Errorf("rule plain: fixed status %+v (%v), want 503 for the passthrough", fs, ok)
	}
	rep := status.Compute(c.Result, status.Options{})
	for _, r := range rep.Routes {
		for _, cnd := range r.Parents[0].Conditions {
			if cnd.Type == "Accepted" && (cnd.Status != "False" || cnd.Reason != "IncompatibleFilters") {
				t.Errorf("route %s: Accepted %s/%s, want False/IncompatibleFilters", r.Name, cnd.Status, cnd.Reason)
			}
		}
	}
}
