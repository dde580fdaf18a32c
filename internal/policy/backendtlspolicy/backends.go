package backendtlspolicy

import (
	"encoding/json"
	"strconv"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

var _ policy.BackendChecker = Kind{}

// onBackend is one policy's targetRef of a backend: the port section it
// names ("" for the whole backend) and the CA certificates it reads.
type onBackend struct {
	section string
	cas     []ObjectRef
	ns      string
}

// BackendChecks implements policy.BackendChecker: the CA certificate
// references of the policy on a backend port that name a ConfigMap or
// Secret the input does not hold. The policy is the first (in input
// order) whose targetRef names that port's section — a Service port's
// name, a Backend's port number — else the first that names the whole
// backend, as Envoy Gateway picks it; it lives in the backend's
// namespace.
func (Kind) BackendChecks(m *model.Model) func(backend model.Key, port int32) []policy.MissingRef {
	index := map[model.Key][]onBackend{}
	for _, o := range m.OfKind(model.GroupKind{Group: model.GatewayGroup, Kind: KindName}) {
		raw, err := o.FieldJSON("spec")
		var s Spec
		if err != nil || json.Unmarshal(raw, &s) != nil {
			continue // Decode reports it
		}
		for _, t := range s.TargetRefs {
			k := model.Key{Group: t.Group, Kind: t.Kind, Namespace: o.Namespace, Name: t.Name}
			e := onBackend{cas: s.Validation.CACertificateRefs, ns: o.Namespace}
			if t.SectionName != nil {
				e.section = *t.SectionName
			}
			index[k] = append(index[k], e)
		}
	}
	if len(index) == 0 {
		return func(model.Key, int32) []policy.MissingRef { return nil }
	}
	return func(backend model.Key, port int32) []policy.MissingRef {
		es := index[backend]
		if len(es) == 0 {
			return nil
		}
		section := portSection(m, backend, port)
		pick := -1
		for i, e := range es {
			if section != "" && e.section == section {
				pick = i
				break
			}
		}
		if pick < 0 {
			for i, e := range es {
				if e.section == "" {
					pick = i
					break
				}
			}
		}
		if pick < 0 {
			return nil
		}
		return missingCAs(m, es[pick])
	}
}

// portSection is the section name a targetRef gives a backend's port: a
// Service port's name, else the port number.
func portSection(m *model.Model, backend model.Key, port int32) string {
	if backend.Group == "" && backend.Kind == "Service" {
		if svc := m.Service(backend.Namespace, backend.Name); svc != nil {
			for _, p := range svc.Spec.Ports {
				if p.Port == port {
					return p.Name
				}
			}
		}
		return ""
	}
	if port == 0 {
		return ""
	}
	return strconv.Itoa(int(port))
}

// missingCAs are the CA certificate references of e that name a ConfigMap
// or Secret not in the input; the first only, as a controller stops at it.
func missingCAs(m *model.Model, e onBackend) []policy.MissingRef {
	for _, ref := range e.cas {
		if ref.Group != "" {
			continue
		}
		switch {
		case ref.Kind == "ConfigMap" && m.ConfigMap(e.ns, ref.Name) == nil,
			ref.Kind == "Secret" && m.Secret(e.ns, ref.Name) == nil:
			return []policy.MissingRef{{Kind: ref.Kind, Namespace: e.ns, Name: ref.Name}}
		}
	}
	return nil
}
