package wso2

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The API the WSO2 gateway operator builds from an HTTPRoute, at the
// family's pin (1c84e11c: httproute_mapper.go BuildAPIConfigFromHTTPRoute,
// httproute_controller.go payloadMetadataForHTTPRoute), and what the
// gateway-controller then serves of it (gateway/gateway-controller/pkg/
// xds/translator.go: ConstructFullPath, createRouteFromRDC, pathToRegex):
//
//   - every match of every rule is an operation: the match's method, or
//     all seven methods the API models when it has none; its path value as
//     written (trimmed, "/" when empty, with a leading "/"), whatever the
//     match type; its header and query matches are not read;
//   - the API's displayName, version and context come from the route's
//     annotations (defaults: the route's name, v1.0, "/"), and every
//     annotation of the route goes into the API's metadata;
//   - the gateway-controller serves an operation path P under the
//     context C as C+P: a path ending in "/*" serves the paths under it,
//     one with {param} segments serves any one segment there, "/" serves
//     the context alone, any other path exactly P and P/; it strips C
//     before the backend;
//   - it validates the API as it validates a RestApi (APIValidator:
//     display name, version, context, operations), answering 400 to a
//     deployment that fails, so the operator writes Accepted False
//     (DeploymentFailed) and nothing of the route is served.

// Annotations of an HTTPRoute the operator reads (gateway_api_annotations.go).
const (
	AnnotationDisplayName = Group + "/display-name"
	AnnotationAPIVersion  = Group + "/api-version"
	AnnotationContext     = Group + "/context"
)

// allMethods are the methods the operator gives a match without one
// (allRESTAPIOperationMethods).
var allMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

// operation is one operation the operator builds, with the match it
// comes from (field: the match's path, or the rule's when the rule has
// no matches and the API server's default match stands).
type operation struct {
	methods []string
	path    string
	rule    *topology.Rule
	match   *gwv1.HTTPRouteMatch
	field   string
}

// operations are the operations the operator builds from rt's rules, in
// order.
func operations(rt *topology.Route) []operation {
	var out []operation
	for _, rule := range rt.Rules {
		if rule.HTTP == nil {
			continue
		}
		if rule.HTTP.Matches == nil {
			// The API server defaults an absent list to one PathPrefix "/"
			// match, which the operator reads.
			out = append(out, operation{methods: allMethods, path: "/", rule: rule, field: rule.Path})
			continue
		}
		for i := range rule.HTTP.Matches {
			m := &rule.HTTP.Matches[i]
			op := operation{methods: allMethods, path: "/", rule: rule, match: m, field: fmt.Sprintf("%s.matches[%d]", rule.Path, i)}
			if m.Method != nil {
				op.methods = []string{string(*m.Method)}
			}
			if m.Path != nil && m.Path.Value != nil {
				if p := strings.TrimSpace(*m.Path.Value); p != "" {
					op.path = p
					if !strings.HasPrefix(p, "/") {
						op.path = "/" + p
					}
				}
			}
			out = append(out, op)
		}
	}
	return out
}

// apiContext is the API's context: the annotation (trimmed, with a
// leading "/"), "/" without one.
func apiContext(rt *topology.Route) string {
	c := strings.TrimSpace(rt.Meta.Annotations[AnnotationContext])
	if c == "" {
		return "/"
	}
	if !strings.HasPrefix(c, "/") {
		c = "/" + c
	}
	return c
}

// apiProblems are the gateway-controller's refusals of the API the
// operator builds from rt (APIValidator's checks of a RestApi, and the
// artifact-id annotation the metadata carries), each at the route field it
// comes from: it answers the deployment 400.
func apiProblems(rt *topology.Route, ops []operation) []diag.Diagnostic {
	var out []diag.Diagnostic
	ref := rt.Key().Ref()
	bad := func(field, what, format string, args ...any) {
		out = append(out, diag.Diagnostic{Code: LintRouteRejected.Code, Severity: diag.Error, Object: ref, Field: field, Pos: rt.Src.FieldPos(field),
			Message: fmt.Sprintf("the gateway-controller refuses the API the WSO2 operator builds from %s %s/%s (%s): %s", rt.Kind, rt.Meta.Namespace, rt.Meta.Name, what, fmt.Sprintf(format, args...))})
	}
	if id := rt.Meta.Annotations[AnnotationArtifactID]; id != "" && !isUUID(id) {
		bad("metadata.annotations", "its "+AnnotationArtifactID+" annotation, copied into the API's metadata", "invalid UUID format %q", id)
	}
	name, nameFrom := rt.Meta.Name, "the route's name"
	if v := rt.Meta.Annotations[AnnotationDisplayName]; v != "" {
		name, nameFrom = v, "its "+AnnotationDisplayName+" annotation"
	}
	version, versionFrom := "v1.0", ""
	if v := rt.Meta.Annotations[AnnotationAPIVersion]; v != "" {
		version, versionFrom = v, "its "+AnnotationAPIVersion+" annotation"
	}
	field := func(controllerField string) (string, string) {
		switch controllerField {
		case "spec.displayName":
			if nameFrom == "the route's name" {
				return "metadata.name", "displayName, " + nameFrom
			}
			return "metadata.annotations", "displayName, " + nameFrom
		case "spec.version":
			return "metadata.annotations", "version, " + versionFrom
		case "spec.context":
			return "metadata.annotations", "context, its " + AnnotationContext + " annotation"
		}
		return "", ""
	}
	outer := func(f, format string, args ...any) {
		at, what := field(f)
		bad(at, what, format, args...)
	}
	checkDisplayName(name, "API display name", outer)
	checkSemanticVersion(version, "API version", outer)
	checkContext(apiContext(rt), outer)
	var flat []Operation
	var from []operation
	for _, op := range ops {
		for _, m := range op.methods {
			flat = append(flat, Operation{Method: m, Path: op.path})
			from = append(from, op)
		}
	}
	seen := map[string]bool{}
	checkOperations(flat, func(f, format string, args ...any) {
		var i int
		var attr string
		if _, err := fmt.Sscanf(f, "spec.operations[%d].%s", &i, &attr); err != nil || i >= len(from) {
			return
		}
		op := from[i]
		at := op.field
		if op.match != nil {
			switch attr {
			case "method":
				at += ".method"
			case "path":
				at += ".path.value"
			}
		}
		msg := fmt.Sprintf(format, args...)
		if seen[at+msg] {
			return // one match, several methods: said once
		}
		seen[at+msg] = true
		bad(at, fmt.Sprintf("operation %s %s", flat[i].Method, flat[i].Path), "%s", msg)
	})
	return out
}

// servedDiffers says, for each match whose operation serves other requests
// than the match selects, what the gateway-controller serves instead
// (LintOperationDiffers); notes are explain's lines per rule.
func servedDiffers(rt *topology.Route, ops []operation) (diags []diag.Diagnostic, notes map[*topology.Rule][]string) {
	ctx := apiContext(rt)
	full := func(p string) string {
		if ctx == "/" {
			return p
		}
		return ctx + p
	}
	notes = map[*topology.Rule][]string{}
	for _, op := range ops {
		served := servedPaths(full(op.path), op.path)
		methods := strings.Join(op.methods, ",")
		if len(op.methods) == len(allMethods) {
			methods = "every method the API models (" + methods + ")"
		}
		notes[op.rule] = append(notes[op.rule], fmt.Sprintf("WSO2 operator operation from %s: %s %s, served as %s", op.field, methods, op.path, served))
		var why []string
		typ := gwv1.PathMatchPathPrefix
		if op.match != nil && op.match.Path != nil && op.match.Path.Type != nil {
			typ = *op.match.Path.Type
		}
		switch {
		case typ == gwv1.PathMatchPathPrefix && !strings.HasSuffix(op.path, "/*"):
			why = append(why, "a PathPrefix match becomes that one path, not the paths under it")
		case typ == gwv1.PathMatchRegularExpression:
			why = append(why, "a RegularExpression match's value is taken as a path, not as a regular expression")
		}
		if op.match != nil && len(op.match.Headers) > 0 {
			why = append(why, fmt.Sprintf("its %d header match(es) are dropped", len(op.match.Headers)))
		}
		if op.match != nil && len(op.match.QueryParams) > 0 {
			why = append(why, fmt.Sprintf("its %d query parameter match(es) are dropped", len(op.match.QueryParams)))
		}
		if ctx != "/" {
			why = append(why, fmt.Sprintf("the API's context %s (annotation %s) prefixes the path and is stripped before the backend", ctx, AnnotationContext))
		}
		if len(why) == 0 {
			continue
		}
		at := op.field
		if op.match != nil && op.match.Path != nil {
			at += ".path"
		}
		diags = append(diags, diag.Diagnostic{Code: LintOperationDiffers.Code, Severity: diag.Warning, Object: rt.Key().Ref(), Field: at, Pos: rt.Src.FieldPos(at),
			Message: fmt.Sprintf("the WSO2 operator builds the operation %s %s from this match, and the gateway-controller serves it as %s: %s; gwpol renders the Gateway API match as written, so its render and this route's traffic differ here",
				methods, op.path, served, strings.Join(why, "; "))})
	}
	return diags, notes
}

// servedPaths says which request paths the gateway-controller serves for
// the full path (context and operation path) of an operation path p
// (createRouteFromRDC).
func servedPaths(full, p string) string {
	switch {
	case strings.HasSuffix(p, "/*"):
		return fmt.Sprintf("%s and the paths under it", strings.TrimSuffix(full, "/*"))
	case strings.Contains(p, "{"):
		return fmt.Sprintf("%s with any one path segment at each {…}", full)
	case p == "/":
		root := strings.TrimSuffix(full, "/")
		if root == "" {
			return "/ alone"
		}
		return fmt.Sprintf("%s and %s/ alone", root, root)
	}
	return fmt.Sprintf("exactly %s and %s/", full, full)
}

// operationNotes are explain's lines on rule, when the operator serves
// its route.
func (ks *Kinds) operationNotes(rule *topology.Rule) []string {
	return slices.Clone(ks.opNotes[rule])
}
