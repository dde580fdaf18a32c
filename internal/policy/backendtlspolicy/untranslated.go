package backendtlspolicy

import "github.com/gwpol/gwpol/internal/policy"

// optionsUnread is why a BackendTLSPolicy's options change nothing: no
// controller gwpol emulates reads them at its pinned version, so the
// running config lacks them too, and the policy is accepted as if they
// were not set.
const optionsUnread = "neither kgateway at 48460f7f (backendtlspolicy/plugin.go: buildTranslateFunc builds the upstream TLS from " +
	"spec.validation alone) nor Envoy Gateway v1.9.0 (gatewayapi/backendtlspolicy.go) reads a BackendTLSPolicy's options: " +
	"the TLS parameters they name are not applied, and the policy's status does not say so"

// UntranslatedFields implements policy.Untranslator: spec.options is
// reported where it is set (GWP406) rather than dropped silently.
func (k Kind) UntranslatedFields() []policy.UntranslatedField {
	return []policy.UntranslatedField{{Kind: k.GroupKind(), Path: "spec.options", Reason: optionsUnread}}
}
