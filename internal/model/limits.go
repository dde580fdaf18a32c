package model

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
)

// Hand-written list limits: the maxItems the API server enforces through
// CRDs gwpol does not ship (kgateway's) or does not yet validate against
// (the Gateway API's, until the schema stage reads them from the
// sigs.k8s.io/gateway-api module). The numbers are the CRDs' own: kgateway's
// v1alpha1 CRDs, and the Gateway API's standard and experimental channels
// (v1.6.3), the largest where versions or channels differ, so no version
// the API server serves is refused. A list over its limit would be
// refused whole by the API server; gwpol reports it (GWP101) and leaves
// the object out, instead of reading 100,000 targetRefs as valid.

// itemLimit: the lists at path ("[]" stands for every item of a list)
// hold at most max items.
type itemLimit struct {
	path string
	max  int
}

const kgatewayGroup = "gateway.kgateway.dev"

var itemLimits = map[GroupKind][]itemLimit{
	{kgatewayGroup, "Backend"}: {
		{"spec.aws.ec2.filters", 16},
		{"spec.priorityGroups", 16},
		{"spec.priorityGroups[].backendRefs", 16},
	},
	{kgatewayGroup, "BackendConfigPolicy"}: {
		{"spec.loadBalancer.maglev.hashPolicies", 16},
		{"spec.loadBalancer.ringHash.hashPolicies", 16},
		{"spec.targetRefs", 16},
	},
	{kgatewayGroup, "GatewayExtension"}: {
		{"spec.jwt.providers", 32},
		{"spec.jwt.providers[].audiences", 32},
		{"spec.jwt.providers[].claimsToHeaders", 32},
		{"spec.oauth2.denyRedirect.headers", 16},
		{"spec.oauth2.jwt.accessToken.audiences", 32},
		{"spec.oauth2.jwt.accessToken.claimsToHeaders", 32},
		{"spec.oauth2.jwt.idToken.audiences", 32},
		{"spec.oauth2.jwt.idToken.claimsToHeaders", 32},
	},
	{kgatewayGroup, "ListenerPolicy"}: {
		{"spec.default.clientCertificateValidation.caCertificateRefs", 8},
		{"spec.default.httpSettings.accessLog", 16},
		{"spec.default.httpSettings.earlyRequestHeaderModifier.add", 16},
		{"spec.default.httpSettings.earlyRequestHeaderModifier.remove", 16},
		{"spec.default.httpSettings.earlyRequestHeaderModifier.set", 16},
		{"spec.default.httpSettings.localReplies.mappers", 16},
		{"spec.default.httpSettings.localReplies.mappers[].headers.add", 16},
		{"spec.default.httpSettings.localReplies.mappers[].headers.remove", 16},
		{"spec.default.httpSettings.localReplies.mappers[].headers.set", 16},
		{"spec.perPort", 64},
		{"spec.perPort[].listener.httpSettings.accessLog", 16},
		{"spec.perPort[].listener.httpSettings.earlyRequestHeaderModifier.add", 16},
		{"spec.perPort[].listener.httpSettings.earlyRequestHeaderModifier.remove", 16},
		{"spec.perPort[].listener.httpSettings.earlyRequestHeaderModifier.set", 16},
		{"spec.perPort[].listener.httpSettings.localReplies.mappers", 16},
		{"spec.perPort[].listener.httpSettings.localReplies.mappers[].headers.add", 16},
		{"spec.perPort[].listener.httpSettings.localReplies.mappers[].headers.remove", 16},
		{"spec.perPort[].listener.httpSettings.localReplies.mappers[].headers.set", 16},
		{"spec.targetRefs", 16},
	},
	{kgatewayGroup, "TrafficPolicy"}: {
		{"spec.acl.denyResponse.headers", 16},
		{"spec.acl.rules", 256},
		{"spec.acl.rules[].cidrs", 256},
		{"spec.apiKeyAuth.keySources", 16},
		{"spec.basicAuth.users", 256},
		{"spec.compression.requestDecompression.libraries", 3},
		{"spec.compression.responseCompression.libraries", 3},
		{"spec.cors.allowHeaders", 64},
		{"spec.cors.allowMethods", 9},
		{"spec.cors.allowOrigins", 64},
		{"spec.cors.exposeHeaders", 64},
		{"spec.csrf.additionalOrigins", 16},
		{"spec.headerModifiers.request.add", 16},
		{"spec.headerModifiers.request.remove", 16},
		{"spec.headerModifiers.request.set", 16},
		{"spec.headerModifiers.response.add", 16},
		{"spec.headerModifiers.response.remove", 16},
		{"spec.headerModifiers.response.set", 16},
		{"spec.internalRedirect.redirectResponseCodes", 5},
		{"spec.internalRedirect.responseHeadersToCopy", 16},
		{"spec.rbac.policy.matchExpressions", 256},
		{"spec.targetRefs", 16},
		{"spec.tracing.attributes", 16},
		{"spec.transformation.request.add", 16},
		{"spec.transformation.request.dynamicMetadata", 16},
		{"spec.transformation.request.remove", 16},
		{"spec.transformation.request.set", 16},
		{"spec.transformation.response.add", 16},
		{"spec.transformation.response.dynamicMetadata", 16},
		{"spec.transformation.response.remove", 16},
		{"spec.transformation.response.set", 16},
	},
	{GatewayGroup, "BackendTLSPolicy"}: {
		{"spec.targetRefs", 16},
		{"spec.validation.caCertificateRefs", 8},
		{"spec.validation.subjectAltNames", 5},
	},
	{GatewayGroup, "GRPCRoute"}: {
		{"spec.hostnames", 16},
		{"spec.parentRefs", 32},
		{"spec.rules", 16},
		{"spec.rules[].backendRefs", 16},
		{"spec.rules[].backendRefs[].filters", 16},
		{"spec.rules[].backendRefs[].filters[].requestHeaderModifier.add", 16},
		{"spec.rules[].backendRefs[].filters[].requestHeaderModifier.remove", 16},
		{"spec.rules[].backendRefs[].filters[].requestHeaderModifier.set", 16},
		{"spec.rules[].backendRefs[].filters[].responseHeaderModifier.add", 16},
		{"spec.rules[].backendRefs[].filters[].responseHeaderModifier.remove", 16},
		{"spec.rules[].backendRefs[].filters[].responseHeaderModifier.set", 16},
		{"spec.rules[].filters", 16},
		{"spec.rules[].filters[].requestHeaderModifier.add", 16},
		{"spec.rules[].filters[].requestHeaderModifier.remove", 16},
		{"spec.rules[].filters[].requestHeaderModifier.set", 16},
		{"spec.rules[].filters[].responseHeaderModifier.add", 16},
		{"spec.rules[].filters[].responseHeaderModifier.remove", 16},
		{"spec.rules[].filters[].responseHeaderModifier.set", 16},
		{"spec.rules[].matches", 64},
		{"spec.rules[].matches[].headers", 16},
	},
	{GatewayGroup, "Gateway"}: {
		{"spec.addresses", 16},
		{"spec.listeners", 64},
		{"spec.listeners[].allowedRoutes.kinds", 8},
		{"spec.listeners[].tls.certificateRefs", 64},
		{"spec.tls.frontend.default.validation.caCertificateRefs", 16},
		{"spec.tls.frontend.perPort", 64},
		{"spec.tls.frontend.perPort[].tls.validation.caCertificateRefs", 16},
	},
	{GatewayGroup, "HTTPRoute"}: {
		{"spec.hostnames", 16},
		{"spec.parentRefs", 32},
		{"spec.rules", 16},
		{"spec.rules[].backendRefs", 16},
		{"spec.rules[].backendRefs[].filters", 16},
		{"spec.rules[].backendRefs[].filters[].cors.allowHeaders", 64},
		{"spec.rules[].backendRefs[].filters[].cors.allowMethods", 9},
		{"spec.rules[].backendRefs[].filters[].cors.allowOrigins", 64},
		{"spec.rules[].backendRefs[].filters[].cors.exposeHeaders", 64},
		{"spec.rules[].backendRefs[].filters[].externalAuth.grpc.allowedHeaders", 64},
		{"spec.rules[].backendRefs[].filters[].externalAuth.http.allowedHeaders", 64},
		{"spec.rules[].backendRefs[].filters[].externalAuth.http.allowedResponseHeaders", 64},
		{"spec.rules[].backendRefs[].filters[].requestHeaderModifier.add", 16},
		{"spec.rules[].backendRefs[].filters[].requestHeaderModifier.remove", 16},
		{"spec.rules[].backendRefs[].filters[].requestHeaderModifier.set", 16},
		{"spec.rules[].backendRefs[].filters[].responseHeaderModifier.add", 16},
		{"spec.rules[].backendRefs[].filters[].responseHeaderModifier.remove", 16},
		{"spec.rules[].backendRefs[].filters[].responseHeaderModifier.set", 16},
		{"spec.rules[].filters", 16},
		{"spec.rules[].filters[].cors.allowHeaders", 64},
		{"spec.rules[].filters[].cors.allowMethods", 9},
		{"spec.rules[].filters[].cors.allowOrigins", 64},
		{"spec.rules[].filters[].cors.exposeHeaders", 64},
		{"spec.rules[].filters[].externalAuth.grpc.allowedHeaders", 64},
		{"spec.rules[].filters[].externalAuth.http.allowedHeaders", 64},
		{"spec.rules[].filters[].externalAuth.http.allowedResponseHeaders", 64},
		{"spec.rules[].filters[].requestHeaderModifier.add", 16},
		{"spec.rules[].filters[].requestHeaderModifier.remove", 16},
		{"spec.rules[].filters[].requestHeaderModifier.set", 16},
		{"spec.rules[].filters[].responseHeaderModifier.add", 16},
		{"spec.rules[].filters[].responseHeaderModifier.remove", 16},
		{"spec.rules[].filters[].responseHeaderModifier.set", 16},
		{"spec.rules[].matches", 64},
		{"spec.rules[].matches[].headers", 16},
		{"spec.rules[].matches[].queryParams", 16},
	},
	{GatewayGroup, "ListenerSet"}: {
		{"spec.listeners", 64},
		{"spec.listeners[].allowedRoutes.kinds", 8},
		{"spec.listeners[].tls.certificateRefs", 64},
	},
	{GatewayGroup, "ReferenceGrant"}: {
		{"spec.from", 16},
		{"spec.to", 16},
	},
	{GatewayGroup, "TCPRoute"}: {
		{"spec.parentRefs", 32},
		{"spec.rules", 16},
		{"spec.rules[].backendRefs", 16},
	},
	{GatewayGroup, "TLSRoute"}: {
		{"spec.hostnames", 1024},
		{"spec.parentRefs", 32},
		{"spec.rules", 16},
		{"spec.rules[].backendRefs", 16},
	},
	{GatewayGroup, "UDPRoute"}: {
		{"spec.parentRefs", 32},
		{"spec.rules", 16},
		{"spec.rules[].backendRefs", 16},
	},
}

// limitBounds are itemLimits made into trees, one walk of an object each.
var limitBounds = func() map[GroupKind]*manifest.ListBounds {
	out := make(map[GroupKind]*manifest.ListBounds, len(itemLimits))
	for gk, ls := range itemLimits {
		bs := make([]manifest.ListBound, len(ls))
		for i, l := range ls {
			bs[i] = manifest.ListBound{Path: l.path, Max: l.max}
		}
		out[gk] = manifest.NewListBounds(bs)
	}
	return out
}()

// limitFindings are the lists of o longer than its kind's CRD allows.
func limitFindings(o *manifest.Object, gk GroupKind) []diag.Diagnostic {
	var out []diag.Diagnostic
	o.ListsOver(limitBounds[gk], func(path string, n, max int, pos diag.Position) {
		out = append(out, diag.Diagnostic{Code: LintInvalidDocument.Code, Severity: diag.Error, Object: o.Ref(), Field: path, Pos: pos,
			Message: fmt.Sprintf("%s has %d items; the %s CRD allows at most %d, so the API server rejects this object and gwpol leaves it out", path, n, gk.Kind, max)})
	})
	return out
}
