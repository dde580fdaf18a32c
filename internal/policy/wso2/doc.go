// Package wso2 is the WSO2 API Platform gateway family (Kinds.Family: its
// deployment settings and the gateway operator's own steps, built per
// compile with the policy definitions) and its policy kinds
// (gateway.api-platform.wso2.com): APIPolicy, attached to an HTTPRoute by
// spec.targetRef (API level) or referenced from a rule's ExtensionRef filter
// (rule level), and RestApi, which carries its own chains (spec.policies at
// API level, spec.operations[].policies at operation level).
//
// A policy reference is {name, version: vN, params, executionCondition}.
// References resolve through internal/policyversion the way the WSO2
// gateway-controller and policy engine resolve them: by the major-only
// identity name:vN against the loaded policy definitions and the engine's
// build manifest. Problems become the GWP501–GWP506 diagnostics at the
// reference's version line (GWP506 at the failing params path); GWP507 and
// problems inside the definition and manifest files come from the loaders.
//
// Chains are additive, never overriding: system policies (config
// wso2.systemPolicies), then API level, then operation/rule level. The kind
// has one mergeable field, "chain" (policy.Additive), and renders it as an
// ext_proc filter to the policy engine with the resolved chain in route
// metadata.
//
// explain shows what the kinds add through the contract's hooks
// (explain.go): each rule's chain as a note (policy.RuleNoter), and
// `gwpol explain restapi/NS/NAME`, a RestApi's chains per operation
// (policy.ObjectExplainer). The system chain and the chains the operator
// generates for the rules it serves are computed while compiling; the
// pipeline records them on Kinds (SetFound) for those views.
//
// Like every kind package it sits in the policy stage: it imports policy,
// topology, model, manifest, diag and policyversion; never attach, merge
// or anything later in the pipeline.
package wso2
