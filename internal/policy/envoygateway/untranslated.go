package envoygateway

import (
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// envoyPatchPolicy is Envoy Gateway's EnvoyPatchPolicy: JSON patches over
// the xDS it generates for a Gateway.
var envoyPatchPolicy = model.GroupKind{Group: Group, Kind: "EnvoyPatchPolicy"}

var _ policy.Untranslator = (*Kind)(nil)

// UntranslatedFields implements policy.Untranslator: what Envoy Gateway
// reads and gwpol does not translate, each reported where it is set.
func (k *Kind) UntranslatedFields() []policy.UntranslatedField {
	return []policy.UntranslatedField{
		{Kind: envoyPatchPolicy, Reason: "its JSON patches address the xDS resources Envoy Gateway generates, by name and JSON path; " +
			"gwpol's xDS is its own translation of the same input (names and defaults differ), so the patches cannot be applied to it faithfully, " +
			"and Envoy Gateway applies them only when its deployment enables extensionApis.enableEnvoyPatchPolicy. " +
			"See the patched config with egctl x translate, or annotate gwpol.dev/ignore: GWP406 to accept the difference"},
		{Kind: envoyProxy, Path: "spec", Except: []string{"spec.geoIP"}, Reason: "an EnvoyProxy setting configures the data plane Envoy Gateway deploys " +
			"(its provider, bootstrap, telemetry, filter order, Gateway and backend merging…); gwpol models only spec.geoIP, " +
			"so this setting does not shape gwpol's output"},
	}
}
