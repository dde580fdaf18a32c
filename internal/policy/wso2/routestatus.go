package wso2

import (
	"fmt"
	"slices"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The route status the WSO2 gateway operator writes, at the family's pin
// (1c84e11c, kubernetes/gateway-operator/internal/controller/
// httproute_controller.go: Reconcile, handleRESTError,
// patchHTTPRouteParentCondition). It patches one condition at a time on
// the parent it reconciles, under its own controllerName, with
// meta.SetStatusCondition, so a condition it does not write stays as the
// route's status had it:
//
//   - it cannot build one API from the route (several Gateway parents,
//     BuildAPIConfigFromHTTPRoute's errors): ResolvedRefs False, reason
//     Invalid, or Retrying for what may resolve later, with its message;
//     Accepted is not written;
//   - the gateway-controller refuses the API it built (HTTP 400 for an
//     invalid policy: a NonRetryableError): Accepted False, reason
//     DeploymentFailed; ResolvedRefs is not written;
//   - the API is deployed: ResolvedRefs True (ResolvedRefs) and Accepted
//     True (Accepted), with its messages;
//   - the route's one Gateway is never registered (gatewayPending):
//     Accepted False, reason GatewayPending, before it builds anything;
//     ResolvedRefs is not written.
//
// The verdict is the family's Finish step's (operatorRoutes); status reads
// it through policy.RouteStatuser.

// OperatorControllerName is the operator's controllerName, which it writes
// on the route parents it reports (PlatformGatewayControllerName).
const OperatorControllerName = OperatorControllerPrefix + "gateway-operator"

var _ policy.RouteStatuser = (*APIPolicyKind)(nil)

// routeVerdict is what the operator made of one route it reconciles.
type routeVerdict struct {
	// refused: it built no API (buildRefusal); rejected: the
	// gateway-controller refused the API (rejectRoute's message); neither:
	// deployed.
	refused  *refusal
	rejected string
	// pending: the route's Gateway is never registered (gatewayPending)
	pending bool
	// parents are the indexes of the route's parents on Gateways of a
	// class the operator manages, those whose status it writes.
	parents []int
}

// record keeps the operator's verdict on rt for status.
func (ks *Kinds) record(rt *topology.Route, managed func(*topology.Gateway) bool, v routeVerdict) {
	for _, p := range rt.Parents {
		gw := p.Gateway
		if gw == nil {
			gw = p.Declined // a Gateway it never registers
		}
		if managed(gw) {
			v.parents = append(v.parents, p.Index)
		}
	}
	if len(v.parents) == 0 {
		return
	}
	if ks.routeStatus == nil {
		ks.routeStatus = map[*topology.Route]*routeVerdict{}
	}
	ks.routeStatus[rt] = &v
}

// RouteConditions implements policy.RouteStatuser: the conditions the
// operator writes on the parent p of rt, on a route it reconciles and a
// parent on one of its Gateways.
func (k *APIPolicyKind) RouteConditions(rt *topology.Route, p *topology.Parent) ([]policy.Condition, bool) {
	v, ok := k.ks.routeStatus[rt]
	if !ok || p == nil || !slices.Contains(v.parents, p.Index) {
		return nil, false
	}
	switch {
	case v.pending:
		return keepWritten(rt, p, "ResolvedRefs", policy.Condition{Type: "Accepted", Status: "False", Reason: gatewayPendingRouteReason, Message: gatewayPendingRouteMessage}), true
	case v.refused != nil:
		reason := "Invalid"
		if v.refused.retrying {
			reason = "Retrying"
		}
		return keepWritten(rt, p, "Accepted", policy.Condition{Type: "ResolvedRefs", Status: "False", Reason: reason, Message: v.refused.message}), true
	case v.rejected != "":
		return keepWritten(rt, p, "ResolvedRefs", policy.Condition{Type: "Accepted", Status: "False", Reason: "DeploymentFailed", Message: v.rejected}), true
	}
	return []policy.Condition{
		{Type: "Accepted", Status: "True", Reason: "Accepted", Message: "Route accepted by platform gateway operator"},
		{Type: "ResolvedRefs", Status: "True", Reason: "ResolvedRefs", Message: "Backend references resolved and API deployed to platform gateway"},
	}, true
}

// keepWritten is the condition c the operator writes, beside the route's
// condition of type other as its status in the input has it on p under
// the operator's controllerName (kubectl output carries it); c alone when
// the input has none.
func keepWritten(rt *topology.Route, p *topology.Parent, other string, c policy.Condition) []policy.Condition {
	out := []policy.Condition{c}
	if w, ok := writtenCondition(rt.Src, rt.Meta.Namespace, p, other); ok {
		out = append(out, w)
	}
	if out[0].Type > out[len(out)-1].Type {
		out[0], out[len(out)-1] = out[len(out)-1], out[0]
	}
	return out
}

// writtenCondition is the condition of type typ in the route object's
// status, on the parent entry the operator writes for p
// (patchHTTPRouteParentCondition: its controllerName, and the parentRef's
// name, namespace, sectionName, port, kind and group, the namespace
// defaulting to the route's).
func writtenCondition(o *manifest.Object, routeNS string, p *topology.Parent, typ string) (policy.Condition, bool) {
	if o == nil {
		return policy.Condition{}, false
	}
	scalar := func(path string) string { s, _ := o.Scalar(path); return s }
	for i := 0; o.Has(fmt.Sprintf("status.parents[%d]", i)); i++ {
		at := fmt.Sprintf("status.parents[%d]", i)
		if scalar(at+".controllerName") != OperatorControllerName || !sameParent(o, scalar, at+".parentRef", routeNS, p) {
			continue
		}
		for j := 0; o.Has(fmt.Sprintf("%s.conditions[%d]", at, j)); j++ {
			c := fmt.Sprintf("%s.conditions[%d]", at, j)
			if scalar(c+".type") == typ {
				return policy.Condition{Type: typ, Status: scalar(c + ".status"), Reason: scalar(c + ".reason"), Message: scalar(c + ".message")}, true
			}
		}
	}
	return policy.Condition{}, false
}

// sameParent is parentRefMatches: name, namespace (the route's when
// unset), sectionName and port (unset as empty and 0), kind and group of
// a written parentRef against p's (p.Ref's kind and group are defaulted,
// as the API server defaults the route's, so an absent one in the written
// status is the default).
func sameParent(o *manifest.Object, scalar func(string) string, at, routeNS string, p *topology.Parent) bool {
	ns := scalar(at + ".namespace")
	if ns == "" {
		ns = routeNS
	}
	want := p.Ref
	wantNS := routeNS
	if want.Namespace != nil && *want.Namespace != "" {
		wantNS = string(*want.Namespace)
	}
	section, port := "", "0"
	if want.SectionName != nil {
		section = string(*want.SectionName)
	}
	if want.Port != nil {
		port = fmt.Sprint(*want.Port)
	}
	gotPort := scalar(at + ".port")
	if gotPort == "" {
		gotPort = "0"
	}
	kind, group := scalar(at+".kind"), scalar(at+".group")
	if kind == "" && !o.Has(at+".kind") {
		kind = "Gateway" // the API server's default, which p.Ref has too
	}
	if group == "" && !o.Has(at+".group") {
		group = gwv1.GroupName
	}
	return scalar(at+".name") == string(want.Name) && ns == wantNS && scalar(at+".sectionName") == section && gotPort == port &&
		kind == string(*want.Kind) && group == string(*want.Group)
}
