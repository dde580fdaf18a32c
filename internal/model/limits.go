package model

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
)

// Hand-written list limits: the maxItems the API server enforces through
// CRDs gwpol does not yet validate against (the Gateway API's, until the
// schema stage reads them from the sigs.k8s.io/gateway-api module). The
// numbers are the CRDs' own: the Gateway API's standard and experimental
// channels (v1.6.3), the largest where versions or channels differ, so no
// version the API server serves is refused. A family declares the limits
// of its own kinds' CRDs that gwpol does not ship (Options.ListLimits). A
// list over its limit would be refused whole by the API server; gwpol
// reports it (GWP101) and leaves the object out, instead of reading
// 100,000 targetRefs as valid.

// itemLimit: the lists at path ("[]" stands for every item of a list)
// hold at most max items.
type itemLimit struct {
	path string
	max  int
}

var itemLimits = map[GroupKind][]itemLimit{
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

// limitFindings are the lists of o longer than its kind's CRD allows
// (extra: the limits families declare for their kinds).
func limitFindings(o *manifest.Object, gk GroupKind, extra map[GroupKind]*manifest.ListBounds) []diag.Diagnostic {
	bounds, ok := limitBounds[gk]
	if !ok {
		bounds = extra[gk]
	}
	var out []diag.Diagnostic
	o.ListsOver(bounds, func(path string, n, max int, pos diag.Position) {
		out = append(out, diag.Diagnostic{Code: LintInvalidDocument.Code, Severity: diag.Error, Object: o.Ref(), Field: path, Pos: pos,
			Message: fmt.Sprintf("%s has %d items; the %s CRD allows at most %d, so the API server rejects this object and gwpol leaves it out", path, n, gk.Kind, max)})
	})
	return out
}
