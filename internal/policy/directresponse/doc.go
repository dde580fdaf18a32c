// Package directresponse is kgateway's DirectResponse: a fixed answer
// (status, and a body or a formatted body) that a route rule's
// ExtensionRef filter puts in place of forwarding.
//
// It is a policy kind (stage: policy): it imports diag, model, manifest and
// the policy contract (its answer is a fragment its render files build). kgateway
// reports it like its other policies (Accepted, Attached, ancestor the
// Gateway) and writes no merge metadata for it; gwpol writes its own key.
package directresponse
