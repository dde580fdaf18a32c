package envoygateway

import "github.com/gwpol/gwpol/internal/policy"

// RenderField implements policy.Renderer. No render target expresses
// Envoy Gateway's fields yet, so each asks for a capability named after
// the kind and field, which no target has: render reports it as
// unsupported (GWP404) and the routes it applies to fail closed, rather
// than dropping the field silently.
func (k *Kind) RenderField(in policy.FieldInput, _ *policy.Env) ([]policy.Fragment, error) {
	return []policy.Fragment{{Capability: "envoygateway." + k.name + "." + in.Key}}, nil
}
