package envoygateway

import (
	"reflect"
	"slices"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

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
	var out []model.Key
	walkBackendRefs(reflect.ValueOf(decoded(p).spec), func(r backendRef) {
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
// typed spec, depth first, fields in the order of their JSON names.
func walkBackendRefs(v reflect.Value, f func(backendRef)) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		idx := jsonFieldIndexes(v.Type())
		keys := make([]string, 0, len(idx))
		for k := range idx {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fv, ok := fieldAt(v, idx[k])
			if !ok || fv.IsZero() {
				continue
			}
			switch r := fv.Interface().(type) {
			case *gwapiv1.BackendObjectReference:
				if k == "backendRef" && r.Name != "" {
					f(refOf(*r))
				}
				continue
			case []egv1a1.BackendRef:
				for _, b := range r {
					if b.Name != "" {
						f(refOf(b.BackendObjectReference))
					}
				}
				continue
			}
			walkBackendRefs(fv, f)
		}
	case reflect.Slice:
		for i := range v.Len() {
			walkBackendRefs(v.Index(i), f)
		}
	}
}
