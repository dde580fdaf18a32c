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
	// The passthrough rule itself fails for the same reason, not as an
	// unknown filter: HAPTIC implements SSLPassthrough.
	tls := c.Graph.Routes[0].Rules[1]
	if fs, ok := c.Result.FixedStatus(tls); !ok || len(fs.Reasons) != 1 || !strings.HasPrefix(fs.Reasons[0], "GWP206: SSL passthrough bypasses HTTP policy enforcement") {
		t.Errorf("rule tls: fixed status %+v (%v), want 503 for the passthrough only", fs, ok)
	}
	rep := status.Compute(c.Result, status.Options{})
	for _, r := range rep.Routes {
		for _, cnd := range r.Parents[0].Conditions {
			if cnd.Type == "Accepted" && (cnd.Status != "False" || cnd.Reason != "IncompatibleFilters") {
				t.Errorf("route %s: Accepted %s/%s, want False/IncompatibleFilters", r.Name, cnd.Status, cnd.Reason)
			}
			if cnd.Type == "ResolvedRefs" && cnd.Status != "True" {
				t.Errorf("route %s: ResolvedRefs %s/%s, want True (HAPTIC resolves every reference here)", r.Name, cnd.Status, cnd.Reason)
			}
		}
	}
}

// TestPassthroughAlone: without a HAProxyRoutePolicy on the route, an
// SSL passthrough filter (kind SSLPassthrough, or a name saying
// ssl…passthrough) is HAPTIC's own and no rule fails; an ExtensionRef of
// a kind HAPTIC does not know fails its rule closed, PartiallyInvalid
// UnsupportedValue, with ResolvedRefs left True (GatewayPolicyReference
// sets no resolvedReason for it).
func TestPassthroughAlone(t *testing.T) {
	c := compile(t, filepath.Join(fixturesDir, "passthrough-alone", "input.yaml"))
	if got, want := brokenRules(c), []string{"h_shop_odd_1"}; !slices.Equal(got, want) {
		t.Fatalf("rules failing closed = %v, want %v", got, want)
	}
	want := map[string][][2]string{
		"tls": {{"Accepted", "True"}, {"ResolvedRefs", "True"}},
		"odd": {{"Accepted", "True"}, {"ResolvedRefs", "True"}, {"PartiallyInvalid", "True"}},
	}
	rep := status.Compute(c.Result, status.Options{})
	for _, r := range rep.Routes {
		var got [][2]string
		for _, cnd := range r.Parents[0].Conditions {
			got = append(got, [2]string{cnd.Type, cnd.Status})
			if cnd.Type == "PartiallyInvalid" && cnd.Reason != "UnsupportedValue" {
				t.Errorf("route %s: PartiallyInvalid reason %s, want UnsupportedValue", r.Name, cnd.Reason)
			}
		}
		if !slices.Equal(got, want[r.Name]) {
			t.Errorf("route %s: conditions %v, want %v", r.Name, got, want[r.Name])
		}
	}
}
