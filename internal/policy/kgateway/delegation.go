package kgateway

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Route delegation as kgateway's HTTPRoute translator does it: a parent
// HTTPRoute rule whose backendRef is an HTTPRoute (by name, RouteWildcard
// for every route of a namespace, or by label: group DelegationLabelGroup,
// kind label) hands the requests its match selects to the child routes'
// rules. Children take
// the parent's hostnames and listeners; their matches must fall within the
// parent's unless they inherit the parent's matcher. Topology walks the
// trees by these rules (Delegation); merge folds each parent's policies
// into its children's by TrafficPolicy's inherited-policy-priority
// annotation (Kind.InheritStrategy).

// The keys kgateway's delegation reads.
const (
	// DelegationLabel is the label of child HTTPRoutes that a parent's
	// backendRef of group DelegationLabelGroup, kind label, selects by
	// value (the backendRef's name).
	DelegationLabel      = "delegation.kgateway.dev/label"
	DelegationLabelGroup = "delegation.kgateway.dev"
	// InheritParentMatcher is the child route annotation that keeps its
	// matches under the parent's (joined to them) instead of requiring
	// them within it.
	InheritParentMatcher = "delegation.kgateway.dev/inherit-parent-matcher"
	// RouteWildcard is the name of a delegating backendRef (kind
	// HTTPRoute) that selects every HTTPRoute of its namespace as a child,
	// rather than the one so named.
	RouteWildcard = "*"
)

// wildcards are the reference names kgateway reads as selecting rather
// than naming (policy.Family.Wildcards).
var wildcards = map[model.GroupKind]string{{Group: model.GatewayGroup, Kind: "HTTPRoute"}: RouteWildcard}

// Delegation is kgateway's route delegation (policy.Family.Delegation).
var Delegation = topology.DelegationRules{Select: selectChildren, Accepts: acceptsParent, Keep: keptRules, Refuse: refuseDelegatee, Unresolved: unresolvedDelegation,
	Widen: "set " + InheritParentMatcher + `: "true"`, Inherits: inheritedFilters}

// inheritedFilters are the Gateway API filters a delegated child rule of
// route rt takes from the delegating rules above it, and the
// sessionPersistence it takes from them (topology.DelegationRules.
// Inherits). kgateway keeps a rule's filters and its own rule fields
// (timeouts, retry, sessionPersistence) as built-in policies of the rule
// (its ExtensionRefs and AttachedPolicies), each carrying its route's
// inherited-policy-priority, and applies a delegating parent's to each
// child route after the child's own, nearest parent first
// (irtranslator/route.go@0705bfec: runRoutePlugins), each as its apply
// does (krtcollections/builtin.go@15b44643): header modifiers and
// mirrors are appended whatever the priority; a URLRewrite's hostname
// and its path, and a sessionPersistence, are set where IsSettable allows
// under the parent route's priority — only where neither the child nor
// a nearer parent set one under the default (ShallowMergePreferChild,
// and DeepMergePreferChild), always under ShallowMergePreferParent and
// DeepMergePreferParent, replacing what was set (so the farthest such
// parent wins). A mirror keeps the backend the parent's rule resolved.
// The rule's timeouts and retry are merge's (RuleFields, folded with the
// same priority).
func inheritedFilters(rt *topology.Route, rule *topology.Rule, via []*topology.Rule) []topology.InheritedFilter {
	var out []topology.InheritedFilter
	host, path := rewriteSet(rule)
	session := rule.HTTP != nil && rule.HTTP.SessionPersistence != nil
	below := rt
	for _, parent := range via {
		var prefersParent bool
		if below != nil {
			below = below.DelegatingRoute(parent)
		}
		if below != nil {
			switch (Kind{}).InheritStrategy(below.Meta.Annotations) {
			case policy.OverridableShallow, policy.OverridableDeep:
				prefersParent = true
			}
		}
		if parent.HTTP == nil {
			continue
		}
		mirror := 0
		for _, f := range parent.HTTP.Filters {
			switch {
			case f.RequestHeaderModifier != nil, f.ResponseHeaderModifier != nil:
				out = append(out, topology.InheritedFilter{Filter: f, From: parent})
			case f.RequestMirror != nil:
				in := topology.InheritedFilter{Filter: f, From: parent}
				if mirror < len(parent.Mirrors) {
					in.Mirror = parent.Mirrors[mirror]
				}
				mirror++
				out = append(out, in)
			case f.URLRewrite != nil:
				rw := gwv1.HTTPURLRewriteFilter{}
				if f.URLRewrite.Hostname != nil && (!host || prefersParent) {
					rw.Hostname, host = f.URLRewrite.Hostname, true
				}
				if rewritesPath(f.URLRewrite.Path) && (!path || prefersParent) {
					rw.Path, path = f.URLRewrite.Path, true
				}
				if rw.Hostname != nil || rw.Path != nil {
					out = append(out, topology.InheritedFilter{Filter: gwv1.HTTPRouteFilter{Type: gwv1.HTTPRouteFilterURLRewrite, URLRewrite: &rw}, From: parent})
				}
			}
		}
		if sp := parent.HTTP.SessionPersistence; sp != nil && (!session || prefersParent) {
			session = true
			out = append(out, topology.InheritedFilter{From: parent, Session: sp})
		}
	}
	return out
}

// rewriteSet reports whether a rule's own URLRewrite filters set a host
// and a path rewrite.
func rewriteSet(rule *topology.Rule) (host, path bool) {
	if rule.HTTP == nil {
		return false, false
	}
	for _, f := range rule.HTTP.Filters {
		if f.URLRewrite != nil {
			host = host || f.URLRewrite.Hostname != nil
			path = path || rewritesPath(f.URLRewrite.Path)
		}
	}
	return host, path
}

// rewritesPath reports whether a URLRewrite's path modifier rewrites the
// path: kgateway applies a full path or a prefix replacement only when it
// is not empty (krtcollections/builtin.go: urlRewriteIr.apply,
// `FullReplace != ""`, `PrefixReplace != ""`), and the Gateway API lets
// either be "" — such a modifier sets nothing, so a farther parent's path,
// or a TrafficPolicy's urlRewrite, still applies.
func rewritesPath(p *gwv1.HTTPPathModifier) bool {
	switch {
	case p == nil:
		return false
	case p.Type == gwv1.FullPathHTTPPathModifier:
		return p.ReplaceFullPath == nil || *p.ReplaceFullPath != ""
	case p.Type == gwv1.PrefixMatchHTTPPathModifier:
		return p.ReplacePrefixMatch == nil || *p.ReplacePrefixMatch != ""
	}
	return false
}

// selectChildren: a backendRef delegates when it is an HTTPRoute (the one
// named, or every one of its namespace for RouteWildcard) or a label
// selector (group DelegationLabelGroup, kind label, any case: the routes
// whose DelegationLabel has the backendRef's name as its value).
func selectChildren(b *topology.Backend) (topology.ChildSelector, bool) {
	sel := topology.ChildSelector{Namespace: b.Namespace, Name: b.Name}
	switch {
	case b.Group == DelegationLabelGroup && strings.EqualFold(b.Kind, "label"):
		sel.Label = DelegationLabel
	case b.Group == model.GatewayGroup && b.Kind == "HTTPRoute":
		sel.All = b.Name == RouteWildcard
	default:
		return topology.ChildSelector{}, false
	}
	return sel, true
}

// acceptsParent: a child without parentRefs takes every parent that
// selects it; one with parentRefs only the HTTPRoutes of the Gateway API
// group they name (a parentRef without a group has the API's default,
// that group).
func acceptsParent(child, parent *topology.Route) bool {
	if len(child.ParentRefs) == 0 {
		return true
	}
	for _, p := range child.ParentRefs {
		ns := child.Meta.Namespace
		if p.Namespace != nil && *p.Namespace != "" {
			ns = string(*p.Namespace)
		}
		if (p.Group == nil || string(*p.Group) == model.GatewayGroup) && p.Kind != nil && *p.Kind == "HTTPRoute" && string(p.Name) == parent.Meta.Name && ns == parent.Meta.Namespace {
			return true
		}
	}
	return false
}

// refuseDelegatee: kgateway refuses a delegatee that sets hostnames, which
// it inherits from its parent (Accepted False, UnsupportedValue, for that
// parent).
func refuseDelegatee(child *topology.Route) (reason, message, why string) {
	if len(child.Hostnames) == 0 {
		return "", "", ""
	}
	return "UnsupportedValue", "spec.hostnames must be unset on a delegatee route as they are inherited from the parent route",
		"set spec.hostnames, which a delegatee inherits from its parent"
}

// unresolvedDelegation is kgateway's ResolvedRefs False for a delegating
// backendRef: RefNotPermitted for one closing a cycle, BackendNotFound
// ("unresolved reference") for one that selects or keeps no route.
func unresolvedDelegation(parent *topology.Route, b *topology.Backend, cycle *topology.Route) (reason, message string) {
	ref := fmt.Sprintf("%s/%s/%s/%s", b.Group, b.Kind, b.Namespace, b.Name)
	if cycle != nil {
		return "RefNotPermitted", fmt.Sprintf("%s: ignoring child route %s for parent %s: cyclic reference detected while evaluating delegated routes", ref, cycle.Key().Ref(), parent.Key().Ref())
	}
	return "BackendNotFound", ref + ": unresolved reference"
}

// inheritsMatcher reports whether a child route inherits its parent's
// matcher (InheritParentMatcher: true, yes or enabled, any case).
func inheritsMatcher(r *topology.Route) bool {
	switch strings.ToLower(r.Meta.Annotations[InheritParentMatcher]) {
	case "true", "yes", "enabled":
		return true
	}
	return false
}

// keptRules are the rules of a child kgateway keeps under a parent match
// (topology.DelegationRules.Keep), each with the matches it keeps, merged
// with the parent's when the child inherits the parent's matcher; a rule
// keeping no match is dropped.
func keptRules(child *topology.Route, parent gwv1.HTTPRouteMatch) []topology.KeptRule {
	inherit := inheritsMatcher(child)
	var out []topology.KeptRule
	for _, rule := range child.Rules {
		if rule.HTTP == nil {
			continue
		}
		var ms []gwv1.HTTPRouteMatch
		own := rule.HTTP.Matches
		switch {
		case inherit && len(own) == 0:
			ms = append(ms, parent)
		case len(own) == 0:
			own = topology.RuleMatches(rule) // every path, as the API defaults it
		}
		for _, m := range own {
			switch {
			case inherit:
				ms = append(ms, inheritMatch(parent, m))
			case withinMatch(parent, m):
				ms = append(ms, m)
			}
		}
		if len(ms) > 0 {
			out = append(out, topology.KeptRule{Rule: rule, Matches: ms})
		}
	}
	return out
}

// withinMatch is kgateway's test for a child match under a parent match it
// does not inherit: the parent matches a path prefix the child's path
// starts with (as a string), and the child repeats every header and query
// param match of the parent, and its method if it has one. A match without
// a path matches the prefix "/", as the API defaults it.
func withinMatch(parent, child gwv1.HTTPRouteMatch) bool {
	pt, pv := topology.PathOf(parent.Path)
	if pt != gwv1.PathMatchPathPrefix {
		return false
	}
	if _, cv := topology.PathOf(child.Path); !strings.HasPrefix(cv, pv) {
		return false
	}
	if parent.Method != nil && (child.Method == nil || *child.Method != *parent.Method) {
		return false
	}
	return containsAll(child.Headers, parent.Headers, headerKey) && containsAll(child.QueryParams, parent.QueryParams, queryKey)
}

func headerKey(h gwv1.HTTPHeaderMatch) string {
	t := gwv1.HeaderMatchExact
	if h.Type != nil {
		t = *h.Type
	}
	return string(h.Name) + "\x00" + string(t) + "\x00" + h.Value
}

func queryKey(q gwv1.HTTPQueryParamMatch) string {
	t := gwv1.QueryParamMatchExact
	if q.Type != nil {
		t = *q.Type
	}
	return string(q.Name) + "\x00" + string(t) + "\x00" + q.Value
}

// containsAll reports whether have holds every element of want.
func containsAll[T any](have, want []T, key func(T) string) bool {
	if len(want) == 0 {
		return true
	}
	set := make(map[string]bool, len(have))
	for _, h := range have {
		set[key(h)] = true
	}
	for _, w := range want {
		if !set[key(w)] {
			return false
		}
	}
	return true
}

// inheritMatch merges a parent match into a child's that inherits it: the
// paths joined (the child's type kept), headers and query params of both
// (the parent's winning a name both use, sorted by name), and the parent's
// method when it has one.
func inheritMatch(parent, child gwv1.HTTPRouteMatch) gwv1.HTTPRouteMatch {
	out := *child.DeepCopy()
	t, cv := gwv1.PathMatchPathPrefix, ""
	if child.Path != nil && child.Path.Type != nil {
		t = *child.Path.Type
	}
	if child.Path != nil && child.Path.Value != nil {
		cv = *child.Path.Value
	}
	pv := ""
	if parent.Path != nil && parent.Path.Value != nil {
		pv = *parent.Path.Value
	}
	joined := cmp.Or(path.Join(pv, cv), "/")
	out.Path = &gwv1.HTTPPathMatch{Type: &t, Value: &joined}
	out.Headers = mergeByName(parent.Headers, child.Headers, func(h gwv1.HTTPHeaderMatch) string { return string(h.Name) })
	out.QueryParams = mergeByName(parent.QueryParams, child.QueryParams, func(q gwv1.HTTPQueryParamMatch) string { return string(q.Name) })
	if parent.Method != nil {
		m := *parent.Method
		out.Method = &m
	}
	return out
}

// mergeByName is parent's elements and child's whose name parent does not
// use, sorted by name.
func mergeByName[T any](parent, child []T, name func(T) string) []T {
	if len(parent)+len(child) == 0 {
		return nil
	}
	seen := map[string]bool{}
	out := make([]T, 0, len(parent)+len(child))
	for _, x := range slices.Concat(parent, child) {
		if !seen[name(x)] {
			seen[name(x)] = true
			out = append(out, x)
		}
	}
	slices.SortStableFunc(out, func(a, b T) int { return cmp.Compare(name(a), name(b)) })
	return out
}
