package envoygateway

import "github.com/gwpol/gwpol/internal/policy"

// EnableLua is extensionApis.enableLua of Envoy Gateway's EnvoyGateway
// configuration: Lua EnvoyExtensionPolicies are translated only when the
// deployment enables them. Envoy Gateway v1.9.0's default is off
// (ExtensionAPISettings.LuaDisabled: true unless enableLua, or the
// deprecated disableLua: false, says otherwise), and then every policy
// with a lua entry is Accepted=False, Invalid. gwpol's default is on, as
// for enableBackend: an input that holds Lua policies comes from a
// deployment that enabled them; false checks against a deployment left at
// Envoy Gateway's defaults.
var EnableLua = policy.Setting{
	Key:     "envoyGateway.extensionApis.enableLua",
	Default: true,
	Doc: "Envoy Gateway's extensionApis.enableLua (its own default is false; gwpol assumes true, as an input holding Lua policies comes from a deployment that enabled them): " +
		"false: every EnvoyExtensionPolicy with spec.lua is Accepted=False, Invalid (\"Lua: Skipping Lua EnvoyExtensionPolicy as feature is disabled in the Gateway\")",
	Source: "api/v1alpha1/envoygateway_helpers.go: ExtensionAPISettings.LuaDisabled; internal/gatewayapi/envoyextensionpolicy.go: buildLuas",
}

// Settings are the Envoy Gateway deployment settings gwpol reads
// (policy.Setting), for the pipeline to register.
var Settings = []policy.Setting{EnableLua}
