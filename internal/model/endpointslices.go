package model

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

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
	byService map[types.NamespacedName][]*manifest.Object
}

// EndpointSlices returns the input's EndpointSlices of Service ns/name
// (labelled kubernetes.io/service-name), in the model's object order.
func (m *Model) EndpointSlices(ns, name string) []*manifest.Object {
	m.slices.once.Do(func() {
		m.slices.byService = map[types.NamespacedName][]*manifest.Object{}
		for _, o := range m.byGK[EndpointSliceKind] {
			if svc, ok := o.Labels[serviceNameLabel]; ok {
				k := types.NamespacedName{Namespace: o.Namespace, Name: svc}
				m.slices.byService[k] = append(m.slices.byService[k], o)
			}
		}
	})
	return m.slices.byService[types.NamespacedName{Namespace: ns, Name: name}]
}
