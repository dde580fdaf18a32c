// Package haptic is the HAPTIC controller family (Family, controller.go:
// its controller, render target and deployment settings) and its policy
// kind, HAProxyRoutePolicy (haproxy-haptic.org/v1alpha1): authentication (JWT, API keys), a rate
// limit, a WAF policy and a response cache for the route rules that
// reference it through an ExtensionRef filter.
//
// The kind has no targetRefs, no merge and no precedence: one policy per
// rule, and anything wrong — a bad value (GWP401), a missing, mutable or
// malformed credential Secret or WAF catalog (GWP402), a feature a
// GRPCRoute cannot use (GWP403) — closes the rule rather than letting it
// forward without its policy. Credential Secrets are read (as
// secret.Value, through model.Opaque.Value) only to check them in HAPTIC's
// formats — API key lines, one PEM public key that fits the JWT
// algorithm — by internal/secret, whose problems say line and block
// numbers, sizes and key types from a closed set, never the value. A WAF policy names a self-service catalog entry
// (catalogRef) or, without catalogRef, a trusted policy of the deployment;
// catalogs are checked whole, as HAPTIC takes them.
//
// The deployment's chart switches (shared rate limit, cache tier, WAF and
// its trusted catalogs and limits) are the config keys under haptic: (see
// Settings); a policy needing a switched-off feature fails closed.
//
// Like every kind package it sits in the policy stage: it imports diag,
// manifest, model, secret and policy. Its render file builds the Envoy
// configuration of each field as go-control-plane messages in policy
// Fragments (the typed fields), which render/envoy packs and validates.
package haptic
