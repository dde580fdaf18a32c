// Package envoygateway is the Envoy Gateway controller family (Family,
// kind.go): its controller and render target, its deployment settings
// (settings.go), its own validation of the routes and listeners of its
// Gateways (route*.go, listener.go), and its policy kinds
// (gateway.envoyproxy.io/v1alpha1): BackendTrafficPolicy, SecurityPolicy,
// ClientTrafficPolicy and EnvoyExtensionPolicy, a file each, sharing how
// they are decoded (kind.go, typed.go: each spec once, into Envoy
// Gateway's own API types from github.com/envoyproxy/gateway/api/v1alpha1,
// which renderers and checks read), validated (validate.go, values.go,
// ratelimit.go, geoip.go) and how their status is decided (status.go);
// and HTTPRouteFilter, the filter extension rules reference. The order of
// the HTTP filters they add is one table (filterorder.go).
//
// Envoy Gateway decides status across all the policies of one kind, in its
// processing order (creationTimestamp, then namespace/name; document order
// when neither tells them apart): a target already claimed makes the later
// policy Conflicted, a more specific policy overrides a less specific one
// whole (Overridden) unless it sets mergeType, in which case both report
// Merged. The family therefore decides them (policy.Family.AncestorStatuses).
//
// In the data plane, too, a more specific policy replaces a less specific
// one whole or merges into it (policy.WholeOverrider): merge.Result.Routed
// finds the policy in effect per route rule and listener, and render
// places its configuration on each route, as Envoy Gateway does. The
// fields rendered so far (render.go lists them; render_<kind>.go builds
// them as go-control-plane messages, in the shape Envoy Gateway's
// translator gives them) render for every target; every other field is
// unsupported (GWP404) and fails closed.
//
// Like every kind package it sits in the policy stage: it imports diag,
// manifest, model, secret, topology and policy, and Envoy Gateway's API
// types;
// its render files also import go-control-plane.
package envoygateway
