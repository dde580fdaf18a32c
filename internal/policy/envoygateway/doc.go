// Package envoygateway is the policy kinds of Envoy Gateway
// (gateway.envoyproxy.io/v1alpha1): BackendTrafficPolicy, SecurityPolicy,
// ClientTrafficPolicy and EnvoyExtensionPolicy, a file each, sharing how
// they are decoded (kind.go), validated (validate.go, values.go,
// ratelimit.go, geoip.go) and how their status is decided (status.go);
// and HTTPRouteFilter, the filter extension rules reference.
//
// Envoy Gateway decides status across all the policies of one kind, in its
// processing order (creationTimestamp, then namespace/name; document order
// when neither tells them apart): a target already claimed makes the later
// policy Conflicted, a more specific policy overrides a less specific one
// whole (Overridden) unless it sets mergeType, in which case both report
// Merged. The kinds therefore implement policy.AncestorStatuser.
//
// Like every kind package it sits in the policy stage: it imports diag,
// manifest, model, topology and policy; it renders nothing yet
// (policy.Renderer reports its fields as unsupported).
package envoygateway
