package backendtlspolicy

import (
	"encoding/json"
	"strconv"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

var _ policy.BackendReferrer = Kind{}

// serviceImport is the multi-cluster Service a targetRef may name; its
// ports are sections by name, as a Service's are.
var serviceImport = model.GroupKind{Group: "multicluster.x-k8s.io", Kind: "ServiceImport"}

// onBackend is one policy's targetRef of a backend: the port section it
// names ("" for the whole backend) and what it references.
type onBackend struct {
	section string
	policy  *policy.BackendPolicy
}

// BackendPolicy implements policy.BackendReferrer: the policy governing
// a backend port is the first (in input order) whose targetRef names
// that port's section — a Service's or ServiceImport's port name, another
// backend's port number — else the first that names the whole backend;
// it lives in the backend's namespace (the Gateway API's rule, and Envoy
// Gateway's getBackendTLSPolicy).
func (Kind) BackendPolicy(m *model.Model) func(backend model.Key, port int32) *policy.BackendPolicy {
	index := map[model.Key][]onBackend{}
	for _, o := range m.OfKind(model.GroupKind{Group: model.GatewayGroup, Kind: KindName}) {
		raw, err := o.FieldJSON("spec")
		var s Spec
		if err != nil || json.Unmarshal(raw, &s) != nil {
			continue // Decode reports it
		}
		bp := &policy.BackendPolicy{Policy: model.KeyOf(o), WellKnown: s.Validation.WellKnownCACertificates != nil}
		if !bp.WellKnown {
			for _, ref := range s.Validation.CACertificateRefs {
				bp.Refs = append(bp.Refs, model.Key{Group: ref.Group, Kind: ref.Kind, Namespace: o.Namespace, Name: ref.Name})
			}
		}
		for _, t := range s.TargetRefs {
			k := model.Key{Group: t.Group, Kind: t.Kind, Namespace: o.Namespace, Name: t.Name}
			e := onBackend{policy: bp}
			if t.SectionName != nil {
				e.section = *t.SectionName
			}
			index[k] = append(index[k], e)
		}
	}
	if len(index) == 0 {
		return func(model.Key, int32) *policy.BackendPolicy { return nil }
	}
	return func(backend model.Key, port int32) *policy.BackendPolicy {
		es := index[backend]
		if len(es) == 0 {
			return nil
		}
		if section := PortSection(m, backend, port); section != "" {
			for _, e := range es {
				if e.section == section {
					return e.policy
				}
			}
		}
		for _, e := range es {
			if e.section == "" {
				return e.policy
			}
		}
		return nil
	}
}

// PortSection is the section name a targetRef gives a backend's port: a
// Service's or ServiceImport's port name ("" for an unnamed one), else
// the port number ("" for none).
func PortSection(m *model.Model, backend model.Key, port int32) string {
	switch (model.GroupKind{Group: backend.Group, Kind: backend.Kind}) {
	case model.GroupKind{Kind: "Service"}:
		if svc := m.Service(backend.Namespace, backend.Name); svc != nil {
			for _, p := range svc.Spec.Ports {
				if p.Port == port {
					return p.Name
				}
			}
		}
		return ""
	case serviceImport:
		return serviceImportPortName(m, backend, port)
	}
	if port == 0 {
		return ""
	}
	return strconv.Itoa(int(port))
}

// serviceImportPortName is the name of the ServiceImport's port numbered
// port ("" when it has none, or the object is not in the input).
func serviceImportPortName(m *model.Model, backend model.Key, port int32) string {
	o, ok := m.Object(backend)
	if !ok {
		return ""
	}
	var spec struct {
		Ports []struct {
			Name string `json:"name"`
			Port int32  `json:"port"`
		} `json:"ports"`
	}
	// A ServiceImport's ports, not this kind's spec: no typed value holds them.
	if o.DecodeField("spec", &spec) != nil {
		return ""
	}
	for _, p := range spec.Ports {
		if p.Port == port {
			return p.Name
		}
	}
	return ""
}
