package haptic

import (
	"cmp"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// The status HAPTIC writes on a Gateway API BackendTLSPolicy
// (policy.Family.ForeignStatuses), as gateway/73-status-policy.yaml at the
// pinned a7ac8a15 builds it (GenerateBackendTLSPolicyStatusPatch, fed by
// gateway-backendtlspolicy-targets-100 and the four
// gateway-backendtlspolicy-route-ancestors-* snippets). HAPTIC writes it
// on every BackendTLSPolicy it watches, whichever backend it builds:
//
//   - the ancestors are the Gateways of the routes — HTTPRoute, GRPCRoute,
//     TLSRoute and TCPRoute alike — with a backendRef to a core Service
//     of the policy's namespace a targetRef of kind Service names (the
//     backendRef's namespace, else the route's; any port), one per
//     Gateway parentRef (group and kind of a Gateway), in the order of the
//     routes' kind/namespace/name and the parentRef's index, each Gateway
//     once; the ancestorRef carries a namespace only when the first
//     parentRef naming that Gateway wrote one. Whose Gateway it is does
//     not matter. With none, each targetRef is its own ancestor (group,
//     kind, name, the policy's namespace);
//   - the conditions are HAPTIC's verdict on the references
//     (judgeBackendTLSPolicy), but Accepted is False/Conflicted when
//     another policy has a targetRef with the same group, kind, name and
//     sectionName — in any namespace: the pinned cell has no namespace,
//     where dbc37ca8's List() loop compared the policy's namespace only —
//     and that policy is older (a dated one before an undated one, then
//     the smaller namespace/name). A whole Service's policy and a port's
//     do not conflict there; which one a backend takes is backendRank's
//     rule (30-backends.yaml), which can differ.
//
// gwpol takes HAPTIC to run when the input's GatewayClasses name its
// controller.
func backendTLSStatuses(_ *policy.Env, ps, _ []*policy.Policy, g *topology.Graph, _ func(*topology.Gateway) bool, _ func(*topology.Route) *policy.RouteVerdict) policy.Decisions {
	out := policy.Decisions{Ancestors: map[*policy.Policy][]policy.AncestorStatus{}}
	if !runsIn(g.Model) {
		return out
	}
	cells := map[btlsCell][]*policy.Policy{}
	for _, p := range ps {
		for _, t := range p.Targets {
			c := btlsCell{t.Group, t.Kind, t.Name, t.Section}
			if !slices.Contains(cells[c], p) {
				cells[c] = append(cells[c], p)
			}
		}
	}
	users := serviceGateways(g)
	for _, p := range ps {
		var conds []metav1.Condition
		t, by := conflictedBy(p, cells)
		for _, c := range p.Judgements[ControllerName].Conditions {
			if c.Type == "Accepted" && by != nil {
				c = policy.Condition{Type: "Accepted", Status: "False", Reason: "Conflicted", Message: btlsConflictsWith + t.Kind + "/" + t.Name + "/" + t.Section}
			}
			conds = append(conds, metav1.Condition{Type: c.Type, Status: metav1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message})
		}
		if conds == nil {
			continue // the kind's decode refused it
		}
		if by != nil && by.Obj.Namespace != p.Obj.Namespace {
			out.Diagnostics = append(out.Diagnostics, p.Diag(policy.LintPolicyInvalid.Code, diag.Warning, t.Path,
				"HAPTIC's status writes Accepted False/Conflicted: %s, of another namespace, is older and targets %s/%s too (HAPTIC's status compares targetRefs across namespaces); its backends are not affected — a backend takes the policies of its Service's namespace only",
				by.ID(), t.Kind, t.Name))
		}
		if by == nil {
			if t, port, older := takenOnBackend(p, ps); older != nil {
				out.Diagnostics = append(out.Diagnostics, p.Diag(policy.LintPolicyInvalid.Code, diag.Warning, t.Path,
					"HAPTIC's status writes Accepted, yet its backends to port %s of Service %s/%s take %s, which is older: HAPTIC's backends rank a port's policies and the whole Service's together by age, its status compares targetRefs as written (a whole Service's and a port's never conflict there)",
					port, p.Obj.Namespace, t.Name, older.ID()))
			}
		}
		var ancestors []policy.AncestorStatus
		seen := map[model.Key]bool{}
		for _, t := range p.Targets {
			if t.Kind != "Service" {
				continue
			}
			for _, u := range users[model.Key{Namespace: p.Obj.Namespace, Name: t.Name}] {
				if seen[u.gateway] {
					continue
				}
				seen[u.gateway] = true
				anc := u.gateway
				if !u.namespaced {
					anc.Namespace = ""
				}
				ancestors = append(ancestors, policy.AncestorStatus{Ancestor: anc, Conditions: slices.Clone(conds)})
			}
		}
		if len(ancestors) == 0 {
			for _, t := range p.Targets {
				anc := model.Key{Group: t.Group, Kind: t.Kind, Namespace: p.Obj.Namespace, Name: t.Name}
				ancestors = append(ancestors, policy.AncestorStatus{Ancestor: anc, Conditions: slices.Clone(conds)})
			}
		}
		out.Ancestors[p] = ancestors
	}
	return out
}

// runsIn reports whether the input runs HAPTIC: a GatewayClass names its
// controller.
func runsIn(m *model.Model) bool {
	return slices.ContainsFunc(m.GatewayClasses, func(c *model.GatewayClass) bool { return string(c.Spec.ControllerName) == ControllerName })
}

// btlsCell is what HAPTIC's status compares two BackendTLSPolicies'
// targetRefs by: group, kind, name and sectionName as written.
type btlsCell struct{ group, kind, name, section string }

// conflictedBy is why HAPTIC's status calls p Conflicted: p's first
// targetRef (in order) whose cell an older policy shares, and that policy
// (the first such in input order); nil when p is not conflicted.
func conflictedBy(p *policy.Policy, cells map[btlsCell][]*policy.Policy) (policy.TargetRef, *policy.Policy) {
	for _, t := range p.Targets {
		for _, o := range cells[btlsCell{t.Group, t.Kind, t.Name, t.Section}] {
			if o != p && olderBackendTLSPolicy(o, p) {
				return t, o
			}
		}
	}
	return policy.TargetRef{}, nil
}

// takenOnBackend finds a policy of p's namespace that HAPTIC's backends
// take before p on a port p names where its status accepts both (the
// backend's rank, backendRank: a port's policies and the whole Service's
// together, the oldest first — 30-backends.yaml@0c1a6446 winningPolicy):
// p names the Service whole and the other its port, or the other way
// round, and the other is older. It returns p's targetRef, the port's
// name and that policy; nil when there is none.
func takenOnBackend(p *policy.Policy, ps []*policy.Policy) (policy.TargetRef, string, *policy.Policy) {
	service := func(t policy.TargetRef) bool { return (t.Group == "" || t.Group == "core") && t.Kind == "Service" }
	for _, t := range p.Targets {
		if !service(t) {
			continue
		}
		for _, o := range ps {
			if o == p || o.Obj.Namespace != p.Obj.Namespace || !olderBackendTLSPolicy(o, p) {
				continue
			}
			for _, u := range o.Targets {
				if service(u) && u.Name == t.Name && (u.Section == "") != (t.Section == "") {
					return t, t.Section + u.Section, o
				}
			}
		}
	}
	return policy.TargetRef{}, "", nil
}

// olderBackendTLSPolicy: a goes before b in HAPTIC's status — a dated
// policy before an undated one, the earlier creationTimestamp, then the
// smaller namespace/name.
func olderBackendTLSPolicy(a, b *policy.Policy) bool {
	if az, bz := a.Created.IsZero(), b.Created.IsZero(); az != bz {
		return bz
	}
	if !a.Created.Equal(b.Created) {
		return a.Created.Before(b.Created)
	}
	return a.Obj.Namespace+"/"+a.Obj.Name < b.Obj.Namespace+"/"+b.Obj.Name
}

// gatewayUse is one route parentRef naming a Gateway, as a BackendTLSPolicy
// ancestor candidate: the Gateway's key (its namespace defaulted to the
// route's), whether the parentRef wrote the namespace, and HAPTIC's rank
// (route kind/namespace/name, then the parentRef's index).
type gatewayUse struct {
	gateway    model.Key
	namespaced bool
	rank       string
}

// serviceGateways indexes, per core Service (namespace/name) a route's
// backendRef names, the Gateway parentRefs of those routes, in HAPTIC's
// rank. One pass over the routes.
func serviceGateways(g *topology.Graph) map[model.Key][]gatewayUse {
	out := map[model.Key][]gatewayUse{}
	for _, rt := range g.Routes {
		switch rt.Kind {
		case "HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute":
		default:
			continue
		}
		ns := rt.Meta.Namespace
		var services []model.Key
		for _, rule := range rt.Route.Rules {
			for _, br := range rule.BackendRefs {
				group, kind, bns := "", "Service", ns
				if br.Group != nil {
					group = string(*br.Group)
				}
				if br.Kind != nil && *br.Kind != "" {
					kind = string(*br.Kind)
				}
				if br.Namespace != nil && *br.Namespace != "" {
					bns = string(*br.Namespace)
				}
				if (group != "" && group != "core") || kind != "Service" {
					continue
				}
				if k := (model.Key{Namespace: bns, Name: string(br.Name)}); !slices.Contains(services, k) {
					services = append(services, k)
				}
			}
		}
		if len(services) == 0 {
			continue
		}
		for i, pr := range rt.Route.ParentRefs {
			group, kind := model.GatewayGroup, "Gateway"
			if pr.Group != nil && *pr.Group != "" {
				group = string(*pr.Group)
			}
			if pr.Kind != nil && *pr.Kind != "" {
				kind = string(*pr.Kind)
			}
			if group != model.GatewayGroup || kind != "Gateway" {
				continue
			}
			u := gatewayUse{gateway: model.Key{Group: model.GatewayGroup, Kind: "Gateway", Namespace: ns, Name: string(pr.Name)},
				rank: fmt.Sprintf("%s/%s/%s\x00%010d", rt.Kind, ns, rt.Meta.Name, i)}
			if pr.Namespace != nil && *pr.Namespace != "" {
				u.gateway.Namespace, u.namespaced = string(*pr.Namespace), true
			}
			for _, s := range services {
				out[s] = append(out[s], u)
			}
		}
	}
	for _, us := range out {
		slices.SortStableFunc(us, func(a, b gatewayUse) int { return cmp.Compare(a.rank, b.rank) })
	}
	return out
}
