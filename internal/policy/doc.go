// Package policy is the policy-kind registry. A policy kind is one
// sub-package (trafficpolicy, haptic, wso2) that implements Kind: how to
// decode and validate its objects, how they attach, which fields they set
// and how each field merges and renders. Nothing outside a kind's package
// names that kind; attach, merge, status, render, explain and lint work
// through this interface.
//
// policy sits between model and attach: it imports model, manifest and
// diag. Rendering is described here in neutral form (protojson-shaped maps
// with type URLs) so that only internal/render/envoy imports go-control-plane.
package policy
