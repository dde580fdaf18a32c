package envoygateway

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/backendtlspolicy"
	"github.com/gwpol/gwpol/internal/topology"
)

// The status Envoy Gateway writes on a Gateway API BackendTLSPolicy
// (policy.Family.ForeignStatuses). It builds a destination for each
// backendRef of a route, once per parentRef naming one of its Gateways
// (route.go: processHTTPRouteParentRefs → processDestination), and for
// each backendRef of a policy's extension service (ext_service.go); for
// each it picks the policy governing the backend's port
// (backendtlspolicy.go: getBackendTLSPolicy — the first, in processing
// order, that names the port by sectionName, else the first that names
// the whole backend) and reports that policy, and that one only, against
// the parentRef (its sectionName kept) or the calling policy
// (processBackendTLSPolicy). When every destination is built,
// ProcessBackendTLSPolicyStatus walks the policies in the same order: a
// policy with a targetRef (namespace, group, kind, name, sectionName)
// an earlier one already has is Conflicted on that earlier policy's
// ancestors. A policy on the whole backend that a port's own policy
// takes from it is reported nowhere: no ancestor, not Conflicted.

// backendTLSStatuses is Envoy Gateway's ForeignDecider for the
// BackendTLSPolicy. Its rejections, which merge and every view read, are
// made only on backends none of another controller's Gateways uses (for
// those, merge's own rule stands): Conflicted for a policy on the target
// key an earlier one has, Overridden for every whole-backend policy on
// each port a policy names by sectionName.
func backendTLSStatuses(env *policy.Env, ps, callers []*policy.Policy, g *topology.Graph, own func(*topology.Gateway) bool, verdict func(*topology.Route) *policy.RouteVerdict) policy.Decisions {
	ordered := slices.Clone(ps)
	slices.SortStableFunc(ordered, processingOrder)
	s := &btlsRun{ordered: ordered, entries: map[*policy.Policy][]*btlsEntry{}, strange: map[model.Key]bool{},
		sections: map[model.Key][]string{}, rejected: map[*policy.Policy]map[policy.TargetKey]*policy.Rejection{}}
	for _, p := range ordered {
		for _, t := range p.Targets {
			if t.Section != "" {
				k := targetKey(p, t)
				if !slices.Contains(s.sections[k], t.Section) {
					s.sections[k] = append(s.sections[k], t.Section)
				}
			}
		}
	}
	s.proxyUses(env, g, own)
	s.routeUses(g, own, verdict)
	s.callerUses(g.Model, callers)
	s.conflicts()
	s.overridden()
	out := policy.Decisions{Ancestors: map[*policy.Policy][]policy.AncestorStatus{}, Rejected: s.rejected}
	for _, p := range ps {
		for _, e := range s.entries[p] {
			out.Ancestors[p] = append(out.Ancestors[p], policy.AncestorStatus{Ancestor: e.key, Section: e.section, Port: e.port, Unqualified: e.unqualified, Gateway: e.gateway, Conditions: e.conds})
		}
	}
	return out
}

// btlsRun is one run of backendTLSStatuses.
type btlsRun struct {
	ordered []*policy.Policy
	entries map[*policy.Policy][]*btlsEntry
	// strange: a Gateway of another controller uses the backend.
	strange map[model.Key]bool
	// sections are the sectionNames policies give each backend.
	sections map[model.Key][]string
	rejected map[*policy.Policy]map[policy.TargetKey]*policy.Rejection
}

// btlsEntry is one ancestor of a policy: a route's parentRef (a Gateway,
// its sectionName and port), a calling policy or the EnvoyProxy whose
// telemetry sends to the backend. Entries are told apart without the
// port (status.ancestorRefsEqual compares group, kind, namespace, name
// and sectionName): the first parentRef reported keeps its port, a later
// one differing only there adds nothing. A parentRef is reported as
// written, so one written without a namespace (unqualified; key holds
// the route's namespace it resolves to) is another ancestor than one
// naming that namespace.
type btlsEntry struct {
	key         model.Key
	section     string
	port        int32
	unqualified bool
	gateway     *topology.Gateway
	conds       []metav1.Condition
}

// same: e and o are one ancestor reference (ancestorRefsEqual).
func (e *btlsEntry) same(o *btlsEntry) bool {
	return e.key == o.key && e.section == o.section && e.unqualified == o.unqualified
}

// targetKey is the backend a BackendTLSPolicy's targetRef names, in the
// policy's namespace.
func targetKey(p *policy.Policy, t policy.TargetRef) model.Key {
	return model.Key{Group: t.Group, Kind: t.Kind, Namespace: p.Obj.Namespace, Name: t.Name}
}

// routeUses reports the policy governing each backendRef of each route
// parentRef naming one of the controller's Gateways (attached or not:
// Envoy Gateway builds the rules for every parentRef naming its
// Gateways), skipping a backendRef it builds no destination for (one
// that does not resolve, that its route verdict refuses for anything but
// its TLS — validateBackendRef fails before the TLS is looked at —, or of
// weight 0) or whose Backend's own TLS fails before the policy is looked
// for (reaches), in its processing order of route kinds.
func (s *btlsRun) routeUses(g *topology.Graph, own func(*topology.Gateway) bool, verdict func(*topology.Route) *policy.RouteVerdict) {
	for _, rt := range g.Routes {
		for _, p := range rt.Parents {
			if p.Gateway == nil || own(p.Gateway) {
				continue
			}
			for _, rule := range rt.Rules {
				for _, b := range rule.Backends {
					s.strange[routeBackendKey(b)] = true
				}
			}
		}
	}
	for _, kind := range []string{"HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"} {
		for _, rt := range g.Routes {
			if rt.Kind != kind {
				continue
			}
			var refused []policy.RefusedBackend
			if v := verdict(rt); v != nil {
				refused = v.Refused
			}
			for _, p := range rt.Parents {
				if p.Gateway == nil || !own(p.Gateway) || p.Unwatched {
					continue
				}
				anc := model.Key{Group: deref(p.Ref.Group), Kind: deref(p.Ref.Kind), Namespace: deref(p.Ref.Namespace), Name: string(p.Ref.Name)}
				// the namespace as written: the parentRef's is defaulted
				unqualified := p.Index < len(rt.ParentRefs) && deref(rt.ParentRefs[p.Index].Namespace) == ""
				section := deref(p.Ref.SectionName)
				port := int32(0)
				if p.Ref.Port != nil {
					port = int32(*p.Ref.Port)
				}
				for _, rule := range rt.Rules {
					for i, b := range rule.Backends {
						if !b.Resolved || b.BackendRef == nil || b.Weight == 0 ||
							slices.ContainsFunc(refused, func(r policy.RefusedBackend) bool {
								// refused for its TLS: the policy was looked at
								return r.Rule == rule.Index && r.Ref == i && r.Reason != "InvalidBackendTLS"
							}) {
							continue
						}
						k := routeBackendKey(b)
						if gp := s.governing(k, backendtlspolicy.PortSection(g.Model, k, b.Port)); gp != nil && reaches(gp, k) {
							s.report(gp, anc, section, port, unqualified, p.Gateway)
						}
					}
				}
			}
		}
	}
}

// routeBackendKey is the backend object a route's backendRef names.
func routeBackendKey(b *topology.Backend) model.Key {
	return model.Key{Group: b.Group, Kind: b.Kind, Namespace: b.Namespace, Name: b.Name}
}

// callerUses reports the policy governing each backendRef of the
// extension services of the controller's SecurityPolicies and
// EnvoyExtensionPolicies that found a target (ext_service.go: the owner
// policy is the parent), to backends the input holds (the service of a
// missing one is refused before its TLS is looked at) and whose own TLS
// does not fail first (reaches).
func (s *btlsRun) callerUses(m *model.Model, callers []*policy.Policy) {
	for _, kind := range []*Kind{securityPolicy, envoyExtensionPolicy} {
		for _, c := range callers {
			if k, ok := c.Kind.(*Kind); !ok || k != kind {
				continue
			}
			anc := model.KeyOf(c.Obj)
			walkBackendRefs(reflect.ValueOf(decoded(c).spec), func(r backendRef) {
				if r.unweighted {
					return
				}
				k := r.key(c.Obj.Namespace)
				if _, ok := m.Object(k); !ok {
					return // the service is refused before its TLS is looked at
				}
				port := int32(0)
				if r.Port != nil {
					port = *r.Port
				}
				if gp := s.governing(k, backendtlspolicy.PortSection(m, k, port)); gp != nil && reaches(gp, k) {
					s.report(gp, anc, "", 0, false, nil)
				}
			})
		}
	}
}

// reaches: a destination to backend k looks for the policy governing it
// — the Backend's own TLS settings did not fail first (the judgement's
// Unreached, applyBackendTLSSetting's order). The same for every policy
// on k, so the governing one's judgement says it.
func reaches(p *policy.Policy, k model.Key) bool {
	return p.Judgements[ControllerName].Reaches(k)
}

// governing is getBackendTLSPolicy: the first policy naming the
// backend's port by sectionName, else the first naming the whole backend
// (for a port without a section, only those).
func (s *btlsRun) governing(k model.Key, section string) *policy.Policy {
	if section != "" {
		for _, p := range s.ordered {
			if slices.ContainsFunc(p.Targets, func(t policy.TargetRef) bool { return targetKey(p, t) == k && t.Section == section }) {
				return p
			}
		}
	}
	for _, p := range s.ordered {
		if slices.ContainsFunc(p.Targets, func(t policy.TargetRef) bool { return targetKey(p, t) == k && t.Section == "" }) {
			return p
		}
	}
	return nil
}

// report adds the ancestor to p's entries (once), with the controller's
// verdict on p's references (its Judgement).
func (s *btlsRun) report(p *policy.Policy, anc model.Key, section string, port int32, unqualified bool, gw *topology.Gateway) {
	e := &btlsEntry{key: anc, section: section, port: port, unqualified: unqualified, gateway: gw}
	if slices.ContainsFunc(s.entries[p], e.same) {
		return
	}
	var conds []metav1.Condition
	for _, c := range p.Judgements[ControllerName].Conditions {
		conds = append(conds, metav1.Condition{Type: c.Type, Status: metav1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message})
	}
	if conds == nil {
		return // the kind's decode refused it: no destination takes it
	}
	e.conds = conds
	s.add(p, e)
}

// add appends e to p's entries, holding at most maxAncestors+1 of them
// as Envoy Gateway does while it writes the status
// (SetConditionForPolicyAncestor → boundPolicyAncestors): past that, the
// least important goes (evictBTLS).
func (s *btlsRun) add(p *policy.Policy, e *btlsEntry) {
	s.entries[p] = append(s.entries[p], e)
	if es := s.entries[p]; len(es) > maxAncestors+1 {
		least := 0
		for i := 1; i < len(es); i++ {
			if btlsImportance(es[least], es[i]) < 0 {
				least = i
			}
		}
		s.entries[p] = slices.Delete(es, least, least+1)
	}
}

// btlsImportance is lessPolicyAncestor on two entries: not accepted
// first, then overridden, then the rest (importance); within a rank by
// the reference's namespace as written (none for an unqualified one),
// then its name.
func btlsImportance(a, b *btlsEntry) int {
	rank := func(e *btlsEntry) int { return importance(&entry{conds: e.conds}) }
	if c := cmp.Compare(rank(a), rank(b)); c != 0 {
		return c
	}
	if c := cmp.Compare(a.writtenNamespace(), b.writtenNamespace()); c != 0 {
		return c
	}
	return cmp.Compare(a.key.Name, b.key.Name)
}

// writtenNamespace is the namespace the reference is written with.
func (e *btlsEntry) writtenNamespace() string {
	if e.unqualified {
		return ""
	}
	return e.key.Namespace
}

// truncate is TruncatePolicyAncestors on p's entries: past
// maxAncestors, the most important kept (btlsImportance) and the last
// kept says Aggregated.
func (s *btlsRun) truncate(p *policy.Policy) {
	es := s.entries[p]
	if len(es) <= maxAncestors {
		return
	}
	slices.SortStableFunc(es, btlsImportance)
	es = es[:maxAncestors]
	last := es[maxAncestors-1]
	last.conds = slices.DeleteFunc(slices.Clone(last.conds), func(c metav1.Condition) bool { return c.Type == "Aggregated" })
	last.conds = append(last.conds, aggregated())
	s.entries[p] = es
}

// conflicts is ProcessBackendTLSPolicyStatus: a policy whose targetRef
// key an earlier one has (the first such targetRef; the ones after it are
// not claimed) takes Accepted=False/Conflicted on each of that policy's
// ancestors, beside its own; then each policy's ancestors are cut to
// maxAncestors (truncate), in processing order.
func (s *btlsRun) conflicts() {
	claimed := map[string]*policy.Policy{}
	for _, p := range s.ordered {
		for _, t := range p.Targets {
			key := fmt.Sprintf("%s/%s/%s/%s/%s", p.Obj.Namespace, t.Group, t.Kind, t.Name, t.Section)
			first, ok := claimed[key]
			if !ok {
				claimed[key] = p
				continue
			}
			cond := backendTLSConflicted(first)[0]
			c := metav1.Condition{Type: cond.Type, Status: metav1.ConditionStatus(cond.Status), Reason: cond.Reason, Message: cond.Message}
			for _, fe := range s.entries[first] {
				i := slices.IndexFunc(s.entries[p], fe.same)
				if i < 0 {
					s.add(p, &btlsEntry{key: fe.key, section: fe.section, port: fe.port, unqualified: fe.unqualified, gateway: fe.gateway, conds: []metav1.Condition{c}})
					continue
				}
				e := s.entries[p][i]
				e.conds = slices.DeleteFunc(slices.Clone(e.conds), func(o metav1.Condition) bool { return o.Type == c.Type })
				e.conds = append(e.conds, c)
			}
			k := targetKey(p, t)
			if !s.strange[k] {
				rj := &policy.Rejection{Verdict: policy.VerdictConflicted, Reason: "Conflicted", Message: c.Message, By: first, Why: firstBecause(first, p)}
				s.reject(p, policy.TargetKey{Backend: k, Port: t.Section}, rj)
			}
			break
		}
		// each policy in turn, so a later one conflicting with it copies
		// the ancestors it kept
		s.truncate(p)
	}
}

// overridden rejects, on each port of a backend a policy names by
// sectionName, the policies on the whole backend: getBackendTLSPolicy
// picks the port's own first, and Envoy Gateway reports the whole
// backend's policy nowhere for that port.
func (s *btlsRun) overridden() {
	for k, sections := range s.sections {
		if s.strange[k] {
			continue
		}
		for _, sec := range sections {
			by := s.governing(k, sec)
			for _, p := range s.ordered {
				if p == by || !slices.ContainsFunc(p.Targets, func(t policy.TargetRef) bool { return targetKey(p, t) == k && t.Section == "" }) ||
					slices.ContainsFunc(p.Targets, func(t policy.TargetRef) bool { return targetKey(p, t) == k && t.Section == sec }) {
					continue
				}
				s.reject(p, policy.TargetKey{Backend: k, Port: sec}, &policy.Rejection{Verdict: policy.VerdictOverridden, Reason: "Overridden",
					Message: fmt.Sprintf("BackendTLSPolicy %s/%s names port %s by sectionName: Envoy Gateway applies it there, and reports this policy nowhere for that port", by.Obj.Namespace, by.Obj.Name, sec),
					By:      by, Why: "it targets port " + sec + " by sectionName, which Envoy Gateway picks first"})
			}
		}
	}
}

// reject records that p is not applied on t (the first verdict stays).
func (s *btlsRun) reject(p *policy.Policy, t policy.TargetKey, rj *policy.Rejection) {
	if s.rejected[p] == nil {
		s.rejected[p] = map[policy.TargetKey]*policy.Rejection{}
	}
	if _, ok := s.rejected[p][t]; !ok {
		s.rejected[p][t] = rj
	}
}
