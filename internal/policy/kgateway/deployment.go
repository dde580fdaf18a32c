package kgateway

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// deployment is what kgateway's deployment settings change in the
// generic stages (policy.DeploymentTraits): which namespace's policies
// select targets everywhere (globalPolicyNamespace), whether any
// reference into another namespace needs a ReferenceGrant
// (referenceGrantMode Off: none does), and how a field that may merge
// deep merges (policyMerge).
var deployment = policy.DeploymentTraits{
	AllNamespacesPolicies: GlobalPolicyNamespace.String,
	Ungranted:             grantsOff,
	FieldStrategy:         fieldStrategy,
}

// grantsOff reports whether kgateway runs with referenceGrantMode Off: its
// RefGrantIndex.ReferenceAllowed then allows every reference before
// looking at a grant, so no caller — backendRefs, mirrors, listener
// certificates, a policy's Secrets (by name, by selector, in header
// values) or backends — needs one (devel/reference_grant/
// reference-grant-mode.md, whose golden cases are the pinned
// reference-grant-mode ones).
func grantsOff(cfg policy.Config) bool { return ReferenceGrantMode.String(cfg) == "Off" }

// grants is how kgateway matches ReferenceGrants under cfg: Grants, and
// none checked under referenceGrantMode Off (Family.GrantsUnder).
func grants(cfg policy.Config) model.GrantRule { return Family.GrantsUnder(cfg) }

// strictValidation reports whether kgateway runs with validationMode
// Strict: it then also refuses what Envoy's own validation of the
// generated configuration would.
func strictValidation(cfg policy.Config) bool { return ValidationMode.String(cfg) == "Strict" }

// strictGrants reports whether a TrafficPolicy's reference to a
// GatewayExtension in another namespace needs a ReferenceGrant:
// referenceGrantMode Strict only (kgateway checks that hop in no other
// mode).
func strictGrants(cfg policy.Config) bool { return ReferenceGrantMode.String(cfg) == "Strict" }

// fieldStrategy is the strategy policyMerge gives field of kind k
// (policy.DeploymentTraits.FieldStrategy): policyMerge.<kind's config
// key>.<field>, DeepMerge or ShallowMerge, keys compared without case.
func fieldStrategy(cfg policy.Config, k policy.Kind, field string) (policy.Strategy, bool) {
	fields, _ := lookupFold(PolicyMerge.Section(cfg), k.Spec().ConfigKey).(map[string]any)
	v, _ := lookupFold(fields, field).(string)
	switch {
	case strings.EqualFold(v, "DeepMerge"):
		return policy.AugmentedDeep, true
	case strings.EqualFold(v, "ShallowMerge"):
		return policy.AugmentedShallow, true
	}
	return "", false
}

// lookupFold is m's value under key compared without case (a config
// section keeps the keys as the user wrote them); nil when none.
func lookupFold(m map[string]any, key string) any {
	if v, ok := m[key]; ok {
		return v
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v
		}
	}
	return nil
}

// checkPolicyMerge refuses a policyMerge section that is not a mapping of
// kinds to mappings of fields to DeepMerge or ShallowMerge (Setting.Check):
// the error starts with the key of the bad value, which the config reader
// positions.
func checkPolicyMerge(v any) error {
	kinds, _ := v.(map[string]any)
	for _, kind := range slices.Sorted(maps.Keys(kinds)) {
		if kinds[kind] == nil {
			continue
		}
		fields, ok := kinds[kind].(map[string]any)
		if !ok {
			return fmt.Errorf("policyMerge.%s must map fields to DeepMerge or ShallowMerge", kind)
		}
		for _, f := range slices.Sorted(maps.Keys(fields)) {
			if s, _ := fields[f].(string); s != "DeepMerge" && s != "ShallowMerge" {
				return fmt.Errorf("policyMerge.%s.%s must be DeepMerge or ShallowMerge, not %s", kind, f, quoted(fields[f]))
			}
		}
	}
	return nil
}

// quoted shows a config value in a message: a string quoted, anything
// else as written.
func quoted(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}
