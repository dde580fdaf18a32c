package cli

import (
	"fmt"
	"strings"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
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
		multi := distinctBackends(rt) > 1
		for _, rule := range rt.Rules {
			ch, invalid, findings := ws.Generated(rt.Route, rule.Rule, multi)
			if ch != nil {
				out[rule.Rule] = ch
			}
			diags = append(append(diags, invalid...), findings...)
		}
	}
	return out, diags
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
