package model

import (
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
)

// carried are the fields of the Gateway API kinds whose values the model
// carries into every view as they are: ports and weights, the names of
// headers and query parameters, hostnames, paths (a gRPC method match's
// service and method among them), durations, retry counts and codes,
// listener names. A value of one of them that the
// kind's CRD refuses would reach Envoy as config it refuses (an empty
// header name, a negative port, a listener named ""), so an object the
// schema stage refuses at one is left out, as a cluster never holds it.
// What a value may be is the CRD's alone (the schema stage checks it);
// this says only which refusals leave the object out. A refusal at
// another field leaves the object in: the controllers' translators are
// given such objects in their own tests and say what they make of them
// (docs/crds.md). A list index is written [*].
var carried = map[GroupKind][]string{
	{GatewayGroup, "HTTPRoute"}: slices.Concat(routeCarried, []string{
		"spec.rules[*].matches[*].path", // its CEL rules are the path's, not its value's
		"spec.rules[*].matches[*].path.value",
		"spec.rules[*].matches[*].queryParams[*].name",
		"spec.rules[*].timeouts.request",
		"spec.rules[*].timeouts.backendRequest",
		"spec.rules[*].retry.attempts",
		"spec.rules[*].retry.codes[*]",
		"spec.rules[*].retry.backoff",
		"spec.rules[*].sessionPersistence.absoluteTimeout",
		"spec.rules[*].filters[*].requestRedirect.port",
		"spec.rules[*].filters[*].requestRedirect.hostname",
		"spec.rules[*].filters[*].urlRewrite.hostname",
	}),
	{GatewayGroup, "GRPCRoute"}: slices.Concat(routeCarried, []string{
		// a method match is written as the route's path (/service/method,
		// a /service prefix, a /.+/method regex): its CEL rules, on the
		// match, say which characters service and method may hold
		"spec.rules[*].matches[*].method",
		"spec.rules[*].matches[*].method.service",
		"spec.rules[*].matches[*].method.method",
	}),
	{GatewayGroup, "Gateway"}:     listenerCarried,
	{GatewayGroup, "ListenerSet"}: listenerCarried,
	XListenerSetKind:              listenerCarried,
}

// routeCarried are the fields HTTPRoute and GRPCRoute share.
var routeCarried = []string{
	"spec.hostnames[*]",
	"spec.rules[*].backendRefs[*].weight",
	"spec.rules[*].backendRefs[*].port",
	"spec.rules[*].matches[*].headers[*].name",
	"spec.rules[*].filters[*].requestHeaderModifier.set[*].name",
	"spec.rules[*].filters[*].requestHeaderModifier.add[*].name",
	"spec.rules[*].filters[*].responseHeaderModifier.set[*].name",
	"spec.rules[*].filters[*].responseHeaderModifier.add[*].name",
	"spec.rules[*].backendRefs[*].filters[*].requestHeaderModifier.set[*].name",
	"spec.rules[*].backendRefs[*].filters[*].requestHeaderModifier.add[*].name",
	"spec.rules[*].backendRefs[*].filters[*].responseHeaderModifier.set[*].name",
	"spec.rules[*].backendRefs[*].filters[*].responseHeaderModifier.add[*].name",
}

// listenerCarried are the fields Gateway and ListenerSet listeners share.
var listenerCarried = []string{
	"spec.listeners[*].name",
	"spec.listeners[*].port",
	"spec.listeners[*].hostname",
}

// carriesRefused reports whether one of the refusals is at a field of gk
// the model carries (carried).
func carriesRefused(gk GroupKind, refusals []diag.Diagnostic) bool {
	fields := carried[gk]
	for _, d := range refusals {
		if slices.Contains(fields, anyIndex(d.Field)) {
			return true
		}
	}
	return false
}

// anyIndex writes every list index of a field path as [*]:
// spec.rules[2].matches[0].path becomes spec.rules[*].matches[*].path.
func anyIndex(path string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(path, '[')
		j := strings.IndexByte(path[max(i, 0):], ']')
		if i < 0 || j < 0 {
			b.WriteString(path)
			return b.String()
		}
		b.WriteString(path[:i])
		b.WriteString("[*]")
		path = path[i+j+1:]
	}
}
