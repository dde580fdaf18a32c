package policy

import (
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/topology"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AncestorStatus is one ancestor entry of a policy's status.
type AncestorStatus struct {
	Ancestor model.Key
	Section  string
	// Port is the ancestor reference's port, 0 for none: a controller
	// reporting a route's parentRef as written keeps its port.
	Port int32
	// Unqualified: the reference is written without a namespace (a
	// route's parentRef reported as written, which named none); Ancestor
	// holds the namespace it resolves to. Such a reference is another
	// ancestor than one naming that namespace.
	Unqualified bool
	// Gateway is the Gateway whose GatewayClass's controller writes the
	// entry; nil when it is not in the input.
	Gateway    *topology.Gateway
	Conditions []metav1.Condition
}

// AncestorReport is how a controller reports the ancestors of a policy
// whose status follows merge (one of a family without AncestorStatuses):
// the objects status lists a policy under, for the resources it
// configures. Unset parts report against the Gateway alone.
type AncestorReport struct {
	// ListenerOwners: a policy configuring a listener's resources is
	// reported against the listener's owner — the ListenerSet of a
	// listener it adds, else the Gateway — and a whole-Gateway policy
	// against every owner of the Gateway's listeners.
	ListenerOwners bool
	// SectionName: a policy on a route keeps each parentRef's sectionName
	// in the ancestor it is reported against.
	SectionName bool
	// PerDelegationPath: a delegated route's rule, merged apart along
	// each parent path, is reported against the parents of the path
	// that reaches it rather than every parent of the route.
	PerDelegationPath bool
	// KeepByName: past the kind's MaxAncestors, the entries kept are the
	// first in the order the controller writes the list in — by group,
	// kind, name, sectionName and port, the namespace last, compared as
	// one "group/kind/name/section/port.namespace" string — and the
	// controller writes it over the entries other controllers wrote, so
	// the cut takes theirs too. Unset: the first as status prints them
	// (kind, namespace, name).
	KeepByName bool
}

// AncestorReport is how a policy of kind k is reported against its
// ancestors (Family.Ancestors): its family's, else — for a kind whose
// family declares none, or that has no family — the default controller's
// family's, else the first registered family's that declares one.
func (r *Registry) AncestorReport(k Kind) AncestorReport {
	if f := r.FamilyOf(k); f != nil && f.Ancestors != nil {
		return *f.Ancestors
	}
	var first *AncestorReport
	for _, f := range r.Families() {
		if f.Ancestors == nil {
			continue
		}
		if f.Controller != nil && f.Controller.Default {
			return *f.Ancestors
		}
		if first == nil {
			first = f.Ancestors
		}
	}
	if first != nil {
		return *first
	}
	return AncestorReport{}
}

// TargetKey names one target a policy reaches: exactly one field is set —
// a whole Gateway, a whole ListenerSet, a listener (by sectionName, or
// covered by a less specific policy), a whole route, or a route rule —
// except that a route or a rule may carry On.
type TargetKey struct {
	Gateway  *topology.Gateway
	Set      *topology.ListenerSet
	Listener *topology.Listener
	Route    *topology.Route
	Rule     *topology.Rule
	// On narrows a Route or Rule target to the route as served through
	// one listener: a controller that builds a route's policy again per
	// listener (merged into that listener's policy) may refuse it on
	// some of the route's listeners only, and the route is then served
	// differently on each.
	On *topology.Listener
	// Backend is a backend object (a Service, a registered backendRef
	// kind), and Port the port a sectionName names on it ("" for the
	// whole object).
	Backend model.Key
	Port    string
}

// Verdict states, the controller's decision on a policy at one target it
// reaches but does not apply there.
const (
	// VerdictConflicted: another policy of the kind took the target first
	// (Envoy Gateway: Accepted False, Conflicted).
	VerdictConflicted = "Conflicted"
	// VerdictOverridden: a more specific policy of the kind replaces this
	// one whole on the target (Envoy Gateway: a listener's
	// ClientTrafficPolicy over its Gateway's).
	VerdictOverridden = "Overridden"
	// VerdictInvalid: the controller refuses the policy at this target
	// for what the target holds, though it is valid elsewhere (Envoy
	// Gateway: a ClientTrafficPolicy's http10 default host on a
	// wildcard-only listener). It is invalid there: it takes no part in
	// the merge, and what its kind does with an invalid policy's targets
	// (an answer of 500) happens there.
	VerdictInvalid = "Invalid"
	// VerdictRefused: the controller refuses the policy at this target
	// before translating anything of it there: it takes no part, and
	// nothing else changes (Envoy Gateway: a ClientTrafficPolicy on one of
	// several plain HTTP listeners that share a port).
	VerdictRefused = "Refused"
)

// Rejection is why a controller does not apply a policy on a target it
// reaches: the verdict, the condition reason status writes, and its
// message. By names the policy that has the target instead, when one does.
type Rejection struct {
	Verdict string
	Reason  string
	Message string
	By      *Policy
	// Why says what put By first: its level, or — at one level — its
	// creation time, or, when the times are equal or absent, the order
	// the controller was given the objects in.
	Why string
}

// Because says why first precedes p at one target under Precedes (not
// weight): its creation time, or the order the two were given in.
func Because(first, p *Policy) string {
	const stamp = "2006-01-02T15:04:05Z07:00"
	if !first.Created.Equal(p.Created) && !first.Created.IsZero() && !p.Created.IsZero() {
		return "it is older: created " + first.Created.UTC().Format(stamp) + ", this one " + p.Created.UTC().Format(stamp)
	}
	why := "neither has a creationTimestamp"
	if !first.Created.IsZero() || !p.Created.IsZero() {
		why = "their creationTimestamps are equal or one is missing"
	}
	return why + ", so the order the controller is given them decides (here the input's order; in a cluster, one the repository cannot control)"
}

// ForeignDecider decides, for a controller (Family.ForeignStatuses), the
// status of ps, the policies of one kind it does not own: Ancestors are
// the entries it writes (on its own Gateways' uses, own reporting which
// Gateways are its, and on callers, the input's policies whose targets
// attach found), Rejected the targets where it does not apply a policy;
// verdict is the controller's own verdict on a route (Family.ValidateRoute;
// nil when it has none), which says the backendRefs it refuses; env is
// the pass's (the deployment's settings, the backends' policies). It
// decides every policy of ps: one missing from Ancestors has no entry of
// the controller's.
type ForeignDecider func(env *Env, ps, callers []*Policy, g *topology.Graph, own func(*topology.Gateway) bool, verdict func(*topology.Route) *RouteVerdict) Decisions

// String is "Reason: Message", the way every view names the verdict.
func (r *Rejection) String() string { return r.Reason + ": " + r.Message }

// Decisions are what a controller that decides its policies' status itself
// (Family.AncestorStatuses) decides for every policy of one kind, once: the
// ancestor statuses status prints, and per policy the targets it does not
// apply on, with why. merge leaves rejected policies out of those targets,
// and every view reads the rejection instead of deciding again.
type Decisions struct {
	Ancestors map[*Policy][]AncestorStatus
	Rejected  map[*Policy]map[TargetKey]*Rejection
	// Diagnostics are the findings the decisions make: a policy the
	// controller refuses at some of its targets only (Invalid there, for
	// what those targets hold), at the field at fault.
	Diagnostics []diag.Diagnostic
}
