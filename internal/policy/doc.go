// Package policy is the policy-kind contract and registry. A controller
// family is one sub-package (kgateway, envoygateway, haptic, wso2) holding
// its policy kinds; backendtlspolicy is the Gateway API's own kind, which
// every family's targets read. Each kind implements Kind: how
// to decode and validate its objects, how they attach, which fields they
// set and how each field merges. kind.go lists Kind and every optional
// hook the stages find on it by type assertion (rendering, rule checks,
// status of its own, …), one sentence each; a kind asserts each hook it
// implements with a var _ line. Nothing outside a family's package (and the
// registry in internal/families) names its kinds; attach, merge, status,
// render, explain, lint and cli work through these interfaces.
//
// lintrules.go declares the lint rules of findings several stages and
// kinds make (an invalid policy spec, a target or ExtensionRef that does
// not resolve, a capability the render target lacks); a rule only one
// kind makes is declared in that kind's package (LintRuleOwner).
//
// policy sits between topology and attach: it imports topology, model,
// manifest and diag. Render output is described here as fragments of
// proto.Message values a kind's own render files build, so that only
// internal/render/envoy and those render files import go-control-plane.
// A controller family exports, in its own package, values of this
// package's types: its Family (controllerfamily.go: its controller, its
// render target, its settings and the steps of its own the pipeline runs
// for it), its Controller (controller.go), its render Target (target.go)
// and its Settings (settings.go). A new controller starts there, one new
// package listed in internal/families; docs/development.md ("Adding a
// controller") walks through it.
package policy
