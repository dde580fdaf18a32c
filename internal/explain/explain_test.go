package explain_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/cli"
	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/manifest"
)

// TestRuleView checks the effective view of one rule: own fields with
// their level and strategy, deep-merge contributors, losers, and fields
// inherited from the Gateway with what the route shadows.
func TestRuleView(t *testing.T) {
	data, err := os.ReadFile("../../testdata/explain/deep-merge.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gw := `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: edge, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  timeouts: {request: 60s}
  retry: {attempts: 1}
`
	objs, err := manifest.Parse("t.yaml", append(data, gw...), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := cli.Compile(&manifest.Set{Objects: objs}, &cli.Config{Namespace: "default", ReferenceGrantMode: "Permissive", ValidationMode: "Standard"})
	rt := c.Graph.Route("HTTPRoute", "app", "api")
	got := explain.Rule(c.Result, rt, rt.Rules[0], rt.Parents[0].Listeners[0], explain.Options{})
	type row struct {
		Field, Owner, Level, Strategy string
		Contributors, Lost, Shadowed  []string
		Inherited                     bool
	}
	var rows []row
	for _, f := range got.Fields {
		rows = append(rows, row{f.Field, f.Owner, f.Level, f.Strategy, f.Contributors, f.Overridden, f.Shadowed, f.Inherited})
	}
	id := func(ns, n string) string { return "gateway.kgateway.dev/TrafficPolicy/" + ns + "/" + n }
	want := []row{
		{"timeouts", id("app", "admin-timeouts"), "rule", "AugmentedShallow", []string{id("app", "admin-timeouts")}, []string{id("app", "office-network")}, []string{id("infra", "edge")}, false},
		{"retry", id("infra", "edge"), "gateway", "AugmentedShallow", []string{id("infra", "edge")}, []string{}, nil, true},
		{"httpACL", id("app", "office-network"), "route", "AugmentedDeep", []string{id("app", "office-network"), id("app", "vpn")}, []string{}, nil, false},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if only := explain.Rule(c.Result, rt, rt.Rules[0], rt.Parents[0].Listeners[0], explain.Options{Field: "retry"}); len(only.Fields) != 1 {
		t.Errorf("--field retry gave %d fields", len(only.Fields))
	}
}

func TestMatchField(t *testing.T) {
	tests := []struct {
		key, want string
		match     bool
	}{
		{"rateLimit.local", "", true},
		{"rateLimit.local", "rateLimit", true},
		{"rateLimit.local", "rateLimit.local", true},
		{"rateLimit.local", "rate", false},
		{"timeouts", "timeout", false},
		{"cors", "cors.x", false},
	}
	for _, tt := range tests {
		if got := explain.MatchField(tt.key, tt.want); got != tt.match {
			t.Errorf("MatchField(%q, %q) = %v, want %v", tt.key, tt.want, got, tt.match)
		}
	}
}
