package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
)

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

// TestStrategiesDefinedOnce: explain --help (and so the man page) and
// docs/explain.md define every merge strategy with the same sentence.
func TestStrategiesDefinedOnce(t *testing.T) {
	readme, err := os.ReadFile("../../docs/explain.md")
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
			t.Errorf("docs/explain.md lacks %q", want)
		}
	}
}
