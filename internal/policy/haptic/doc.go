// Package haptic is the policy kind for HAPTIC's HAProxyRoutePolicy
// (haproxy-haptic.org/v1alpha1): authentication (JWT, API keys), a rate
// limit, a WAF policy and a response cache for the route rules that
// reference it through an ExtensionRef filter.
//
// The kind has no targetRefs, no merge and no precedence: one policy per
// rule, and anything wrong — a bad value (GWP401), a missing, mutable or
// malformed credential Secret or WAF catalog (GWP402), a feature a
// GRPCRoute cannot use (GWP403) — closes the rule rather than letting it
// forward without its policy. Secret values are never printed; the catalog
// ConfigMap is parsed only for what gwpol checks (does the WAF policy
// buffer request bodies).
//
// Like every kind package it sits in the policy stage: it imports diag,
// manifest, model and policy, and describes Envoy configuration in
// policy's neutral Fragment form.
package haptic
