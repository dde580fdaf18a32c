package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/wso2"
	"github.com/gwpol/gwpol/internal/topology"
)

// wso2Generated computes, for each rule of an HTTPRoute the WSO2 gateway
// operator serves, the policies the operator generates from the rule's
// filters and backends (wso2.Kinds.Generated), with their findings. A
// route is the operator's when a parent Gateway's class names the
// operator's controller, or when an APIPolicy attaches to it (the input
// may hold no GatewayClass).
func wso2Generated(ws *wso2.Kinds, m *model.Model, g *topology.Graph, att *attach.Result) (map[*model.Rule]*wso2.Chain, []diag.Diagnostic) {
	classes := map[string]string{}
	for _, gc := range m.GatewayClasses {
		classes[gc.Name] = string(gc.Spec.ControllerName)
	}
	out := map[*model.Rule]*wso2.Chain{}
	var diags []diag.Diagnostic
	for _, rt := range g.Routes {
		if rt.Kind != "HTTPRoute" || !wso2Served(ws, classes, rt, att) {
			continue
		}
		diags = append(diags, crossDuplicates(ws, rt, att)...)
		multi := distinctBackends(rt) > 1
		var rejected []diag.Diagnostic
		for _, a := range att.Route[rt] {
			if ws.Owns(a.Policy) && !a.Policy.IsValid() {
				rejected = append(rejected, a.Policy.Invalid[0])
			}
		}
		for _, rule := range rt.Rules {
			ch, invalid, findings := ws.Generated(rt.Route, rule.Rule, multi)
			if ch != nil {
				out[rule.Rule] = ch
			}
			diags = append(append(diags, invalid...), findings...)
			rejected = append(rejected, invalid...)
			rejected = append(rejected, invalidExtensionRefs(ws, att, rule)...)
		}
		diags = append(diags, rejectRoute(ws, rt, att, rejected)...)
	}
	return out, diags
}

// crossDuplicates reports an API-level policy name that two APIPolicies
// targeting one route both list: the operator concatenates the API-level
// APIPolicies of a route (in name order) into one list, and the
// gateway-controller keys that list by name, so only the last entry of the
// name runs — once per listing (wso2.LintDuplicateAPIPolicy; duplicates within
// one object are reported when it is decoded).
func crossDuplicates(ws *wso2.Kinds, rt *topology.Route, att *attach.Result) []diag.Diagnostic {
	var pols []*policy.Policy
	for _, a := range att.Route[rt] {
		if ws.Owns(a.Policy) && a.Policy.IsValid() && !slices.Contains(pols, a.Policy) {
			pols = append(pols, a.Policy)
		}
	}
	slices.SortFunc(pols, func(a, b *policy.Policy) int { return strings.Compare(a.Obj.Name, b.Obj.Name) })
	type listing struct {
		p *policy.Policy
		r *wso2.Reference
	}
	byName := map[string][]listing{}
	var names []string
	for _, p := range pols {
		ch, ok := wso2.ChainOf(p)
		if !ok {
			continue
		}
		for _, r := range ch.Refs {
			if len(byName[r.Name]) == 0 {
				names = append(names, r.Name)
			}
			byName[r.Name] = append(byName[r.Name], listing{p, r})
		}
	}
	var out []diag.Diagnostic
	for _, name := range names {
		ls := byName[name]
		last := ls[len(ls)-1]
		for _, l := range ls[:len(ls)-1] {
			if l.p == last.p || slices.Contains(l.r.Problems, wso2.LintDuplicateAPIPolicy.Code) {
				continue // within one object: reported at decode
			}
			out = append(out, diag.Diagnostic{Code: wso2.LintDuplicateAPIPolicy.Code, Severity: diag.Warning, Object: l.p.Ref(), Field: l.r.Path + ".name", Pos: l.p.Obj.FieldPos(l.r.Path + ".name"),
				Message: fmt.Sprintf("API-level policy %s of %s %s/%s is listed again by APIPolicy %s/%s (%s), which also targets it; the operator joins a route's API-level APIPolicies in name order and the gateway-controller keys them by name, so the last entry's params run %d times and this entry's never do; fix: list %s in one APIPolicy per route",
					name, rt.Kind, rt.Meta.Namespace, rt.Meta.Name, last.p.Obj.Namespace, last.p.Obj.Name, last.r.Path, len(ls), name)})
		}
	}
	return out
}

// invalidExtensionRefs are the problems of the invalid APIPolicies a rule
// references by ExtensionRef.
func invalidExtensionRefs(ws *wso2.Kinds, att *attach.Result, rule *topology.Rule) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, a := range att.Rule[rule] {
		if a.Via == attach.ViaExtensionRef && ws.Owns(a.Policy) && !a.Policy.IsValid() {
			out = append(out, a.Policy.Invalid[0])
		}
	}
	return out
}

// rejectRoute fails every rule of a route when one rule's policies are
// invalid: the operator compiles the whole HTTPRoute into one API for the
// gateway-controller, which validates it as one and rejects all of it, so
// no rule is served — not only the one with the bad policy. The rules
// answer 500 in render, like any rule with an invalid policy.
func rejectRoute(ws *wso2.Kinds, rt *topology.Route, att *attach.Result, problems []diag.Diagnostic) []diag.Diagnostic {
	if len(problems) == 0 {
		return nil
	}
	first := problems[0]
	reason := fmt.Sprintf("the WSO2 gateway operator rejects %s %s/%s as a whole: %s %s: %s", rt.Kind, rt.Meta.Namespace, rt.Meta.Name, first.Code, first.Field, first.Message)
	for _, rule := range rt.Rules {
		att.Broken[rule] = append(att.Broken[rule], attach.Broken{Kind: ws.APIPolicy(), Code: wso2.LintRouteRejected.Code, Reason: reason})
	}
	return []diag.Diagnostic{{Code: wso2.LintRouteRejected.Code, Severity: diag.Error, Object: rt.Key().Ref(), Field: "spec.rules", Pos: rt.Src.FieldPos("spec.rules"),
		Message: fmt.Sprintf("the WSO2 gateway operator compiles %s %s/%s into one API, and the gateway-controller rejects all of it when one policy is invalid (%d problem(s), first %s at %s): none of its %d rule(s) is served; fix the policy problems reported on the route and its APIPolicies",
			rt.Kind, rt.Meta.Namespace, rt.Meta.Name, len(problems), first.Code, first.Pos, len(rt.Rules))}}
}

func wso2Served(ws *wso2.Kinds, classes map[string]string, rt *topology.Route, att *attach.Result) bool {
	for _, p := range rt.Parents {
		if p.Gateway != nil && strings.HasPrefix(classes[string(p.Gateway.Spec.GatewayClassName)], wso2.OperatorControllerPrefix) {
			return true
		}
	}
	for _, a := range att.Route[rt] {
		if ws.Owns(a.Policy) {
			return true
		}
	}
	for _, rule := range rt.Rules {
		for _, a := range att.Rule[rule] {
			if ws.Owns(a.Policy) {
				return true
			}
		}
	}
	return false
}

// distinctBackends counts the route's distinct backendRefs (namespace,
// name, port): with more than one, the operator routes every rule through
// a dynamic-endpoint policy.
func distinctBackends(rt *topology.Route) int {
	seen := map[string]bool{}
	for _, rule := range rt.Rules {
		for _, b := range rule.Backends {
			seen[fmt.Sprintf("%s/%s:%d", b.Namespace, b.Name, b.Port)] = true
		}
	}
	return len(seen)
}
