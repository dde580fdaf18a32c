package model

import (
	"sync"

	"github.com/gwpol/gwpol/internal/manifest"
)

// EndpointSliceKind is the Kubernetes EndpointSlice.
var EndpointSliceKind = GroupKind{Group: "discovery.k8s.io", Kind: "EndpointSlice"}

// serviceNameLabel is the label by which an EndpointSlice names its
// Service (discovery.k8s.io's kubernetes.io/service-name).
const serviceNameLabel = "kubernetes.io/service-name"

// sliceIndex holds the input's EndpointSlices by the Service they name,
// built on first use: a check asked for every backendRef must not scan
// every slice of the input.
type sliceIndex struct {
	once      sync.Once
	byService map[NamespacedName][]*manifest.Object
}

// NamespacedName is an object's namespace and name.
type NamespacedName struct{ Namespace, Name string }

// EndpointSlices returns the input's EndpointSlices of Service ns/name
// (labelled kubernetes.io/service-name), in the model's object order.
func (m *Model) EndpointSlices(ns, name string) []*manifest.Object {
	m.slices.once.Do(func() {
		m.slices.byService = map[NamespacedName][]*manifest.Object{}
		for _, o := range m.byGK[EndpointSliceKind] {
			if svc, ok := o.Labels[serviceNameLabel]; ok {
				k := NamespacedName{o.Namespace, svc}
				m.slices.byService[k] = append(m.slices.byService[k], o)
			}
		}
	})
	return m.slices.byService[NamespacedName{ns, name}]
}
