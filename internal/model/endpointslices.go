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

// serviceImportNameLabel is the label by which an EndpointSlice names its
// multi-cluster ServiceImport (the Multi-Cluster Services API's
// multicluster.kubernetes.io/service-name).
const serviceImportNameLabel = "multicluster.kubernetes.io/service-name"

// sliceIndex holds the input's EndpointSlices by the Service and by the
// ServiceImport they name, built on first use: a check asked for every
// backendRef must not scan every slice of the input.
type sliceIndex struct {
	once            sync.Once
	byService       map[types.NamespacedName][]*manifest.Object
	byServiceImport map[types.NamespacedName][]*manifest.Object
}

func (m *Model) indexSlices() {
	m.slices.once.Do(func() {
		m.slices.byService = map[types.NamespacedName][]*manifest.Object{}
		m.slices.byServiceImport = map[types.NamespacedName][]*manifest.Object{}
		for _, o := range m.byGK[EndpointSliceKind] {
			if svc, ok := o.Labels[serviceNameLabel]; ok {
				k := types.NamespacedName{Namespace: o.Namespace, Name: svc}
				m.slices.byService[k] = append(m.slices.byService[k], o)
			}
			if si, ok := o.Labels[serviceImportNameLabel]; ok {
				k := types.NamespacedName{Namespace: o.Namespace, Name: si}
				m.slices.byServiceImport[k] = append(m.slices.byServiceImport[k], o)
			}
		}
	})
}

// EndpointSlices returns the input's EndpointSlices of Service ns/name
// (labelled kubernetes.io/service-name), in the model's object order.
func (m *Model) EndpointSlices(ns, name string) []*manifest.Object {
	m.indexSlices()
	return m.slices.byService[types.NamespacedName{Namespace: ns, Name: name}]
}

// ServiceImportEndpointSlices returns the input's EndpointSlices of the
// ServiceImport ns/name (labelled multicluster.kubernetes.io/service-name),
// in the model's object order.
func (m *Model) ServiceImportEndpointSlices(ns, name string) []*manifest.Object {
	m.indexSlices()
	return m.slices.byServiceImport[types.NamespacedName{Namespace: ns, Name: name}]
}
