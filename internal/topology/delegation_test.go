package topology

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
)

// TestDelegationSelection: a delegating backendRef selects the HTTPRoutes
// of its namespace by name, by "*" or by the delegation label, never a
// route of another namespace or kind, and never the parent itself.
func TestDelegationSelection(t *testing.T) {
	child := func(ns, name, label string) string {
		labels := ""
		if label != "" {
			labels = ", labels: {" + DelegationLabel + ": " + label + "}"
		}
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: " + ns + labels + "}\nspec:\n  rules: [{}]\n"
	}
	grpc := "apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: api, namespace: a}\nspec:\n  rules: [{}]\n"
	children := []string{child("a", "api", "team"), child("a", "web", "team"), child("a", "admin", ""), child("b", "api", "team"), grpc}
	tests := []struct {
		ref  string
		want []string
	}{
		{"{group: gateway.networking.k8s.io, kind: HTTPRoute, name: api, namespace: a}", []string{"a/api"}},
		{"{group: gateway.networking.k8s.io, kind: HTTPRoute, name: '*', namespace: a}", []string{"a/admin", "a/api", "a/web"}},
		{"{group: " + DelegationLabelGroup + ", kind: label, name: team, namespace: a}", []string{"a/api", "a/web"}},
		{"{group: " + DelegationLabelGroup + ", kind: label, name: other, namespace: a}", nil},
		{"{group: gateway.networking.k8s.io, kind: HTTPRoute, name: api, namespace: c}", nil},
		{"{group: gateway.networking.k8s.io, kind: HTTPRoute, name: '*', namespace: infra}", nil}, // only the parent itself
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			parent := httpRoute("infra", "parent", "  parentRefs: [{name: gw}]\n  rules:\n  - backendRefs: ["+tt.ref+"]\n")
			g := graph(t, Options{}, append([]string{gatewayInfra, parent}, children...)...)
			var got []string
			for _, d := range route(t, g, "HTTPRoute/infra/parent").Rules[0].Children {
				got = append(got, d.Child.Meta.Namespace+"/"+d.Child.Meta.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("children = %v, want %v", got, tt.want)
			}
		})
	}
}

// BenchmarkDelegation builds the topology of n parent routes, each
// delegating by name to its own child in one namespace: selection is a
// lookup per reference, not a scan of every route.
func BenchmarkDelegation(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			docs := []string{gatewayInfra}
			for i := range n {
				docs = append(docs,
					httpRoute("infra", fmt.Sprintf("parent-%d", i), fmt.Sprintf("  parentRefs: [{name: gw}]\n  hostnames: [h%d.example.com]\n  rules:\n  - backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: child-%d, namespace: apps}]\n", i, i)),
					httpRoute("apps", fmt.Sprintf("child-%d", i), "  rules: [{}]\n"))
			}
			objs, err := manifest.Parse("in.yaml", []byte(strings.Join(docs, "\n---\n")), manifest.Limits{})
			if err != nil {
				b.Fatal(err)
			}
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{})
			b.ResetTimer()
			for b.Loop() {
				Build(m, Options{})
			}
		})
	}
}
