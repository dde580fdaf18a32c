package kgateway

import (
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
)

// ListLimits are the maxItems of kgateway's v1alpha1 CRDs, which gwpol
// does not ship, for the lists of this family's kinds (and of its
// Backend and GatewayExtension): the API server refuses an object with a
// longer list whole, so the model reports it (GWP101) and leaves it out
// (model.Options.ListLimits). "[]" stands for every item of a list.
var ListLimits = map[model.GroupKind][]manifest.ListBound{
	{Group: Group, Kind: "Backend"}: {
		{Path: "spec.aws.ec2.filters", Max: 16},
		{Path: "spec.priorityGroups", Max: 16},
		{Path: "spec.priorityGroups[].backendRefs", Max: 16},
	},
	{Group: Group, Kind: "BackendConfigPolicy"}: {
		{Path: "spec.loadBalancer.maglev.hashPolicies", Max: 16},
		{Path: "spec.loadBalancer.ringHash.hashPolicies", Max: 16},
		{Path: "spec.targetRefs", Max: 16},
	},
	{Group: Group, Kind: "GatewayExtension"}: {
		{Path: "spec.jwt.providers", Max: 32},
		{Path: "spec.jwt.providers[].audiences", Max: 32},
		{Path: "spec.jwt.providers[].claimsToHeaders", Max: 32},
		{Path: "spec.oauth2.denyRedirect.headers", Max: 16},
		{Path: "spec.oauth2.jwt.accessToken.audiences", Max: 32},
		{Path: "spec.oauth2.jwt.accessToken.claimsToHeaders", Max: 32},
		{Path: "spec.oauth2.jwt.idToken.audiences", Max: 32},
		{Path: "spec.oauth2.jwt.idToken.claimsToHeaders", Max: 32},
	},
	{Group: Group, Kind: "ListenerPolicy"}: {
		{Path: "spec.default.clientCertificateValidation.caCertificateRefs", Max: 8},
		{Path: "spec.default.httpSettings.accessLog", Max: 16},
		{Path: "spec.default.httpSettings.earlyRequestHeaderModifier.add", Max: 16},
		{Path: "spec.default.httpSettings.earlyRequestHeaderModifier.remove", Max: 16},
		{Path: "spec.default.httpSettings.earlyRequestHeaderModifier.set", Max: 16},
		{Path: "spec.default.httpSettings.localReplies.mappers", Max: 16},
		{Path: "spec.default.httpSettings.localReplies.mappers[].headers.add", Max: 16},
		{Path: "spec.default.httpSettings.localReplies.mappers[].headers.remove", Max: 16},
		{Path: "spec.default.httpSettings.localReplies.mappers[].headers.set", Max: 16},
		{Path: "spec.perPort", Max: 64},
		{Path: "spec.perPort[].listener.httpSettings.accessLog", Max: 16},
		{Path: "spec.perPort[].listener.httpSettings.earlyRequestHeaderModifier.add", Max: 16},
		{Path: "spec.perPort[].listener.httpSettings.earlyRequestHeaderModifier.remove", Max: 16},
		{Path: "spec.perPort[].listener.httpSettings.earlyRequestHeaderModifier.set", Max: 16},
		{Path: "spec.perPort[].listener.httpSettings.localReplies.mappers", Max: 16},
		{Path: "spec.perPort[].listener.httpSettings.localReplies.mappers[].headers.add", Max: 16},
		{Path: "spec.perPort[].listener.httpSettings.localReplies.mappers[].headers.remove", Max: 16},
		{Path: "spec.perPort[].listener.httpSettings.localReplies.mappers[].headers.set", Max: 16},
		{Path: "spec.targetRefs", Max: 16},
	},
	{Group: Group, Kind: "TrafficPolicy"}: {
		{Path: "spec.acl.denyResponse.headers", Max: 16},
		{Path: "spec.acl.rules", Max: 256},
		{Path: "spec.acl.rules[].cidrs", Max: 256},
		{Path: "spec.apiKeyAuth.keySources", Max: 16},
		{Path: "spec.basicAuth.users", Max: 256},
		{Path: "spec.compression.requestDecompression.libraries", Max: 3},
		{Path: "spec.compression.responseCompression.libraries", Max: 3},
		{Path: "spec.cors.allowHeaders", Max: 64},
		{Path: "spec.cors.allowMethods", Max: 9},
		{Path: "spec.cors.allowOrigins", Max: 64},
		{Path: "spec.cors.exposeHeaders", Max: 64},
		{Path: "spec.csrf.additionalOrigins", Max: 16},
		{Path: "spec.headerModifiers.request.add", Max: 16},
		{Path: "spec.headerModifiers.request.remove", Max: 16},
		{Path: "spec.headerModifiers.request.set", Max: 16},
		{Path: "spec.headerModifiers.response.add", Max: 16},
		{Path: "spec.headerModifiers.response.remove", Max: 16},
		{Path: "spec.headerModifiers.response.set", Max: 16},
		{Path: "spec.internalRedirect.redirectResponseCodes", Max: 5},
		{Path: "spec.internalRedirect.responseHeadersToCopy", Max: 16},
		{Path: "spec.rbac.policy.matchExpressions", Max: 256},
		{Path: "spec.targetRefs", Max: 16},
		{Path: "spec.tracing.attributes", Max: 16},
		{Path: "spec.transformation.request.add", Max: 16},
		{Path: "spec.transformation.request.dynamicMetadata", Max: 16},
		{Path: "spec.transformation.request.remove", Max: 16},
		{Path: "spec.transformation.request.set", Max: 16},
		{Path: "spec.transformation.response.add", Max: 16},
		{Path: "spec.transformation.response.dynamicMetadata", Max: 16},
		{Path: "spec.transformation.response.remove", Max: 16},
		{Path: "spec.transformation.response.set", Max: 16},
	},
}

// Enums are the enums and union discriminators of kgateway's CRDs that
// gwpol's decoding of its kinds does not check: its readers take the
// member that is set, so without this a discriminator naming another
// member, or a mode outside the enum, would pass where the API server
// refuses the object (model.Options.Enums).
var Enums = map[model.GroupKind][]model.FieldEnum{
	{Group: Group, Kind: KindBackend}: {
		union("spec.type", "AWS", "aws", "Static", "static", "DynamicForwardProxy", "dynamicForwardProxy", "GCP", "gcp", "PriorityGroups", "priorityGroups"),
		union("spec.aws.auth.type", "Secret", "secretRef", "AssumeRole", "assumeRole"),
	},
	{Group: Group, Kind: KindGatewayExtension}: {
		union("spec.type", "ExtAuth", "extAuth", "ExtProc", "extProc", "RateLimit", "rateLimit", "JWT", "jwt", "OAuth2", "oauth2"),
	},
	{Group: Group, Kind: KindListenerPolicy}: {
		{Path: "spec.default.clientCertificateValidation.mode", Values: []string{"Require", "Optional"}},
	},
}

// union is a discriminator at path whose values name members: value,
// member, value, member…
func union(path string, pairs ...string) model.FieldEnum {
	e := model.FieldEnum{Path: path, Members: map[string]string{}}
	for i := 0; i+1 < len(pairs); i += 2 {
		e.Values = append(e.Values, pairs[i])
		e.Members[pairs[i]] = pairs[i+1]
	}
	return e
}
