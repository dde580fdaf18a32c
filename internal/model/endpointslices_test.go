package model_test

import (
	"slices"
	"testing"

	"github.com/gwpol/gwpol/internal/model"
)

func TestEndpointSlicesByService(t *testing.T) {
	objs := set(t, "in.yaml", `
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-b, namespace: shop, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: []
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-a, namespace: shop, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: []
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-x, namespace: other, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: []
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: unlabelled, namespace: shop}
addressType: IPv4
endpoints: []
`)
	// EndpointSlice is kept when a family reads it (Options.Extra).
	m := model.Build(objs, model.Options{Extra: map[model.GroupKind]bool{model.EndpointSliceKind: true}})
	tests := []struct {
		ns, name string
		want     []string
	}{
		{"shop", "web", []string{"web-a", "web-b"}},
		{"other", "web", []string{"web-x"}},
		{"shop", "api", nil},
		{"shop", "", nil},
	}
	for _, tc := range tests {
		var got []string
		for _, o := range m.EndpointSlices(tc.ns, tc.name) {
			got = append(got, o.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("EndpointSlices(%q, %q) = %v, want %v", tc.ns, tc.name, got, tc.want)
		}
	}
}

// TestEndpointSlicesByServiceImport: a multi-cluster ServiceImport's
// slices are those labelled with its name by the Multi-Cluster Services
// API's label, not a Service's of the same name.
func TestEndpointSlicesByServiceImport(t *testing.T) {
	objs := set(t, "in.yaml", `
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-svc, namespace: shop, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: []
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-import, namespace: shop, labels: {multicluster.kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: []
`)
	m := model.Build(objs, model.Options{Extra: map[model.GroupKind]bool{model.EndpointSliceKind: true}})
	var got []string
	for _, o := range m.ServiceImportEndpointSlices("shop", "web") {
		got = append(got, o.Name)
	}
	if !slices.Equal(got, []string{"web-import"}) {
		t.Errorf("ServiceImportEndpointSlices(shop, web) = %v, want [web-import]", got)
	}
	if got := m.ServiceImportEndpointSlices("other", "web"); got != nil {
		t.Errorf("ServiceImportEndpointSlices(other, web) = %v, want none", got)
	}
}
