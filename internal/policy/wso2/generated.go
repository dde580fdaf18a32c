package wso2

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The gateway operator turns an HTTPRoute into an API for the
// gateway-controller, and realizes some of the route's own features as
// policies in each operation's chain (kubernetes/gateway-operator,
// httproute_filters.go and httproute_compile.go), after the rule's
// ExtensionRef APIPolicies:
//
//   - RequestHeaderModifier set → set-headers v1 {request: {headers}};
//     add → another set-headers v1 with mode: append; remove →
//     remove-headers v1 {request: {headers: [{name}]}};
//   - RequestRedirect → redirect v0 {statusCode (302), scheme, hostname,
//     port, path: {mode: full|prefix, value}};
//   - a rule without backendRefs (and no redirect) → respond v1
//     {statusCode: 500};
//   - a rule with several backends (weighted), or one backend in a route
//     whose rules use several → dynamic-endpoint v1 {targetUpstream}.
//
// These references resolve like any other: the controller rejects the
// API when its definitions lack them, and the engine must have been built
// with them.

// OperatorControllerPrefix starts the controllerName of the WSO2 gateway
// operator's GatewayClass (gateway.api-platform.wso2.com/gateway-operator).
const OperatorControllerPrefix = Group + "/"

// LevelOperator is the level of the policies the operator generates from
// an HTTPRoute rule; they run after the rule's ExtensionRef APIPolicies.
const LevelOperator Level = "operator"

// SourceOperator is the Source of generated policies.
const SourceOperator = "operator"

// generated is one policy the operator adds, with the field path of what
// it was made from.
type generated struct {
	name, version, path string
	params              map[string]any
}

// Generated is the chain the operator adds to the operations of an
// HTTPRoute rule, checked against the definitions and engine build like
// written references; findings are placed in the HTTPRoute, at the filter
// or backendRefs they come from. multiBackend says whether the route's
// rules use more than one backend (then even a single-backend rule gets a
// dynamic-endpoint). Nil when the rule gets no policy.
func (ks *Kinds) Generated(rt *model.Route, rule *model.Rule, multiBackend bool) (ch *Chain, invalid, findings []diag.Diagnostic) {
	if rt == nil || rule == nil || rule.HTTP == nil {
		return nil, nil, nil
	}
	gs := ruleGenerated(rt.Meta.Namespace, rule, multiBackend)
	if len(gs) == 0 {
		return nil, nil, nil
	}
	obj := diag.ObjectRef{Group: model.GatewayGroup, Kind: rt.Kind, Namespace: rt.Meta.Namespace, Name: rt.Meta.Name}
	pos := func(string) diag.Position { return diag.Position{} }
	if rt.Src != nil {
		pos = rt.Src.FieldPos
	}
	ch = &Chain{Level: LevelOperator, Source: SourceOperator}
	for _, g := range gs {
		raw, err := json.Marshal(g.params)
		if err != nil {
			continue // maps of strings and numbers always marshal
		}
		r := &Reference{Name: g.name, Version: g.version, Params: raw, Path: g.path, Pos: pos(g.path)}
		inv, fs := ks.check(r, obj, func(string) diag.Position { return pos(g.path) })
		invalid = append(invalid, operatorSays(g, inv)...)
		findings = append(findings, operatorSays(g, fs)...)
		ch.Refs = append(ch.Refs, r)
	}
	return ch, invalid, findings
}

// operatorSays places findings about a generated policy at what it was
// generated from, saying so.
func operatorSays(g generated, ds []diag.Diagnostic) []diag.Diagnostic {
	out := make([]diag.Diagnostic, 0, len(ds))
	for _, d := range ds {
		d.Field = g.path
		d.Message = fmt.Sprintf("the gateway operator realizes %s as policy %s %s: %s", describe(g.path), g.name, g.version, d.Message)
		out = append(out, d)
	}
	return out
}

// describe names what a generated policy comes from, for messages.
func describe(path string) string {
	switch {
	case strings.HasSuffix(path, ".requestHeaderModifier.set"):
		return "the RequestHeaderModifier's set"
	case strings.HasSuffix(path, ".requestHeaderModifier.add"):
		return "the RequestHeaderModifier's add"
	case strings.HasSuffix(path, ".requestHeaderModifier.remove"):
		return "the RequestHeaderModifier's remove"
	case strings.HasSuffix(path, ".requestRedirect"):
		return "the RequestRedirect filter"
	case strings.HasSuffix(path, ".backendRefs"):
		return "the rule's backends"
	}
	return "a rule without backendRefs"
}

// ruleGenerated lists what the operator adds for one rule, in its order:
// filter policies in filter order, then respond or dynamic-endpoint.
func ruleGenerated(ns string, rule *model.Rule, multiBackend bool) []generated {
	var out []generated
	redirect := false
	for i, f := range rule.HTTP.Filters {
		at := fmt.Sprintf("%s.filters[%d]", rule.Path, i)
		switch f.Type {
		case gwv1.HTTPRouteFilterRequestHeaderModifier:
			if m := f.RequestHeaderModifier; m != nil {
				out = append(out, headerPolicies(m, at+".requestHeaderModifier")...)
			}
		case gwv1.HTTPRouteFilterRequestRedirect:
			if f.RequestRedirect != nil {
				out = append(out, generated{name: "redirect", version: "v0", path: at + ".requestRedirect", params: redirectParams(f.RequestRedirect)})
				redirect = true
			}
		}
	}
	backends := rule.HTTP.BackendRefs
	switch {
	case redirect:
	case len(backends) == 0:
		out = append(out, generated{name: "respond", version: "v1", path: rule.Path, params: map[string]any{"statusCode": 500}})
	case len(backends) > 1:
		out = append(out, generated{name: "dynamic-endpoint", version: "v1", path: rule.Path + ".backendRefs",
			params: map[string]any{"targetUpstream": fmt.Sprintf("rule-%d-weighted", rule.Index)}})
	case multiBackend:
		b := backends[0]
		out = append(out, generated{name: "dynamic-endpoint", version: "v1", path: rule.Path + ".backendRefs",
			params: map[string]any{"targetUpstream": upstreamName(ns, b.BackendRef)}})
	}
	return out
}

func headerPolicies(m *gwv1.HTTPHeaderFilter, at string) []generated {
	headers := func(hs []gwv1.HTTPHeader) []any {
		out := make([]any, 0, len(hs))
		for _, h := range hs {
			out = append(out, map[string]any{"name": string(h.Name), "value": h.Value})
		}
		return out
	}
	var out []generated
	if len(m.Set) > 0 {
		out = append(out, generated{name: "set-headers", version: "v1", path: at + ".set",
			params: map[string]any{"request": map[string]any{"headers": headers(m.Set)}}})
	}
	if len(m.Add) > 0 {
		out = append(out, generated{name: "set-headers", version: "v1", path: at + ".add",
			params: map[string]any{"mode": "append", "request": map[string]any{"headers": headers(m.Add)}}})
	}
	if len(m.Remove) > 0 {
		names := make([]any, 0, len(m.Remove))
		for _, h := range m.Remove {
			names = append(names, map[string]any{"name": h})
		}
		out = append(out, generated{name: "remove-headers", version: "v1", path: at + ".remove",
			params: map[string]any{"request": map[string]any{"headers": names}}})
	}
	return out
}

func redirectParams(f *gwv1.HTTPRequestRedirectFilter) map[string]any {
	status := 302
	if f.StatusCode != nil {
		status = *f.StatusCode
	}
	params := map[string]any{"statusCode": status}
	if f.Scheme != nil && *f.Scheme != "" {
		params["scheme"] = *f.Scheme
	}
	if f.Hostname != nil {
		params["hostname"] = string(*f.Hostname)
	}
	if f.Port != nil {
		params["port"] = int(*f.Port)
	}
	if p := f.Path; p != nil {
		switch {
		case p.Type == gwv1.FullPathHTTPPathModifier && p.ReplaceFullPath != nil:
			params["path"] = map[string]any{"mode": "full", "value": *p.ReplaceFullPath}
		case p.Type == gwv1.PrefixMatchHTTPPathModifier && p.ReplacePrefixMatch != nil:
			params["path"] = map[string]any{"mode": "prefix", "value": *p.ReplacePrefixMatch}
		}
	}
	return params
}

// upstreamName is the operator's upstream definition name for a Service
// backend: NAMESPACE-NAME-PORT with dots and slashes as dashes (ns is the
// route's, for a ref without a namespace).
func upstreamName(ns string, b gwv1.BackendRef) string {
	if b.Namespace != nil {
		ns = string(*b.Namespace)
	}
	port := 0
	if b.Port != nil {
		port = int(*b.Port)
	}
	return strings.NewReplacer(".", "-", "/", "-").Replace(fmt.Sprintf("%s-%s-%d", ns, b.Name, port))
}
