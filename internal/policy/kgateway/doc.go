// Package kgateway is the kgateway controller family
// (gateway.kgateway.dev/v1alpha1): its policy kinds, its controller
// behaviour and its deployment settings, in one place.
//
//   - Kinds: TrafficPolicy (kind.go, types*.go, render_*.go), ListenerPolicy
//     (listenerpolicy*.go), BackendConfigPolicy (backendconfig_*.go, render_backendconfig.go: the
//     settings of the Envoy clusters built for a Service or Backend; its
//     status ancestor is the backend it configures, as kgateway reports
//     it) and DirectResponse (directresponse_*.go, render_directresponse.go: the fixed answer a
//     rule's ExtensionRef filter puts in place of forwarding), plus the
//     kinds they reference (GatewayExtension, Backend).
//   - The family (controller.go: Family): how kgateway validates routes
//     and rules (rulecheck.go), delegates routes (delegation.go), writes
//     listeners and clusters (Target, listeners.go, render_backend*.go),
//     names xDS resources (xdsnames.go), and its settings (settings.go,
//     kgateway's KGW_* environment, with its defaults).
//
// The structs in types*.go mirror the JSON shape of kgateway's CRDs so that
// manifests decode 1:1 and unknown fields can be detected by walking the
// json tags. Optional fields are pointers (or nil-able slices/maps) so that
// "unset" and "set to the zero value" stay distinguishable for shallow merge.
// Durations are kept as the raw strings written in the manifest ("1s",
// "500ms"); quantities use resource.Quantity, which accepts ints and strings.
//
// Like every family package it sits in the policy stage: it imports diag,
// manifest, model, secret, topology (for the delegation rules it gives the
// walk) and the policy contract; its render files import go-control-plane,
// building typed Envoy messages for its fields. No stage or view imports
// it: internal/families lists it. kind.go and backendconfig_kind.go assert
// the hooks of the policy-kind contract each kind implements.
package kgateway
