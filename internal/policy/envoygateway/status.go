package envoygateway

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// level is how specific a claimed target is; Envoy Gateway processes the
// most specific first, so a less specific policy learns what overrides it.
type level int

const (
	levelRule level = iota
	levelRoute
	levelListener // a Gateway's or a ListenerSet's listener, by sectionName
	levelSet      // a whole ListenerSet
	levelGateway
)

// target is one resolved targetRef or selected object.
type target struct {
	level   level
	route   *topology.Route
	rule    string
	gateway *topology.Gateway
	set     *topology.ListenerSet
	// listener is the targeted listener (levelListener).
	listener *topology.Listener
	section  string
}

// claim is a target taken by a policy; later policies of the kind that
// target it are Conflicted.
type claim struct {
	policy *policy.Policy
	target target
	// skipped are the listeners of a ListenerSet or Gateway target the
	// policy is refused on before translation (sharedPort): they stay
	// unclaimed, for a less specific policy to take.
	skipped map[*topology.Listener]bool
}

// entry is one ancestor entry being built.
type entry struct {
	key     model.Key
	section string
	gateway *topology.Gateway
	conds   []metav1.Condition
}

// statusRun decides the status of every policy of one kind.
type statusRun struct {
	kind *Kind
	g    *topology.Graph
	// stranger reports a Gateway of another registered controller's
	// GatewayClass (policy.Registry.StrangerOn): Envoy Gateway's provider
	// never hands it to the translator, so it is no target.
	stranger func(*topology.Gateway) bool
	// claimed targets by key: route kind/ns/name[#rule], Gateway or
	// ListenerSet key[#listener].
	claimed map[string]*claim
	// claims are every claim in processing order; routeClaims the route
	// and rule claims.
	claims      []*claim
	routeClaims []*claim
	// unclaimedRoutes are routes a policy targets by a rule name they do
	// not have: Envoy Gateway records such a route under its parents'
	// scopes before it resolves the rule (processBackendTrafficPolicyForRoute
	// and its SecurityPolicy and EnvoyExtensionPolicy twins add it to the
	// override graph first), so the policies there still name it as
	// overriding them.
	unclaimedRoutes []*topology.Route
	// byListener, bySet, byGateway: the claim on each listener, ListenerSet
	// and Gateway.
	byListener map[*topology.Listener]*claim
	bySet      map[*topology.ListenerSet]*claim
	byGateway  map[*topology.Gateway]*claim
	ruleClaims map[*topology.Route][]string
	entries    map[*policy.Policy][]*entry
	// evicted are the policies an entry was dropped from to keep their
	// list within softCap (set): a condition written later on a dropped
	// ancestor comes back as an entry of its own.
	evicted map[*policy.Policy]bool
	// notes collect, per claim, what overrides it or merges into it, by
	// category, for the messages; they go on the claim's own entries.
	notes map[*claim]*notes
	// rejected are, per policy, the targets it reaches but is not applied
	// on, with the verdict (policy.Decisions.Rejected).
	rejected map[*policy.Policy]map[policy.TargetKey]*policy.Rejection
	// diags are the findings of the refusals made here
	// (policy.Decisions.Diagnostics), one per policy, field and message.
	diags []diag.Diagnostic
}

// notes are what a less specific policy learns from more specific ones.
type notes struct {
	overridden map[string][]string // category → names
	merged     []string            // routes merging into it
}

func newStatusRun(k *Kind, g *topology.Graph, stranger func(*topology.Gateway) bool) *statusRun {
	if stranger == nil {
		stranger = func(*topology.Gateway) bool { return false }
	}
	return &statusRun{kind: k, g: g, stranger: stranger, claimed: map[string]*claim{},
		byListener: map[*topology.Listener]*claim{}, bySet: map[*topology.ListenerSet]*claim{},
		byGateway: map[*topology.Gateway]*claim{}, ruleClaims: map[*topology.Route][]string{},
		entries: map[*policy.Policy][]*entry{}, evicted: map[*policy.Policy]bool{}, notes: map[*claim]*notes{},
		rejected: map[*policy.Policy]map[policy.TargetKey]*policy.Rejection{}}
}

// finding reports, once, that p is refused for field at a target
// (GWP401 at the field).
func (s *statusRun) finding(p *policy.Policy, field, msg string) {
	d := p.Diag(policy.LintPolicyInvalid.Code, diag.Error, field, "%s", msg)
	if !slices.ContainsFunc(s.diags, func(o diag.Diagnostic) bool {
		return o.Object == d.Object && o.Field == d.Field && o.Message == d.Message
	}) {
		s.diags = append(s.diags, d)
	}
}

// reject records that p is not applied on t, and why.
func (s *statusRun) reject(p *policy.Policy, t policy.TargetKey, r *policy.Rejection) {
	if s.rejected[p] == nil {
		s.rejected[p] = map[policy.TargetKey]*policy.Rejection{}
	}
	if _, ok := s.rejected[p][t]; !ok {
		s.rejected[p][t] = r
	}
}

// key is the target t names, as attach indexes it.
func (t target) key() policy.TargetKey {
	switch t.level {
	case levelRule:
		for _, r := range t.route.Rules {
			if r.Name == t.rule {
				return policy.TargetKey{Rule: r}
			}
		}
		return policy.TargetKey{Route: t.route}
	case levelRoute:
		return policy.TargetKey{Route: t.route}
	case levelListener:
		return policy.TargetKey{Listener: t.listener}
	case levelSet:
		return policy.TargetKey{Set: t.set}
	}
	return policy.TargetKey{Gateway: t.gateway}
}

// run processes the policies level by level, most specific first, each
// level in processing order, then writes what each level learnt.
func (s *statusRun) run(ps []*policy.Policy) policy.Decisions {
	ordered := slices.Clone(ps)
	slices.SortStableFunc(ordered, processingOrder)
	resolved := map[*policy.Policy][]target{}
	for _, p := range ordered {
		resolved[p] = s.resolve(p)
	}
	for lv := levelRule; lv <= levelGateway; lv++ {
		for _, p := range ordered {
			for _, t := range resolved[p] {
				if t.level == lv {
					s.take(p, t)
				}
			}
		}
	}
	s.relate()
	s.finish()
	for _, p := range ps {
		s.entries[p] = truncate(s.entries[p])
	}
	out := policy.Decisions{Ancestors: map[*policy.Policy][]policy.AncestorStatus{}, Rejected: s.rejected, Diagnostics: s.diags}
	for _, p := range ps {
		for _, e := range s.entries[p] {
			out.Ancestors[p] = append(out.Ancestors[p], policy.AncestorStatus{Ancestor: e.key, Section: e.section, Gateway: e.gateway, Conditions: e.conds})
		}
	}
	return out
}

// maxAncestors is how many ancestor entries Envoy Gateway keeps;
// softCap how many it holds while it writes them (status/policy.go:
// policyAncestorsSoftCap), one more, so that the last truncation can
// say Aggregated.
const (
	maxAncestors = 16
	softCap      = maxAncestors + 1
)

// truncate is TruncatePolicyAncestors, run once every condition is
// written: past 16 entries the most important are kept (byImportance)
// and the last kept one says Aggregated.
func truncate(es []*entry) []*entry {
	if len(es) <= maxAncestors {
		return es
	}
	slices.SortStableFunc(es, byImportance)
	es = es[:maxAncestors]
	last := es[maxAncestors-1]
	last.conds = slices.DeleteFunc(last.conds, func(c metav1.Condition) bool { return c.Type == "Aggregated" })
	last.conds = append(last.conds, aggregated())
	return es
}

// evictLeast is boundPolicyAncestors: the entry every other one ranks
// before (byImportance; of equals, the first) is dropped.
func evictLeast(es []*entry) []*entry {
	least := 0
	for i := 1; i < len(es); i++ {
		if byImportance(es[least], es[i]) < 0 {
			least = i
		}
	}
	return slices.Delete(es, least, least+1)
}

// byImportance is lessPolicyAncestor: an entry not accepted first, then
// an overridden one, then the rest; within a rank by the ancestor's
// namespace, then its name (not its kind or section).
func byImportance(a, b *entry) int {
	if c := cmp.Compare(importance(a), importance(b)); c != 0 {
		return c
	}
	if c := cmp.Compare(a.key.Namespace, b.key.Namespace); c != 0 {
		return c
	}
	return cmp.Compare(a.key.Name, b.key.Name)
}

// importance is sortRankForPolicyAncestor: 0 for Accepted=False, 1 for
// Overridden=True, 2 otherwise.
func importance(e *entry) int {
	has := func(typ string, st metav1.ConditionStatus) bool {
		return slices.ContainsFunc(e.conds, func(c metav1.Condition) bool { return c.Type == typ && c.Status == st })
	}
	switch {
	case has("Accepted", metav1.ConditionFalse):
		return 0
	case has("Overridden", metav1.ConditionTrue):
		return 1
	}
	return 2
}

func aggregated() metav1.Condition {
	return cond("Aggregated", true, "Aggregated", fmt.Sprintf("Ancestors have been truncated because the number of policy ancestors exceeds %d.", maxAncestors))
}

// String is Kind/ns/name[#section], the order status prints entries in.
func (e *entry) String() string {
	out := e.key.Kind + "/" + e.key.Namespace + "/" + e.key.Name
	if e.section != "" {
		out += "#" + e.section
	}
	return out
}

// processingOrder is Envoy Gateway's: older creationTimestamp first, then
// namespace/name — except that without timestamps the order the objects
// were given in decides (the translator does not sort what it is handed).
func processingOrder(a, b *policy.Policy) int {
	if !a.Created.Equal(b.Created) && !a.Created.IsZero() && !b.Created.IsZero() {
		return a.Created.Compare(b.Created)
	}
	return cmp.Or(cmp.Compare(a.Obj.Seq, b.Obj.Seq), cmp.Compare(a.Obj.File, b.Obj.File), cmp.Compare(a.Obj.Pos.Line, b.Obj.Pos.Line))
}

// firstBecause says why first came before p in processingOrder.
func firstBecause(first, p *policy.Policy) string { return policy.Because(first, p) }

// resolve lists what p's targetRefs and targetSelectors name; targets not
// in the input are left out (Envoy Gateway writes no status for them). As
// resolvePolicyTargets composes them (helpers.go:
// composePolicyTargetRefs): the objects the selectors pick first, ordered
// by their creationTimestamp (the objects' own order among equals), then
// each targetRef that names none of those (a targetRef and a selector
// naming one object make one target, not a policy in conflict with
// itself).
func (s *statusRun) resolve(p *policy.Policy) []target {
	type picked struct {
		ref     policy.TargetRef
		key     model.Key
		created time.Time
	}
	var selected []picked
	for _, ref := range p.Targets {
		if ref.Group != model.GatewayGroup || ref.Selector == nil {
			continue
		}
		for _, k := range s.names(p, ref) {
			dup := slices.ContainsFunc(selected, func(o picked) bool { return o.ref.Kind == ref.Kind && o.key == k })
			if !dup {
				selected = append(selected, picked{ref: ref, key: k, created: s.created(ref.Kind, k)})
			}
		}
	}
	slices.SortStableFunc(selected, func(a, b picked) int { return a.created.Compare(b.created) })
	var out []target
	for _, o := range selected {
		if t, ok := s.lookup(o.ref, o.key.Namespace, o.key.Name); ok {
			out = append(out, t)
		}
	}
	for _, ref := range p.Targets {
		if ref.Group != model.GatewayGroup || ref.Selector != nil {
			continue
		}
		k := model.Key{Namespace: p.Obj.Namespace, Name: ref.Name}
		if ref.Section == "" && slices.ContainsFunc(selected, func(o picked) bool { return o.ref.Kind == ref.Kind && o.key == k }) {
			continue
		}
		if t, ok := s.lookup(ref, k.Namespace, k.Name); ok {
			out = append(out, t)
		}
	}
	return out
}

// created is the creationTimestamp of the object of kind named k (zero
// when it has none, or is not in the graph).
func (s *statusRun) created(kind string, k model.Key) time.Time {
	switch kind {
	case "Gateway":
		if gw := s.g.Gateway(k.Namespace, k.Name); gw != nil && gw.Gateway != nil && gw.Gateway.Gateway != nil {
			return gw.CreationTimestamp.Time
		}
	case "ListenerSet":
		if set := s.g.ListenerSet(k.Namespace, k.Name); set != nil && set.ListenerSet != nil && set.ListenerSet.ListenerSet != nil {
			return set.CreationTimestamp.Time
		}
	default:
		if rt := s.g.Route(kind, k.Namespace, k.Name); rt != nil && rt.Meta != nil {
			return rt.Meta.CreationTimestamp.Time
		}
	}
	return time.Time{}
}

// names are the objects a reference means: its name in p's namespace, or
// every object of its kind whose labels the selector matches, in p's
// namespace or — when the selector says so — in the namespaces it selects
// that a ReferenceGrant opens to p.
func (s *statusRun) names(p *policy.Policy, ref policy.TargetRef) []model.Key {
	if ref.Selector == nil {
		return []model.Key{{Namespace: p.Obj.Namespace, Name: ref.Name}}
	}
	var out []model.Key
	sel := ref.LabelSelector()
	match := func(ns, name string, set map[string]string) {
		if !sel.Matches(labels.Set(set)) {
			return
		}
		if s.inNamespaces(p, ref, ns, name) {
			out = append(out, model.Key{Namespace: ns, Name: name})
		}
	}
	switch ref.Kind {
	case "Gateway":
		for _, gw := range s.g.Gateways {
			match(gw.Namespace, gw.Name, gw.Labels)
		}
	case "ListenerSet":
		for _, gw := range s.g.Gateways {
			for _, set := range gw.Sets {
				match(set.Namespace, set.Name, set.Labels)
			}
		}
	default:
		for _, rt := range s.g.Routes {
			if rt.Kind == ref.Kind {
				match(rt.Meta.Namespace, rt.Meta.Name, rt.Meta.Labels)
			}
		}
	}
	return out
}

// inNamespaces reports whether a selector of p may pick an object in ns.
func (s *statusRun) inNamespaces(p *policy.Policy, ref policy.TargetRef, ns, name string) bool {
	return ns == p.Obj.Namespace || s.kind.SelectsIn(p, ref, s.g.Model, ns, name)
}

// lookup resolves one named target.
func (s *statusRun) lookup(ref policy.TargetRef, ns, name string) (target, bool) {
	t := target{section: ref.Section}
	switch ref.Kind {
	case "Gateway":
		t.gateway = s.g.Gateway(ns, name)
		if t.gateway == nil || t.gateway.Refused.Reason != "" || s.stranger(t.gateway) {
			// a Gateway Envoy Gateway refuses whole is not among those
			// it translates policies for (GetRelevantGateways), nor is
			// one of another controller's GatewayClass, which its
			// provider never hands to the translator
			return t, false
		}
		t.level = levelGateway
		if t.section != "" {
			t.level, t.listener = levelListener, s.gatewaySection(t.gateway, t.section)
		}
	case "ListenerSet":
		t.set = s.g.ListenerSet(ns, name)
		if t.set == nil || s.stranger(t.set.Parent) {
			return t, false
		}
		t.level = levelSet
		if t.section != "" {
			t.level, t.listener = levelListener, t.set.Listener(t.section)
		}
	default:
		if !slices.Contains(s.kind.targets, policy.TargetKind(ref.Kind)) {
			return t, false
		}
		t.route = s.g.Route(ref.Kind, ns, name)
		if t.route == nil || s.strangersOnly(t.route) {
			return t, false
		}
		t.level, t.rule = levelRoute, t.section
		if t.rule != "" {
			t.level = levelRule
		}
	}
	return t, true
}

// strangersOnly reports whether every Gateway the route's parentRefs
// find is another controller's (stranger): Envoy Gateway's provider hands
// the translator only the routes of its own Gateways, so such a route is
// no target. A route with no Gateway found is left to the checks that
// follow (notFound, ancestors).
func (s *statusRun) strangersOnly(rt *topology.Route) bool {
	found := false
	for _, p := range rt.Parents {
		if p.Gateway == nil {
			continue
		}
		if !s.stranger(p.Gateway) {
			return false
		}
		found = true
	}
	return found
}

// gatewaySection is the listener a Gateway target's sectionName names:
// one of the Gateway's own. For a kind reported by sections
// (ClientTrafficPolicy) Envoy Gateway looks among all the listeners of
// the Gateway's context, its ListenerSets' included
// (resolveClientTrafficPolicyTargetRef → validateGatewayListenerSectionName
// over gateway.listeners, then the first listener of that name), so a
// name only a ListenerSet's listener has finds that listener.
func (s *statusRun) gatewaySection(gw *topology.Gateway, section string) *topology.Listener {
	if l := gw.Listener(section); l != nil || !s.kind.bySection {
		return l
	}
	for _, l := range gw.Listeners {
		if string(l.Name) == section {
			return l
		}
	}
	return nil
}

// take lets p claim t, or reports why it cannot: the section does not
// exist (TargetNotFound) or an earlier policy has it (Conflicted).
func (s *statusRun) take(p *policy.Policy, t target) {
	ancestors := s.ancestors(t)
	if msg := s.notFound(t); msg != "" {
		for _, a := range ancestors {
			s.set(p, a, cond("Accepted", false, "TargetNotFound", msg))
		}
		if t.level == levelRule && !slices.Contains(s.unclaimedRoutes, t.route) {
			s.unclaimedRoutes = append(s.unclaimedRoutes, t.route)
		}
		return
	}
	key, what := s.claimKey(t)
	if first, taken := s.claimed[key]; taken {
		msg := fmt.Sprintf("Unable to target %s, another %s has already attached to it", what, s.kind.name)
		for _, a := range ancestors {
			s.set(p, a, cond("Accepted", false, "Conflicted", msg))
		}
		if first.policy == p {
			// its targetRefs name the target twice: the translator
			// built the policy there through the first ref and leaves
			// that in place when the second conflicts (the target's
			// attached flag only stops a second translation), so only
			// the status says Conflicted
			return
		}
		s.reject(p, t.key(), &policy.Rejection{Verdict: policy.VerdictConflicted, Reason: "Conflicted", Message: msg, By: first.policy, Why: firstBecause(first.policy, p)})
		return
	}
	c := &claim{policy: p, target: t}
	s.claimed[key] = c
	s.claims = append(s.claims, c)
	refusal := s.refusedOnRoute(p, t)
	refused := refusal != nil
	switch t.level {
	case levelRule:
		s.ruleClaims[t.route] = append(s.ruleClaims[t.route], t.rule)
		s.routeClaims = append(s.routeClaims, c)
	case levelRoute:
		s.routeClaims = append(s.routeClaims, c)
		if rules := s.ruleClaims[t.route]; len(rules) > 0 && !refused {
			for _, r := range rules {
				s.note(c).add("route rules", r)
			}
		}
	case levelListener:
		s.byListener[t.listener] = c
	case levelSet:
		s.bySet[t.set] = c
	case levelGateway:
		s.byGateway[t.gateway] = c
	}
	if refused {
		// processSecurityPolicyForRoute returns before translating: the
		// route keeps what a less specific policy gives it, no 500, and
		// no warning or Overridden note is written.
		msg := refusal.Message
		if decoded(p).partial {
			// translated on its other targets: refused here only
			s.finding(p, refusal.Field, msg)
		}
		for _, a := range ancestors {
			s.set(p, a, cond("Accepted", false, "Invalid", msg))
		}
		s.reject(p, t.key(), &policy.Rejection{Verdict: policy.VerdictRefused, Reason: "Invalid", Message: msg})
		return
	}
	if s.sharedPort(c, ancestors) {
		return
	}
	if s.defaultHostRefused(c, ancestors) {
		return
	}
	if s.geoRefused(c, ancestors) {
		return
	}
	if s.builtPerListener(c) {
		// its errors are written where it is built, on the listeners
		// (mergeOnListener); the parentRefs' entries only say Accepted
		// (SetAcceptedForPolicyAncestors: Accepted where it is unset)
		for _, a := range ancestors {
			s.set(p, a, cond("Accepted", true, "Accepted", "Policy has been accepted."))
			s.warn(p, a, c)
		}
		return
	}
	for _, a := range ancestors {
		s.acceptOn(p, invalidOn(p, t), a, c)
	}
}

// builtPerListener reports whether a route claim's policy is translated
// only merged, per listener: a BackendTrafficPolicy, EnvoyExtensionPolicy
// or SecurityPolicy with mergeType on a route or route rule
// (processBackendTrafficPolicyForRoute, processEnvoyExtensionPolicyForRoute,
// processSecurityPolicyForRoute — after the validator, which refuses the
// policy on the parentRefs' ancestors first: the merge branch builds the
// policy on each listener of the route's parent contexts, into the closest
// policy above it or alone, and writes a failure on that listener's
// entry, Gateway/ns/gw#listener).
func (s *statusRun) builtPerListener(c *claim) bool {
	return s.kind.mergeable && (c.target.level == levelRoute || c.target.level == levelRule) && decoded(c.policy).merges
}

// refusedOnRoute is the refusal of p, a SecurityPolicy, on t, a route or
// route rule whose kind's validator (validateSecurityPolicy, or
// validateSecurityPolicyForTCP on a TCPRoute) refuses it; nil when there
// is none. Envoy Gateway runs the validator there only, and a refused
// policy translates nothing on that route (processSecurityPolicyForRoute
// returns), so the route's rules take the SecurityPolicy of their
// listener, ListenerSet or Gateway, if any, as if the route had none
// (translateSecurityPolicyForListeners fills every route whose security
// is unset).
func (s *statusRun) refusedOnRoute(p *policy.Policy, t target) *diag.Diagnostic {
	if s.kind != securityPolicy || !decoded(p).refused || (t.level != levelRoute && t.level != levelRule) {
		return nil
	}
	return decoded(p).refusals[t.route.Kind == "TCPRoute"]
}

// sharedPort refuses c's policy on each listener it covers that shares
// its port with a plain HTTP listener it does not cover
// (validatePortOverlapForClientTrafficPolicy, run per listener before the
// listener is translated): the policy is Invalid on c's ancestors, and
// not applied on those listeners — which, for a ListenerSet-wide policy,
// stay unclaimed, so the Gateway's policy takes them (Envoy Gateway claims
// a ListenerSet's sections only as it translates them). It reports
// whether no listener is left to translate.
func (s *statusRun) sharedPort(c *claim, ancestors []entry) bool {
	if !s.kind.bySection {
		return false
	}
	covered := s.listenersOf(c.target)
	refusals := map[*topology.Listener]string{}
	var msgs []string
	for _, l := range covered {
		if msg := s.samePort(l, covered); msg != "" {
			refusals[l], msgs = msg, append(msgs, msg)
		}
	}
	if len(msgs) == 0 {
		return false
	}
	c.skipped = map[*topology.Listener]bool{}
	for l := range refusals {
		c.skipped[l] = true
	}
	msg := strings.Join(msgs, "; ")
	for _, a := range ancestors {
		s.set(c.policy, a, cond("Accepted", false, "Invalid", msg))
		s.warn(c.policy, a, c)
	}
	// not translated with the policy, nor answered 500
	s.rejectOn(c, covered, refusals, policy.VerdictRefused)
	return len(refusals) == len(covered)
}

// rejectOn records a verdict on c's policy for the listeners of its
// target it is refused on, each with its message: on the whole target
// when that is every listener it covers, else on each of those listeners
// (the others keep the policy).
func (s *statusRun) rejectOn(c *claim, covered []*topology.Listener, refusals map[*topology.Listener]string, verdict string) {
	if len(refusals) == len(covered) {
		s.reject(c.policy, c.target.key(), &policy.Rejection{Verdict: verdict, Reason: "Invalid", Message: refusals[covered[0]]})
		return
	}
	for _, l := range covered {
		if msg, ok := refusals[l]; ok {
			s.reject(c.policy, policy.TargetKey{Listener: l}, &policy.Rejection{Verdict: verdict, Reason: "Invalid", Message: msg})
		}
	}
}

// samePort: plain HTTP listeners of one Gateway on one port share one
// Envoy listener, so a ClientTrafficPolicy (which configures the Envoy
// listener) may not cover l without the others on its port — Envoy
// Gateway refuses it there. covered are the listeners the policy's target
// covers. Only the listeners Envoy Gateway programs count, l itself too:
// the check compares the Gateway IR's HTTP listeners
// (validatePortOverlapForClientTrafficPolicy, listenersWithSameHTTPPort),
// which hold no listener translateGatewayListeners skipped. "" when l may
// take it.
func (s *statusRun) samePort(l *topology.Listener, covered []*topology.Listener) string {
	if !s.kind.bySection || l.Protocol != gwv1.HTTPProtocolType || !listenerReady(l) {
		return ""
	}
	var others []string
	for _, o := range l.Gateway.Listeners {
		if o != l && o.Protocol == gwv1.HTTPProtocolType && o.Port == l.Port && !slices.Contains(covered, o) && listenerReady(o) {
			others = appendNew(others, qualifiedID(o))
		}
	}
	if len(others) == 0 {
		return ""
	}
	return fmt.Sprintf("ClientTrafficPolicy is being applied to multiple http (non https) listeners (%s) on the same port, which is not allowed.", strings.Join(others, ", "))
}

// listenersOf lists the listeners a Gateway, ListenerSet or listener
// target covers.
func (s *statusRun) listenersOf(t target) []*topology.Listener {
	switch {
	case t.listener != nil:
		return []*topology.Listener{t.listener}
	case t.level == levelSet && t.set.Parent != nil:
		var out []*topology.Listener
		for _, l := range t.set.Parent.Listeners {
			if l.Set == t.set {
				out = append(out, l)
			}
		}
		return out
	case t.level == levelGateway:
		return t.gateway.Listeners
	}
	return nil
}

// qualifiedID names a listener as Envoy Gateway's messages do: the
// Gateway's ns/name, then (for a ListenerSet's) the set's ns/name, then
// the listener.
func qualifiedID(l *topology.Listener) string {
	id := l.Gateway.Namespace + "/" + l.Gateway.Name + "/"
	if l.Set != nil {
		id += l.Set.Namespace + "/" + l.Set.Name + "/"
	}
	return id + string(l.Name)
}

// notFound is the TargetNotFound message when t's sectionName names
// nothing.
func (s *statusRun) notFound(t target) string {
	switch {
	case t.level == levelRule && !hasRule(t.route, t.rule):
		return fmt.Sprintf("No section name %s found for %s %s/%s", t.rule, t.route.Kind, t.route.Meta.Namespace, t.route.Meta.Name)
	case t.level == levelListener && t.listener == nil && t.gateway != nil:
		return fmt.Sprintf("No section name %s found for Gateway %s/%s", t.section, t.gateway.Namespace, t.gateway.Name)
	case t.level == levelListener && t.listener == nil && s.kind.bySection:
		// resolveClientTrafficPolicyTargetRef's own message.
		return fmt.Sprintf("ListenerSet %s/%s does not have a listener named %q", t.set.Namespace, t.set.Name, t.section)
	case t.level == levelListener && t.listener == nil:
		return fmt.Sprintf("No section name %s found for ListenerSet %s/%s", t.section, t.set.Namespace, t.set.Name)
	}
	return ""
}

func hasRule(rt *topology.Route, name string) bool {
	return slices.ContainsFunc(rt.Rules, func(r *topology.Rule) bool { return r.Name == name })
}

// claimKey identifies what t claims, and names it for the Conflicted
// message as Envoy Gateway does.
func (s *statusRun) claimKey(t target) (key, what string) {
	switch t.level {
	case levelRule, levelRoute:
		key = t.route.Kind + "/" + t.route.Meta.Namespace + "/" + t.route.Meta.Name
		what = t.route.Kind + " " + t.route.Meta.Name
		if t.level == levelRule {
			key += "#" + t.rule
			what = "RouteRule " + t.route.Meta.Name + "/" + t.rule
		}
	case levelListener:
		owner := t.listener.Ancestor()
		if t.set == nil {
			// a Gateway target's section: claimed for the Gateway, even
			// where it names a ListenerSet's listener (gatewaySection)
			owner = t.gateway.Key()
		}
		key = owner.Kind + "/" + owner.Namespace + "/" + owner.Name + "#" + t.section
		what = "Listener " + owner.Name + "/" + t.section
		if owner.Kind == "Gateway" && s.kind.gatewayListenerByKey {
			// resolveBTPolicyGatewayTargetRef names the Gateway by
			// namespace/name; the SecurityPolicy and EnvoyExtensionPolicy
			// resolvers, and every ListenerSet one, by its name.
			what = "Listener " + owner.Namespace + "/" + owner.Name + "/" + t.section
		}
		if s.kind.bySection {
			// ProcessClientTrafficPolicies names the targetRef's object.
			what = "section of " + owner.Name
		}
	case levelSet:
		key, what = "ListenerSet/"+t.set.Namespace+"/"+t.set.Name, "ListenerSet "+t.set.Name
	default:
		key, what = "Gateway/"+t.gateway.Namespace+"/"+t.gateway.Name, "Gateway "+t.gateway.Name
	}
	return key, what
}

// ancestors are the status entries a target reports against: the Gateway
// or ListenerSet (with the listener's sectionName) for those; for a route,
// each of its parentRefs as written that names a Gateway of Envoy
// Gateway's in the input, or a ListenerSet such a Gateway attaches
// (GetManagedParentReferences keeps the parentRefs the translator made a
// parent context for, processAllowedListenersForParentRefs makes one only
// where GetReferencedListeners finds the parent): a parentRef to a
// Gateway or ListenerSet that is not there is no ancestor.
func (s *statusRun) ancestors(t target) []entry {
	switch t.level {
	case levelRule, levelRoute:
		var out []entry
		for _, p := range t.route.Parents {
			if p.Gateway == nil || !s.managed(p.Gateway) {
				// a parentRef to a Gateway (or ListenerSet) that is not
				// there, that Envoy Gateway refused whole (Declined) or
				// does not translate has no route parent context: not an
				// ancestor (GetManagedParentReferences)
				continue
			}
			e := entry{key: model.GatewayAPIKey(string(*p.Ref.Kind), string(*p.Ref.Namespace), string(p.Ref.Name)), gateway: p.Gateway}
			if p.Ref.SectionName != nil {
				e.section = string(*p.Ref.SectionName)
			}
			if !slices.ContainsFunc(out, func(o entry) bool { return o.key == e.key && o.section == e.section }) {
				out = append(out, e)
			}
		}
		return out
	case levelSet:
		return []entry{{key: t.set.Key(), gateway: t.set.Parent}}
	case levelListener:
		if t.set != nil {
			return []entry{{key: t.set.Key(), section: t.section, gateway: t.set.Parent}}
		}
		return []entry{{key: t.gateway.Key(), section: t.section, gateway: t.gateway}}
	}
	return []entry{{key: t.gateway.Key(), gateway: t.gateway}}
}

// managed reports whether Envoy Gateway handles gw: its GatewayClass has
// Envoy Gateway's controllerName, or the input has no GatewayClass.
func (s *statusRun) managed(gw *topology.Gateway) bool {
	name, managed := s.g.Controller(gw, ControllerName)
	return managed && name == ControllerName
}

// acceptOn writes Accepted (and the deprecation warnings, which Envoy
// Gateway writes whether the policy is valid or not) on an entry, where
// invalid are the policy's findings on the target (invalidOn).
func (s *statusRun) acceptOn(p *policy.Policy, invalid []diag.Diagnostic, a entry, c *claim) {
	if len(invalid) > 0 && c != nil && s.kind.bySection && (c.target.level == levelGateway || c.target.level == levelSet) && len(s.perListenerParts(p, invalid, c)) == 0 {
		// ProcessClientTrafficPolicies' errors on a whole Gateway or
		// ListenerSet are its listeners' translations' alone: none
		// translated with an error (each claimed first, or building none
		// of the settings at fault) leaves it accepted there
		invalid = nil
	}
	if len(invalid) == 0 {
		s.set(p, a, cond("Accepted", true, "Accepted", "Policy has been accepted."))
	} else {
		s.set(p, a, cond("Accepted", false, "Invalid", s.invalidMessage(p, invalid, c)))
	}
	s.warn(p, a, c)
}

// warn writes the kind's other warning and the deprecation warnings on
// an entry of claim c. Envoy Gateway writes the other warning first and
// then merges the deprecations into it (SetWarningForPolicyAncestor): both
// messages, and the reason Warnings. Deprecated fields are listed sorted
// by path, as its buildDeprecationWarningMessage does.
func (s *statusRun) warn(p *policy.Policy, a entry, c *claim) {
	d := decoded(p)
	warning := d.warning
	if d.http3ClientValidation {
		warning = s.http3Warning(c)
	}
	deprecated := strings.Join(sorted(d.deprecated), "; ")
	switch {
	case len(d.deprecated) > 0 && warning[0] != "":
		s.set(p, a, cond("Warning", true, "Warnings", warning[1]+"; "+deprecated))
	case len(d.deprecated) > 0:
		s.set(p, a, cond("Warning", true, "DeprecatedField", deprecated))
	case warning[0] != "":
		s.set(p, a, cond("Warning", true, warning[0], warning[1]))
	}
}

// http3Warning is the warning a ClientTrafficPolicy with HTTP/3 and
// client certificate validation gets on claim c
// (ProcessClientTrafficPolicies: shouldDisableHTTP3ForClientValidation,
// disabledHTTP3WarningMessage): it names the listeners it translates
// whose HTTP listener terminates TLS — HTTPS listeners Envoy Gateway
// programs (an IR HTTP listener with TLS; one it does not program has
// none), not refused for their port (sharedPort), and, for a whole
// Gateway or ListenerSet, not taken by a policy on the listener or on its
// ListenerSet first (claimedSections). None: no warning.
func (s *statusRun) http3Warning(c *claim) [2]string {
	if c == nil {
		return [2]string{}
	}
	var names []string
	for _, l := range s.listenersOf(c.target) {
		if c.skipped[l] || l.Protocol != gwv1.HTTPSProtocolType || !listenerReady(l) {
			continue
		}
		if c.target.level != levelListener && (s.byListener[l] != nil || c.target.level == levelGateway && l.Set != nil && s.bySet[l.Set] != nil) {
			continue
		}
		names = append(names, string(l.Name))
	}
	switch len(names) {
	case 0:
		return [2]string{}
	case 1:
		return [2]string{"UnsupportedHTTP3ClientValidation", fmt.Sprintf("HTTP/3 was disabled for listener %q because Envoy does not support downstream client TLS validation over QUIC", names[0])}
	}
	slices.Sort(names)
	return [2]string{"UnsupportedHTTP3ClientValidation", fmt.Sprintf("HTTP/3 was disabled for listeners %v because Envoy does not support downstream client TLS validation over QUIC", names)}
}

// invalidMessage is the condition message of p's findings on target t,
// as Envoy Gateway joins its translation's errors there (joinedErrors): on
// a route, the features built per parentRef once for each parentRef with
// a Gateway of Envoy Gateway's that allows the route.
func (s *statusRun) invalidMessage(p *policy.Policy, invalid []diag.Diagnostic, c *claim) string {
	t := c.target
	if s.kind.bySection && (t.level == levelGateway || t.level == levelSet) {
		if parts := s.perListenerParts(p, invalid, c); len(parts) > 0 {
			return joinedText(parts)
		}
	}
	route := t.level == levelRoute || t.level == levelRule
	parents := 0
	if route {
		for _, pa := range t.route.Parents {
			if pa.Gateway != nil && len(pa.Allowed) > 0 && s.managed(pa.Gateway) {
				parents++
			}
		}
	}
	return joinedErrors(s.kind, p, invalid, route, parents)
}

// perListenerParts are the errors of a ClientTrafficPolicy on a whole
// Gateway or ListenerSet (claim c) as Envoy Gateway joins them
// (ProcessClientTrafficPolicies): it translates the policy once for each
// listener the target covers, in the Gateway's listener order, skipping
// those a policy on the listener (or, for a Gateway, on its ListenerSet)
// took first, and joins each translation's errors
// (translateClientTrafficPolicyForListener): the settings every listener
// builds (TCP keepalive, connection, timeouts) once per listener it has
// an HTTP or TCP IR listener for (none from the others), the HTTP
// settings once per listener it builds as an HTTP listener, the TLS ones
// once per listener whose IR terminates TLS (listenerBuilds); a
// listener refused for its port (sharedPort) gives that refusal in its
// place. So a policy with one bad field on a Gateway of three HTTP
// listeners says it three times.
func (s *statusRun) perListenerParts(p *policy.Policy, invalid []diag.Diagnostic, c *claim) []string {
	d := decoded(p)
	in := func(f diag.Diagnostic, list []diag.Diagnostic) bool {
		return slices.ContainsFunc(list, func(x diag.Diagnostic) bool { return x.Field == f.Field && x.Message == f.Message })
	}
	covered := s.listenersOf(c.target)
	var parts []string
	for _, l := range covered {
		if s.byListener[l] != nil || c.target.level == levelGateway && l.Set != nil && s.bySet[l.Set] != nil {
			continue
		}
		if c.skipped[l] {
			if msg := s.samePort(l, covered); msg != "" {
				parts = append(parts, msg)
			}
			continue
		}
		built, http, tls := listenerBuilds(l)
		if !built {
			continue
		}
		var fs []diag.Diagnostic
		for _, f := range invalid {
			if in(f, d.httpOnly) && !http || in(f, d.tlsOnly) && !tls {
				continue
			}
			fs = append(fs, f)
		}
		parts = append(parts, joinedParts(s.kind, p, fs, false, 0)...)
	}
	return parts
}

// parentsOn is how many times a route policy's translation for one
// listener of Gateway gw builds the features Envoy Gateway builds per
// parentRef: translate…ForRoute, given the listener, still walks every
// parentRef of the route, skipping only those whose Gateway is another
// (or that have no Gateway context: none of its listeners allows the
// route), so a route with two parentRefs to listeners of gw repeats them
// twice. At least once.
func (s *statusRun) parentsOn(rt *topology.Route, gw *topology.Gateway) int {
	n := 0
	for _, pa := range rt.Parents {
		if pa.Gateway == gw && len(pa.Allowed) > 0 && s.managed(pa.Gateway) {
			n++
		}
	}
	return max(n, 1)
}

// set puts a condition on p's entry for a, creating the entry; a second
// condition of one type replaces the first, as Envoy Gateway's
// SetConditionForPolicyAncestor does, except Accepted=True and Warning,
// which are written only where unset.
func (s *statusRun) set(p *policy.Policy, a entry, c metav1.Condition) {
	for _, e := range s.entries[p] {
		if e.key == a.key && e.section == a.section {
			i := slices.IndexFunc(e.conds, func(o metav1.Condition) bool { return o.Type == c.Type })
			switch {
			case i < 0:
				e.conds = append(e.conds, c)
			case c.Type != "Warning" && !isAccepted(c):
				// SetConditionForPolicyAncestor (MergeConditions): the
				// later condition replaces the earlier, so a target that
				// fails after another of the policy's targets was
				// accepted on the same ancestor makes it Accepted=False.
				// Warning is written once, whole (warn); Accepted=True
				// only where Accepted is unset (SetAcceptedForPolicyAncestor).
				e.conds[i] = c
			}
			return
		}
	}
	e := a
	e.conds = []metav1.Condition{c}
	s.entries[p] = append(s.entries[p], &e)
	if len(s.entries[p]) > softCap {
		// Envoy Gateway keeps the list bounded as it writes it
		// (boundPolicyAncestors): the least important entry goes, and
		// a condition written later on that ancestor brings it back
		// with that condition alone.
		s.entries[p] = evictLeast(s.entries[p])
		s.evicted[p] = true
	}
}

// isAccepted: c is Accepted=True.
func isAccepted(c metav1.Condition) bool {
	return c.Type == "Accepted" && c.Status == metav1.ConditionTrue
}

// replace puts a condition on p's entry for a in place of one of its
// type: a verdict reached after Accepted was written.
func (s *statusRun) replace(p *policy.Policy, a entry, c metav1.Condition) {
	for _, e := range s.entries[p] {
		if e.key == a.key && e.section == a.section {
			e.conds = slices.DeleteFunc(e.conds, func(o metav1.Condition) bool { return o.Type == c.Type })
		}
	}
	s.set(p, a, c)
}

func (s *statusRun) note(c *claim) *notes {
	n, ok := s.notes[c]
	if !ok {
		n = &notes{overridden: map[string][]string{}}
		s.notes[c] = n
	}
	return n
}

// relate tells each claimed Gateway, ListenerSet and listener policy what
// overrides or merges into it: more specific claims under it, and the
// routes attached through it that have a policy of their own.
func (s *statusRun) relate() {
	for gw, c := range s.byGateway {
		for _, l := range gw.Listeners {
			if lc := s.byListener[l]; lc != nil {
				cat := "gateway listeners"
				if l.Set != nil {
					cat = "listenerset listeners"
				}
				s.note(c).add(cat, l.ID())
				s.replaced(c, l, lc)
			}
		}
		for _, set := range gw.Sets {
			sc := s.bySet[set]
			if sc == nil {
				continue
			}
			if !s.kind.bySection {
				s.note(c).add("listenersets", set.Namespace+"/"+set.Name)
				continue
			}
			for _, l := range gw.Listeners { // by section: each of the set's listeners it translated
				if l.Set == set && !sc.skipped[l] {
					s.note(c).add("listenerset listeners", l.ID())
					if s.byListener[l] == nil {
						s.replaced(c, l, sc)
					}
				}
			}
		}
	}
	for set, c := range s.bySet {
		if set.Parent == nil {
			continue
		}
		for _, l := range set.Parent.Listeners {
			if lc := s.byListener[l]; l.Set == set && lc != nil {
				s.note(c).add("listenerset listeners", l.ID())
				s.replaced(c, l, lc)
			}
		}
	}
	if s.kind.bySection {
		for _, c := range s.byGateway {
			s.replacedWhole(c)
		}
		for _, c := range s.bySet {
			s.replacedWhole(c)
		}
	}
	for _, rc := range s.routeClaims {
		s.relateRoute(rc)
	}
	for _, rt := range s.unclaimedRoutes {
		s.relateUnclaimed(rt)
	}
}

// replaced records, for a kind reported by listener sections (whose
// policies configure the listener itself: ClientTrafficPolicy), that the
// more specific claim by takes listener l from c: Envoy Gateway translates
// a Gateway's or ListenerSet's policy only on the sections no more
// specific policy claimed, so c's settings do not reach l at all.
func (s *statusRun) replaced(c *claim, l *topology.Listener, by *claim) {
	if !s.kind.bySection || by.policy == c.policy {
		return // a policy's own sectionName target: it applies there
	}
	msg := fmt.Sprintf("%s %s/%s targets listener %s and replaces this policy there whole", s.kind.name, by.policy.Obj.Namespace, by.policy.Obj.Name, l.ID())
	s.reject(c.policy, policy.TargetKey{Listener: l}, &policy.Rejection{Verdict: policy.VerdictOverridden, Reason: "Overridden", Message: msg, By: by.policy,
		Why: "it targets the listener itself, which is more specific"})
}

// replacedWhole records that a Gateway's or ListenerSet's policy (claim
// c) every listener of which a more specific policy took (replaced) is
// translated on none: Envoy Gateway skips each claimed section, so the
// policy applies nowhere there — not on the Gateway's (or set's) whole
// either, which merge and render then leave it out of.
func (s *statusRun) replacedWhole(c *claim) {
	covered := s.listenersOf(c.target)
	if len(covered) == 0 || s.rejected[c.policy] == nil {
		return
	}
	var by *policy.Rejection
	for _, l := range covered {
		rj := s.rejected[c.policy][policy.TargetKey{Listener: l}]
		if rj == nil || rj.Verdict != policy.VerdictOverridden {
			return
		}
		by = rj
	}
	s.reject(c.policy, c.target.key(), &policy.Rejection{Verdict: policy.VerdictOverridden, Reason: "Overridden",
		Message: fmt.Sprintf("every listener it covers is targeted by a more specific %s (as %s/%s), which replaces it there whole", s.kind.name, by.By.Obj.Namespace, by.By.Obj.Name),
		By:      by.By, Why: "they target the listeners themselves, which is more specific"})
}

// relateRoute: a route policy overrides the policies of the scopes its
// route's parentRefs name (routeScopes), or, with mergeType, merges into
// the most specific policy over each listener the parentRef allows (and
// overrides the less specific). Envoy Gateway builds a merged policy again
// on each listener (processBackendTrafficPolicyForRoute,
// processSecurityPolicyForRoute), so it may refuse it on some of the
// route's listeners only: the verdict is kept per listener (refusedOn).
func (s *statusRun) relateRoute(rc *claim) {
	rt := rc.target.route
	name := rt.Meta.Namespace + "/" + rt.Meta.Name
	for _, c := range s.routeScopes(rt) {
		s.note(c).add("routes", name)
	}
	if !decoded(rc.policy).merges {
		return
	}
	var reached []*topology.Listener
	refusals := map[*topology.Listener]*policy.Rejection{}
	for _, p := range rt.Parents {
		if p.Gateway == nil || !s.managed(p.Gateway) {
			continue
		}
		for _, l := range p.Allowed {
			if slices.Contains(reached, l) {
				continue
			}
			reached = append(reached, l)
			if r := s.mergeOnListener(rc, l, name); r != nil {
				refusals[l] = r
			}
		}
	}
	// the verdict: on the listeners the route is served through
	served := slices.DeleteFunc(reached, func(l *topology.Listener) bool {
		return !slices.ContainsFunc(rt.Parents, func(p *topology.Parent) bool { return slices.Contains(p.Listeners, l) })
	})
	s.refusedOn(rc, served, refusals)
}

// routeScopes are the claims a route with a policy of its own overrides,
// as Envoy Gateway's policyScopeGraph relates them: each parentRef to a
// Gateway (or ListenerSet) of its own records the route under the scope
// the parentRef names, whether the route is accepted there or not
// (processBackendTrafficPolicyForRoute: overrides.Add for every managed
// parentRef, before anything is translated). A Gateway's policy counts
// every route under it (GetWithDescendants); a listener's, the routes
// whose parentRef names it or the whole Gateway (or ListenerSet) it is
// on; a ListenerSet's, the routes whose parentRef names it or one of its
// listeners.
func (s *statusRun) routeScopes(rt *topology.Route) []*claim {
	var out []*claim
	add := func(c *claim) {
		if c != nil && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, p := range rt.Parents {
		if p.Gateway == nil || !s.managed(p.Gateway) {
			continue
		}
		var set *topology.ListenerSet
		if p.Ref.Kind != nil && *p.Ref.Kind == "ListenerSet" {
			if set = s.g.ListenerSet(string(*p.Ref.Namespace), string(p.Ref.Name)); set == nil {
				continue
			}
			add(s.bySet[set])
		}
		add(s.byGateway[p.Gateway])
		for _, l := range p.Gateway.Listeners {
			if l.Set == set && (p.Ref.SectionName == nil || *p.Ref.SectionName == "" || l.Name == *p.Ref.SectionName) {
				add(s.byListener[l])
			}
		}
	}
	return out
}

// relateUnclaimed: a route that only a policy naming a missing rule
// targets overrides, in the messages, the policies of the scopes its
// parentRefs name, as a claimed route does (unclaimedRoutes). Nothing of
// the policy applies there: only the Overridden message names it.
func (s *statusRun) relateUnclaimed(rt *topology.Route) {
	name := rt.Meta.Namespace + "/" + rt.Meta.Name
	for _, c := range s.routeScopes(rt) {
		s.note(c).add("routes", name)
	}
}

// mergeOnListener merges a route claim into the policy over one of the
// listeners its parentRefs allow, and returns the message of the merged
// policy's refusal there ("" when it is not refused). The policies it
// overrides there were noted by relateRoute.
func (s *statusRun) mergeOnListener(rc *claim, l *topology.Listener, name string) *policy.Rejection {
	c := s.parentOf(l)
	at := entry{key: l.Ancestor(), section: string(l.Name), gateway: l.Gateway}
	if mt := decoded(rc.policy).mergeType; c != nil && mt != "StrategicMerge" && mt != "JSONMerge" {
		// A merge type utils.Merge does not know fails the merge itself,
		// before anything is built: nothing of the policy applies there,
		// and the route keeps the parent's policy.
		refusal := "error merging policies: unsupported merge type: " + mt
		if s.kind == backendTrafficPolicy {
			refusal = conditionMessage(refusal) // translateBackendTrafficPolicyForRouteWithMerge's error
		}
		s.replace(rc.policy, at, cond("Accepted", false, "Invalid", refusal))
		s.finding(rc.policy, "spec.mergeType", fmt.Sprintf("Envoy Gateway cannot merge with mergeType %q (it merges StrategicMerge or JSONMerge) into %s %s/%s on listener %s; Envoy Gateway does not apply it there, the route takes %s/%s alone.",
			mt, s.kind.name, c.policy.Obj.Namespace, c.policy.Obj.Name, qualifiedID(l), c.policy.Obj.Namespace, c.policy.Obj.Name))
		return &policy.Rejection{Verdict: policy.VerdictRefused, Reason: "Invalid", Message: refusal}
	}
	if !rc.policy.IsValid() && s.builtPerListener(rc) {
		// built there, merged or alone, it fails there
		// built for this listener's parent alone
		s.set(rc.policy, at, cond("Accepted", false, "Invalid", joinedErrors(s.kind, rc.policy, rc.policy.Invalid, true, s.parentsOn(rc.target.route, l.Gateway))))
		return nil
	}
	if c == nil {
		return nil
	}
	merged := s.mergedRefusal(rc.target.route, rc.policy, c.policy)
	// A SecurityPolicy's merged spec meets the validator before anything
	// is built (processSecurityPolicyForRoute: validator(mergedPolicy),
	// then translateSecurityPolicyForRoute), so its refusal comes before
	// what building the parent's part fails on.
	validatedFirst := merged != nil && s.kind == securityPolicy
	if !c.policy.IsValid() && !validatedFirst {
		// Nothing valid to merge into: the merged result is invalid on
		// that listener (merge finds the parent invalid there), and
		// the parent counts as overridden.
		s.set(rc.policy, at, cond("Accepted", false, "Invalid", joinedErrors(s.kind, c.policy, c.policy.Invalid, true, s.parentsOn(rc.target.route, l.Gateway))))
		return nil
	}
	if err := merged; err != nil {
		refusal := conditionMessage(err.msg)
		s.replace(rc.policy, at, cond("Accepted", false, "Invalid", refusal))
		what := fmt.Sprintf("Envoy Gateway does not apply it there, the route takes %s/%s alone", c.policy.Obj.Namespace, c.policy.Obj.Name)
		if s.kind == backendTrafficPolicy {
			what = "Envoy Gateway answers the route's requests there with 500"
		}
		s.finding(rc.policy, refusalField(rc.policy, err), fmt.Sprintf("%s (this policy merged into %s %s/%s on listener %s); %s.",
			strings.TrimSuffix(refusal, "."), s.kind.name, c.policy.Obj.Namespace, c.policy.Obj.Name, qualifiedID(l), what))
		verdict := policy.VerdictRefused
		if s.kind == backendTrafficPolicy {
			verdict = policy.VerdictInvalid
		}
		return &policy.Rejection{Verdict: verdict, Reason: "Invalid", Message: refusal}
	}
	s.note(c).merged = appendNew(s.note(c).merged, name)
	s.set(rc.policy, at, cond("Merged", true, "Merged", "Merged with policy "+c.policy.Obj.Namespace+"/"+c.policy.Obj.Name))
	return nil
}

// refusedOn records where the merged policy is refused: on the whole
// route target when it is refused on every listener the route is
// attached through, else on the route as served through each refusing
// listener (policy.TargetKey.On) — its other listeners keep it. A
// refused BackendTrafficPolicy's errors answer the route 500 there
// (applyTrafficFeatureToRoute); a refused SecurityPolicy is not
// translated there, so the route keeps its parents' policies alone.
func (s *statusRun) refusedOn(rc *claim, reached []*topology.Listener, refusals map[*topology.Listener]*policy.Rejection) {
	if len(refusals) == 0 {
		return
	}
	whole := rc.target.key()
	if len(refusals) == len(reached) {
		r := *refusals[reached[0]]
		s.reject(rc.policy, whole, &r)
		return
	}
	for _, l := range reached {
		if r, ok := refusals[l]; ok {
			on := whole
			on.On = l
			r := *r
			s.reject(rc.policy, on, &r)
		}
	}
}

// mergedRefusal is what Envoy Gateway's validator refuses in route's
// policy merged into parent's: processSecurityPolicyForRoute validates the
// merged policy again on each listener (the TCP validator on a TCPRoute,
// validateSecurityPolicy on the others), so two policies that pass alone
// may not pass together. nil for the other kinds, which have no validator.
func (s *statusRun) mergedRefusal(rt *topology.Route, route, parent *policy.Policy) *fieldError {
	if s.kind == backendTrafficPolicy {
		return mergedTrafficProblem(route, parent)
	}
	if s.kind != securityPolicy {
		return nil
	}
	merged := mergedSecuritySpec(route, parent)
	if merged == nil {
		return nil
	}
	if rt.Kind == "TCPRoute" {
		return validateSecurityPolicyForTCP(merged)
	}
	return validateSecurityPolicy(merged)
}

// mergedTrafficProblem is what buildTrafficFeatures refuses in route's
// BackendTrafficPolicy merged over parent's that it refuses in neither
// alone (translateBackendTrafficPolicyForRouteWithMerge builds the merged
// policy per listener): the settings its builders check together, which
// the merge may take from different policies — a request buffer beside
// HTTP upgrades, a retry back-off's maxInterval below its baseInterval.
// Each policy's own values were checked alone (valueChecks).
func mergedTrafficProblem(route, parent *policy.Policy) *fieldError {
	if !trafficMergeMayConflict(route, parent) {
		return nil
	}
	m := mergedSpec[egv1a1.BackendTrafficPolicySpec](route, parent)
	if m == nil {
		return nil
	}
	if rb := m.RequestBuffer; rb != nil && len(m.HTTPUpgrade) > 0 {
		if n, ok := rb.Limit.AsInt64(); ok && n >= 0 && n <= math.MaxUint32 {
			return &fieldError{"requestBuffer", "RequestBuffer: requestBuffer cannot be used together with httpUpgrade"}
		}
	}
	if r := m.Retry; r != nil && r.PerRetry != nil && r.PerRetry.BackOff != nil {
		bo := r.PerRetry.BackOff
		if bo.BaseInterval != nil && bo.MaxInterval != nil {
			base, err1 := time.ParseDuration(string(*bo.BaseInterval))
			max, err2 := time.ParseDuration(string(*bo.MaxInterval))
			if err1 == nil && err2 == nil && base > 0 && max > 0 && base > max {
				return &fieldError{"retry.perRetry.backOff.maxInterval", "Retry: maxInterval cannot be less than baseInterval"}
			}
		}
	}
	return nil
}

// trafficMergeMayConflict reports whether the merge of route's and
// parent's specs can hold what mergedTrafficProblem refuses. A merge
// keeps, merges or drops what the two documents set and adds nothing, so
// without a request buffer in one and an HTTP upgrade in one, or a retry
// back-off in one, there is nothing to check and the merge (two typed
// round trips and a strategic merge patch, per route and listener) is
// not built.
func trafficMergeMayConflict(route, parent *policy.Policy) bool {
	rs, ok1 := decoded(route).spec.(*egv1a1.BackendTrafficPolicySpec)
	ps, ok2 := decoded(parent).spec.(*egv1a1.BackendTrafficPolicySpec)
	if !ok1 || !ok2 {
		return false // mergedSpec merges nothing either
	}
	buffer := rs.RequestBuffer != nil || ps.RequestBuffer != nil
	upgrade := len(rs.HTTPUpgrade) > 0 || len(ps.HTTPUpgrade) > 0
	return buffer && upgrade || hasBackOff(rs) || hasBackOff(ps)
}

// hasBackOff reports whether s sets a retry back-off.
func hasBackOff(s *egv1a1.BackendTrafficPolicySpec) bool {
	return s.Retry != nil && s.Retry.PerRetry != nil && s.Retry.PerRetry.BackOff != nil
}

// mergedSecuritySpec is route's SecurityPolicy spec merged over parent's
// with route's mergeType (utils.Merge), nil when a spec is missing.
func mergedSecuritySpec(route, parent *policy.Policy) *egv1a1.SecurityPolicySpec {
	return mergedSpec[egv1a1.SecurityPolicySpec](route, parent)
}

// mergedSpec is route's spec merged over parent's with route's mergeType
// (utils.Merge), nil when a spec is not a T.
func mergedSpec[T any](route, parent *policy.Policy) *T {
	rs, ok1 := decoded(route).spec.(*T)
	ps, ok2 := decoded(parent).spec.(*T)
	if !ok1 || !ok2 {
		return nil
	}
	// The merge works on the two policies' documents, as Envoy Gateway's
	// utils.Merge and effectiveValue do; the merged document is then read
	// back.
	doc, err1 := json.Marshal(ps)
	patch, err2 := json.Marshal(rs)
	if err1 != nil || err2 != nil {
		return nil
	}
	merged, err := mergeSpecs(reflect.TypeFor[T](), doc, patch, decoded(route).mergeType == "StrategicMerge")
	out := new(T)
	if err != nil || json.Unmarshal(merged, out) != nil {
		return nil
	}
	return out
}

// conditionMessage is Envoy Gateway's Error2ConditionMsg: the first letter
// upper-cased, a full stop at the end.
func conditionMessage(msg string) string {
	if msg == "" {
		return msg
	}
	r, n := utf8.DecodeRuneInString(msg)
	msg = string(unicode.ToUpper(r)) + msg[n:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// refusalField is where a finding about a merged policy's refusal points
// in p: the field the validator names when p sets it, else its mergeType.
func refusalField(p *policy.Policy, err *fieldError) string {
	top, _, _ := strings.Cut(err.path, ".")
	top, _, _ = strings.Cut(top, "[")
	if _, ok := p.Values[top]; ok {
		return "spec." + err.path
	}
	return "spec.mergeType"
}

// scopeOf lists the claims over a listener: its own, its ListenerSet's,
// its Gateway's.
func (s *statusRun) scopeOf(l *topology.Listener) []*claim {
	var out []*claim
	if c := s.byListener[l]; c != nil {
		out = append(out, c)
	}
	if l.Set != nil {
		if c := s.bySet[l.Set]; c != nil {
			out = append(out, c)
		}
	}
	if c := s.byGateway[l.Gateway]; c != nil {
		out = append(out, c)
	}
	return out
}

// parentOf is the policy a route policy on l merges into: the most
// specific claim over l.
func (s *statusRun) parentOf(l *topology.Listener) *claim {
	if sc := s.scopeOf(l); len(sc) > 0 {
		return sc[0]
	}
	return nil
}

// add records that name, of a category, overrides the policy.
func (n *notes) add(category, name string) {
	n.overridden[category] = appendNew(n.overridden[category], name)
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// overrideOrder is the order of the categories in Envoy Gateway's
// Overridden message.
var overrideOrder = []string{"route rules", "gateway listeners", "listenersets", "listenerset listeners", "routes"}

// finish writes Overridden and Merged on the entries of each claim that
// learnt of them (an invalid policy's too: Envoy Gateway still reports
// what overrides it).
func (s *statusRun) finish() {
	for _, c := range s.claims {
		n, ok := s.notes[c]
		if !ok {
			continue
		}
		var conds []metav1.Condition
		if len(n.merged) > 0 {
			conds = append(conds, cond("Merged", true, "Merged", fmt.Sprintf("This policy is being merged by other %s for these routes: [%s]", s.kind.plural, strings.Join(sorted(n.merged), " "))))
		}
		if msg := s.overriddenMessage(n); msg != "" {
			conds = append(conds, cond("Overridden", true, "Overridden", msg))
		}
		for _, a := range s.ancestors(c.target) {
			kept := slices.ContainsFunc(s.entries[c.policy], func(e *entry) bool { return e.key == a.key && e.section == a.section })
			if !kept && !s.evicted[c.policy] {
				continue
			}
			// an entry dropped to keep the list bounded comes back with
			// these alone
			for _, cd := range conds {
				s.set(c.policy, a, cd)
			}
		}
	}
}

func (s *statusRun) overriddenMessage(n *notes) string {
	if s.kind.bySection {
		var sections []string
		for _, cat := range []string{"gateway listeners", "listenerset listeners"} {
			for _, id := range n.overridden[cat] {
				sections = append(sections, id[strings.LastIndex(id, "/")+1:])
			}
		}
		if len(sections) == 0 {
			return ""
		}
		return fmt.Sprintf("There are existing %s that are overriding these sections [%s]", upperFirst(s.kind.plural), strings.Join(sorted(sections), " "))
	}
	var parts []string
	for _, cat := range overrideOrder {
		names := n.overridden[cat]
		if cat == "routes" {
			// A route with a policy that merges into this one counts as
			// merging, even where another of its rules' policies does not.
			names = slices.DeleteFunc(slices.Clone(names), func(r string) bool { return slices.Contains(n.merged, r) })
		}
		if len(names) > 0 {
			parts = append(parts, fmt.Sprintf("these %s: [%s]", cat, strings.Join(sorted(names), " ")))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	plural := s.kind.plural
	if n.overridden["route rules"] != nil && s.kind == backendTrafficPolicy {
		// processBackendTrafficPolicyForRoute alone writes the singular
		// ("other backendTrafficPolicy for these route rules"); the
		// SecurityPolicy and EnvoyExtensionPolicy ones keep the plural.
		plural = strings.TrimSuffix(s.kind.plural, "ies") + "y"
	}
	return fmt.Sprintf("This policy is being overridden by other %s for %s", plural, strings.Join(parts, " and "))
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func cond(typ string, ok bool, reason, msg string) metav1.Condition {
	st := metav1.ConditionFalse
	if ok {
		st = metav1.ConditionTrue
	}
	return metav1.Condition{Type: typ, Status: st, Reason: reason, Message: msg}
}

// defaultHostRefused makes c's policy Invalid on each listener it
// covers whose default host translateHTTP1Settings cannot find
// (http10DefaultHost): Envoy Gateway translates a ClientTrafficPolicy
// listener by listener, so its errors there answer that listener's
// routes 500 and leave the others with the policy. It reports whether
// any listener refused it.
func (s *statusRun) defaultHostRefused(c *claim, ancestors []entry) bool {
	p := c.policy
	covered := s.listenersOf(c.target)
	refusals := map[*topology.Listener]string{}
	var msgs []string
	for _, l := range covered {
		if c.skipped[l] {
			continue // not translated: refused already (sharedPort)
		}
		msg := s.http10DefaultHost(p, l)
		if msg == "" {
			continue
		}
		s.finding(p, "spec.http1.http10.useDefaultHost", fmt.Sprintf("%s (listener %s); Envoy Gateway refuses the policy there.", strings.TrimSuffix(msg, "."), qualifiedID(l)))
		msg = withBuilderError(p, msg)
		refusals[l], msgs = msg, appendNew(msgs, msg)
	}
	if len(msgs) == 0 {
		return false
	}
	for _, a := range ancestors {
		s.set(p, a, cond("Accepted", false, "Invalid", strings.Join(msgs, "; ")))
		s.warn(p, a, c)
	}
	s.rejectOn(c, covered, refusals, policy.VerdictInvalid)
	return true
}

// http10DefaultHost is translateHTTP1Settings' check of a
// ClientTrafficPolicy's http1.http10.useDefaultHost on one HTTP listener
// it covers (listenerDefaultHost). It depends on the routes attached, so
// it is decided here and not when the policy is decoded. "" when l takes
// the policy.
func (s *statusRun) http10DefaultHost(p *policy.Policy, l *topology.Listener) string {
	spec, ok := decoded(p).spec.(*egv1a1.ClientTrafficPolicySpec)
	if !ok || spec.HTTP1 == nil || spec.HTTP1.HTTP10 == nil || spec.HTTP1.HTTP10.UseDefaultHost == nil || !*spec.HTTP1.HTTP10.UseDefaultHost {
		return ""
	}
	if l.Protocol != gwv1.HTTPProtocolType && l.Protocol != gwv1.HTTPSProtocolType {
		return "" // no HTTP settings there
	}
	_, problem := listenerDefaultHost(l)
	return problem
}

// listenerDefaultHost is the HTTP/1.0 default host Envoy Gateway gives an
// HTTP listener (translateHTTP1Settings, useDefaultHost): the listener's
// hostname when that is not a wildcard; on a wildcard-only listener (no
// hostname, or *.x) it is taken from the routes, which Envoy Gateway can
// do only when exactly one of the listener's routes (one per route
// hostname, rule and match, as its IR counts them) has a hostname without
// a wildcard; otherwise the problem that refuses the policy on l. Status
// (the policy's verdict on l) and render (the host its connection manager
// gives, Target.HTTP10DefaultHost) both ask it.
func listenerDefaultHost(l *topology.Listener) (host, problem string) {
	if l.Hostname != nil && *l.Hostname != "" && !strings.Contains(string(*l.Hostname), "*") {
		return string(*l.Hostname), ""
	}
	switch n, named := namedHostRoutes(l); {
	case n == 0:
		return "", "HTTP1: cannot set http10 default host on listener with only wildcard hostnames."
	case n > 1:
		return "", "HTTP1: cannot set http10 default host on listener with only wildcard hostnames and more than one possible default route."
	default:
		return named, ""
	}
}

// namedHostRoutes counts the Envoy Gateway IR routes of a listener whose
// hostname has no wildcard: for each HTTPRoute and GRPCRoute attached, one
// per hostname it serves there, rule and match (a rule without matches is
// one route). A route that names no hostname serves the listener's, a
// wildcard. named is the last such hostname (the one, when n is 1).
func namedHostRoutes(l *topology.Listener) (n int, named string) {
	for _, a := range l.Routes {
		per := 0
		for _, r := range a.Route.Rules {
			switch {
			case r.HTTP != nil:
				per += max(1, len(r.HTTP.Matches))
			case r.GRPC != nil:
				per += max(1, len(r.GRPC.Matches))
			}
		}
		for _, h := range a.Hostnames {
			if !strings.Contains(h, "*") && per > 0 {
				n += per
				named = h
			}
		}
	}
	return n, named
}

// withBuilderError puts msg, an HTTP1 error, among p's own translation
// errors where Envoy Gateway's translateClientTrafficPolicyForListener
// meets it (joinedErrors: after the TCP keepalive, connection, timeout
// and header errors, before the rest).
func withBuilderError(p *policy.Policy, msg string) string {
	return joinedErrors(clientTrafficPolicy, p, append(slices.Clone(p.Invalid), diag.Diagnostic{Field: "spec.http1.http10.useDefaultHost", Message: msg}), false, 0)
}
