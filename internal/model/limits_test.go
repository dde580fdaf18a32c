package model_test

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/schema"
)

// TestListLimits: while no CRD for the kind is known, a list longer than
// its CRD's maxItems (100,000 targetRefs on a kgateway TrafficPolicy,
// whose limit of 16 its family declares through Options.ListLimits) is
// GWP101 at the list, and the object is left out; at the limit it is
// read. With the CRD known the limit is the schema stage's, and the
// Gateway API's lists always are (pipeline's TestListLimitsOneSource).
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
	// With the kind's CRD known (the schema stage checked it), its
	// maxItems is the schema stage's to report: the hand-written limit is
	// not applied and the policy is read.
	opts.Schema = func(*manifest.Object) schema.Verdict { return schema.Verdict{Checked: true, Served: true} }
	m := model.Build(set(t, "in.yaml", policy(17)), opts)
	if len(m.Diagnostics) != 0 || len(m.OfKind(tp)) != 1 {
		t.Errorf("17 targetRefs, CRD known: %v, kept %d; want no finding and the policy read", codes(m.Diagnostics), len(m.OfKind(tp)))
	}
}
