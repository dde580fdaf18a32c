package envoygateway

// EnvoyExtensionPolicy adds extensions to the traffic of a Gateway or
// route: Wasm modules, external processors and Lua scripts.
func EnvoyExtensionPolicy() *Kind { return envoyExtensionPolicy }

var envoyExtensionPolicy = &Kind{
	name:      "EnvoyExtensionPolicy",
	plural:    "envoyExtensionPolicies",
	fields:    []string{"wasm", "extProc", "lua", "dynamicModule"},
	targets:   allTargets,
	mergeable: true,
}
