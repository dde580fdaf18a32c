// Package trafficpolicy models kgateway's gateway.kgateway.dev/v1alpha1
// policy API: TrafficPolicy and the kinds it references (GatewayExtension,
// Backend) plus ListenerPolicy.
//
// The structs in types*.go mirror the JSON shape of kgateway's CRDs so that
// manifests decode 1:1 and unknown fields can be detected by walking the
// json tags. Optional fields are pointers (or nil-able slices/maps) so that
// "unset" and "set to the zero value" stay distinguishable for shallow merge.
// Durations are kept as the raw strings written in the manifest ("1s",
// "500ms"); quantities use resource.Quantity, which accepts ints and strings.
//
// Like every kind package it sits in the policy stage: it imports diag,
// manifest, model and policy; only its render*.go files import
// go-control-plane, building typed Envoy messages for its fields. kind.go
// asserts the hooks of the policy-kind contract it implements.
package trafficpolicy
