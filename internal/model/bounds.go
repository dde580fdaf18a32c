package model

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Numeric ranges the Gateway API CRDs enforce. The API server rejects an
// object outside them, so gwpol does too, in every validation mode: a
// negative weight or port would otherwise be clamped or wrapped silently
// into config nobody wrote.
const (
	minPort, maxPort     = 1, 65535
	minWeight, maxWeight = 0, 1_000_000
)

// crdBounds reports every number of a decoded Gateway API object that its
// CRD's validation would reject, at the number's position.
func crdBounds(o *manifest.Object, v any) []diag.Diagnostic {
	var out []diag.Diagnostic
	check := func(path string, n, lo, hi int64) {
		if n < lo || n > hi {
			out = append(out, diag.Diagnostic{Code: "GWP101", Severity: diag.Error, Object: o.Ref(), Field: path, Pos: o.FieldPos(path),
				Message: fmt.Sprintf("%s is %d, outside %d..%d; the API server's CRD validation rejects this %s", path, n, lo, hi, o.Kind)})
		}
	}
	backend := func(path string, b gwv1.BackendRef) {
		if b.Weight != nil {
			check(path+".weight", int64(*b.Weight), minWeight, maxWeight)
		}
		if b.Port != nil {
			check(path+".port", int64(*b.Port), minPort, maxPort)
		}
	}
	switch x := v.(type) {
	case *gwv1.HTTPRoute:
		for i, r := range x.Spec.Rules {
			for j, b := range r.BackendRefs {
				backend(backendPath(fmt.Sprintf("spec.rules[%d]", i), j), b.BackendRef)
			}
		}
	case *gwv1.GRPCRoute:
		for i, r := range x.Spec.Rules {
			for j, b := range r.BackendRefs {
				backend(backendPath(fmt.Sprintf("spec.rules[%d]", i), j), b.BackendRef)
			}
		}
	case *gwv1.Gateway:
		for i, l := range x.Spec.Listeners {
			check(fmt.Sprintf("spec.listeners[%d].port", i), int64(l.Port), minPort, maxPort)
		}
	case *gwv1.ListenerSet:
		for i, l := range x.Spec.Listeners {
			check(fmt.Sprintf("spec.listeners[%d].port", i), int64(l.Port), minPort, maxPort)
		}
	}
	return out
}
