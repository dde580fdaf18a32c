package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		in, ns  string
		want    targetSpec
		wantErr bool
	}{
		{"httproute/shop/orders", "", targetSpec{"HTTPRoute", "shop", "orders", ""}, false},
		{"HTTPRoutes/shop/orders/#1", "", targetSpec{"HTTPRoute", "shop", "orders", "#1"}, false},
		{"hr/orders", "shop", targetSpec{"HTTPRoute", "shop", "orders", ""}, false},
		{"httproute/orders/create", "shop", targetSpec{"HTTPRoute", "shop", "orders", "create"}, false},
		{"gw/infra/public/https", "", targetSpec{"Gateway", "infra", "public", "https"}, false},
		{"grpcroutes/payments/ledger-api", "", targetSpec{"GRPCRoute", "payments", "ledger-api", ""}, false},
		{"deployment/x/y", "", targetSpec{}, true},
		{"httproute/orders", "", targetSpec{}, true},
		{"httproute", "", targetSpec{}, true},
	}
	for _, tt := range tests {
		got, err := parseTarget(tt.in, tt.ns)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v", tt.in, err)
			continue
		}
		if exitCode(err) != map[bool]int{true: ExitUsage, false: ExitOK}[tt.wantErr] {
			t.Errorf("%s: exit code %d", tt.in, exitCode(err))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestClosest(t *testing.T) {
	if got := closest("shop/order", []string{"shop/orders", "shop/cart", "infra/admin"}); got != "shop/orders" {
		t.Errorf("closest = %q", got)
	}
	if got := closest("zzz/qqq", []string{"shop/orders"}); got != "" {
		t.Errorf("a far name must not be suggested, got %q", got)
	}
}

// TestFlagParsing checks commands' flags alone, through their run hooks.
func TestFlagParsing(t *testing.T) {
	ios, _, _ := Test("", false)
	g := &globalOptions{IO: ios, config: &Config{Lint: LintConfig{FailOn: "error"}}}
	var got *explainOptions
	cmd := newExplainCmd(g, func(o *explainOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"httproute/a/b", "--field", "cors", "--show-values", "-o", "json"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Target != "httproute/a/b" || got.Field != "cors" || !got.ShowValues || got.Output != "json" {
		t.Errorf("explain options = %+v", got)
	}
	var lo *lintOptions
	lc := newLintCmd(g, func(o *lintOptions) error { lo = o; return nil })
	lc.SetArgs([]string{"--fail-on", "warning", "-o", "sarif"})
	if err := lc.Execute(); err != nil {
		t.Fatal(err)
	}
	if lo.FailOn != "warning" || lo.Output != "sarif" {
		t.Errorf("lint options = %+v", lo)
	}
	lc = newLintCmd(g, func(*lintOptions) error { return nil })
	lc.SetArgs([]string{"-o", "xml"})
	lc.SilenceErrors, lc.SilenceUsage = true, true
	if err := lc.Execute(); exitCode(err) != ExitUsage {
		t.Errorf("-o xml: exit %d, want 2", exitCode(err))
	}
}

func TestPolicyKindOf(t *testing.T) {
	reg := pipeline.Registry()
	tests := []struct {
		target, want string
	}{
		{"trafficpolicy/a/b", "TrafficPolicy"},
		{"TrafficPolicies/a/b", "TrafficPolicy"},
		{"haproxyroutepolicy/b", "HAProxyRoutePolicy"},
		{"apipolicies/a/b", "APIPolicy"},
		{"httproute/a/b", ""},
		{"policy/a/b", ""},
	}
	for _, tt := range tests {
		k, ok := policyKindOf(tt.target, reg)
		got := ""
		if ok {
			got = k.GroupKind().Kind
		}
		if got != tt.want {
			t.Errorf("policyKindOf(%q) = %q, want %q", tt.target, got, tt.want)
		}
	}
}

// TestStrategiesDefinedOnce: explain --help (and so the man page) and the
// README define every merge strategy with the same sentence.
func TestStrategiesDefinedOnce(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []policy.Strategy{policy.AugmentedShallow, policy.OverridableShallow, policy.AugmentedDeep, policy.OverridableDeep, policy.Additive, policy.Exclusive} {
		var sentence string
		for _, line := range strings.Split(strategyHelp, "\n") {
			if name, def, ok := strings.Cut(strings.TrimSpace(line), " "); ok && name == string(s) {
				sentence = strings.TrimSpace(def)
			}
		}
		if sentence == "" {
			t.Errorf("explain --help does not define %s", s)
			continue
		}
		if want := "`" + string(s) + "`: " + sentence; !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q", want)
		}
	}
}
