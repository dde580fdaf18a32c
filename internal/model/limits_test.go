package model_test

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
)

// TestListLimits: a list longer than its CRD's maxItems (100,000
// targetRefs on a kgateway TrafficPolicy, whose limit of 16 its family
// declares through Options.ListLimits; 33 parentRefs on an HTTPRoute, 65
// matches in the second rule) is GWP101 at the list, and the object is
// left out; at the limit it is read.
func TestListLimits(t *testing.T) {
	refs := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString("  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n")
		}
		return b.String()
	}
	policy := func(n int) string {
		return "apiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: p, namespace: infra}\nspec:\n  targetRefs:\n" + refs(n)
	}
	tp := model.GroupKind{Group: "gateway.kgateway.dev", Kind: "TrafficPolicy"}
	opts := model.Options{Extra: map[model.GroupKind]bool{tp: true},
		ListLimits: map[model.GroupKind]*manifest.ListBounds{tp: manifest.NewListBounds([]manifest.ListBound{{Path: "spec.targetRefs", Max: 16}})}}
	for _, c := range []struct {
		n     int
		field string
	}{{16, ""}, {17, "spec.targetRefs"}, {100_000, "spec.targetRefs"}} {
		m := model.Build(set(t, "in.yaml", policy(c.n)), opts)
		var got []string
		for _, d := range m.Diagnostics {
			got = append(got, d.Code+" "+d.Field)
		}
		if c.field == "" {
			if len(got) > 0 || len(m.OfKind(tp)) != 1 {
				t.Errorf("%d targetRefs: %v", c.n, got)
			}
			continue
		}
		if len(got) != 1 || got[0] != "GWP101 "+c.field || len(m.OfKind(tp)) != 0 {
			t.Errorf("%d targetRefs: %v, kept %d; want one GWP101 at %s and the policy left out", c.n, got, len(m.OfKind(tp)), c.field)
		}
	}
	var parents, matches strings.Builder
	for range 33 {
		parents.WriteString("  - {name: gw}\n")
	}
	for range 65 {
		matches.WriteString("    - path: {value: /}\n")
	}
	m := build(t, "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n  parentRefs:\n"+parents.String()+
		"  rules:\n  - {}\n  - matches:\n"+matches.String())
	var got []string
	for _, d := range m.Diagnostics {
		got = append(got, d.Code+" "+d.Field)
	}
	if want := "[GWP101 spec.parentRefs GWP101 spec.rules[1].matches]"; len(m.Routes) != 0 || strings.Join(got, " ") != strings.Trim(want, "[]") {
		t.Errorf("HTTPRoute: %v (routes %d), want %s and the route left out", got, len(m.Routes), want)
	}
}
