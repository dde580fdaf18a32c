package envoygateway

import (
	"fmt"
	"slices"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// checkDynamicModules: a dynamic module must be registered in the
// dynamicModules allowlist of the EnvoyProxy of every Gateway the policy
// reaches. Decided only where that EnvoyProxy is in the input: without
// it, Envoy Gateway's own default settings (not an object) may hold the
// list.
func checkDynamicModules(p *policy.Policy, spec *egv1a1.EnvoyExtensionPolicySpec, m *model.Model) {
	if len(spec.DynamicModule) == 0 {
		return
	}
	for _, gs := range reachedGateways(p, m) {
		allowed, known := allowedModules(gs.gw, m)
		if !known {
			continue
		}
		for i, mod := range spec.DynamicModule {
			if !slices.Contains(allowed, mod.Name) {
				p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, fmt.Sprintf("spec.dynamicModule[%d].name", i),
					"DynamicModule: dynamic module %q is not registered in the EnvoyProxy dynamicModules allowlist.", mod.Name))
				return
			}
		}
	}
}

// allowedModules are the module names gw's EnvoyProxy registers; known is
// false when the input does not hold that EnvoyProxy.
func allowedModules(gw *model.Gateway, m *model.Model) (names []string, known bool) {
	key, ok := envoyProxyOf(gw, m)
	if !ok {
		return nil, false
	}
	o, ok := m.Object(key)
	if !ok {
		return nil, false
	}
	var d struct {
		DynamicModules []egv1a1.DynamicModuleEntry `json:"dynamicModules"`
	}
	if o.DecodeField("spec", &d) != nil {
		return nil, false
	}
	for _, mod := range d.DynamicModules {
		names = append(names, mod.Name)
	}
	return names, true
}
