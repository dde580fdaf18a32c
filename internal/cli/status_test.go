package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/status"
)

// TestStatusSummaryAndScope: -o summary is one line per Gateway (its name
// before its listeners), listener, route and policy; --gateway keeps one
// Gateway, the routes on it and the policies with an ancestor there;
// --route keeps one route, its Gateways and the policies that reach it.
func TestStatusSummaryAndScope(t *testing.T) {
	goldens.Start(t)
	const ex = "testdata/examples"
	for _, tt := range []struct {
		golden string
		args   []string
	}{
		{"status-summary.txt", []string{"status", "-f", ex, "-o", "summary"}},
		{"status-summary-internal.txt", []string{"status", "-f", ex, "-o", "summary", "--gateway", "infra/internal"}},
		{"status-summary-orders.txt", []string{"status", "-f", ex, "-o", "summary", "--route", "httproute/shop/orders"}},
	} {
		out, stderr, code := run(t, tt.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tt.args, code, stderr)
		}
		golden(t, tt.golden, out)
	}

	out, _, _ := run(t, "status", "-f", ex, "-o", "json", "--gateway", "infra/internal")
	var rep status.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Gateways) != 1 || rep.Gateways[0].Name != "internal" {
		t.Errorf("--gateway infra/internal: gateways %+v", rep.Gateways)
	}
	for _, r := range rep.Routes {
		if r.Kind+"/"+r.Namespace+"/"+r.Name == "HTTPRoute/shop/orders" {
			t.Errorf("--gateway infra/internal kept a route of infra/public")
		}
	}
	for _, p := range rep.Policies {
		for _, a := range p.Ancestors {
			if a.AncestorRef.Kind == "Gateway" && a.AncestorRef.Name != "internal" {
				t.Errorf("--gateway infra/internal kept policy %s/%s's ancestor %s", p.Namespace, p.Name, a.AncestorRef)
			}
		}
	}

	yamlOut, _, _ := run(t, "status", "-f", ex, "--gateway", "infra/internal")
	if i, j := strings.Index(yamlOut, "name: internal"), strings.Index(yamlOut, "listeners:"); i < 0 || j < 0 || i > j {
		t.Errorf("status YAML prints the Gateway's name after its listeners:\n%s", yamlOut)
	}

	_, stderr, code := run(t, "status", "-f", ex, "--route", "httproute/shop/ordrs")
	if code != ExitUsage || !strings.Contains(stderr, `did you mean "shop/orders"?`) {
		t.Errorf("--route to a missing route: exit %d, %s", code, stderr)
	}
}
