package envoygateway

import (
	"encoding/json"
	"slices"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

var _ policy.BackendCaller = (*Kind)(nil)

// CalledBackends implements policy.BackendCaller: the backendRefs of a
// SecurityPolicy's or EnvoyExtensionPolicy's extension services (ext-auth,
// ext-proc, OIDC provider, remote JWKS) — every backendRef(s) in the
// spec, which in these kinds name nothing else. Envoy Gateway reports a
// BackendTLSPolicy on such a backend against the policy.
func (k *Kind) CalledBackends(p *policy.Policy) []model.Key {
	if k != securityPolicy && k != envoyExtensionPolicy {
		return nil
	}
	raw, err := p.Obj.FieldJSON("spec")
	var spec any
	if err != nil || json.Unmarshal(raw, &spec) != nil {
		return nil
	}
	var out []model.Key
	walkBackendRefs(spec, func(r backendRef) {
		key := r.key(p.Obj.Namespace)
		if !slices.Contains(out, key) {
			out = append(out, key)
		}
	})
	return out
}

// key is the backend object a reference names, defaults applied.
func (r backendRef) key(ns string) model.Key {
	k := model.Key{Group: r.Group, Kind: r.Kind, Namespace: ns, Name: r.Name}
	if k.Kind == "" {
		k.Kind = "Service"
	}
	if r.Namespace != nil && *r.Namespace != "" {
		k.Namespace = *r.Namespace
	}
	return k
}

// walkBackendRefs calls f for every backendRef and backendRefs item in a
// decoded spec, depth first in document order (map keys sorted).
func walkBackendRefs(v any, f func(backendRef)) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			switch k {
			case "backendRef":
				callRef(t[k], f)
			case "backendRefs":
				if items, ok := t[k].([]any); ok {
					for _, it := range items {
						callRef(it, f)
					}
				}
			default:
				walkBackendRefs(t[k], f)
			}
		}
	case []any:
		for _, it := range t {
			walkBackendRefs(it, f)
		}
	}
}

func callRef(v any, f func(backendRef)) {
	b, err := json.Marshal(v)
	var r backendRef
	if err == nil && json.Unmarshal(b, &r) == nil && r.Name != "" {
		f(r)
	}
}
