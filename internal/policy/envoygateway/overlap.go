package envoygateway

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/parallel"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// Envoy Gateway warns when routes overlap (route.go: checkRouteOverlaps):
// on one listener, two HTTPRoutes or GRPCRoutes with an Envoy route of the
// same hostname and the same path, header, query parameter and cookie
// matches match the same requests. Each parent whose listeners hold such
// a route gets RouteRulesOverlap True, naming the other routes. Rules of
// one route that overlap each other do not count.

// overlapKey is buildOverlapKey's: an Envoy route's hostname and its
// matches, each in a canonical form.
type overlapKey struct {
	hostname, path, headers, query, cookies string
}

// overlapIndex is one listener's Envoy routes bucketed by overlapKey:
// the routes (kind/namespace/name) of each key, and each route's keys
// with the rule they come from.
type overlapIndex struct {
	routes map[overlapKey][]string
	keys   map[string][]ruleKey
}

// ruleKey is an Envoy route's key and the index of the rule it comes from.
type ruleKey struct {
	key  overlapKey
	rule int
}

// overlapMemo names a listener's index among what a pass derives once
// (policy.Env.Memo): every route on the listener asks for it.
type overlapMemo struct {
	l   *topology.Listener
	set *policy.Set
}

// overlaps writes RouteRulesOverlap on each parent of the route whose
// listeners hold another route matching the same requests, and the
// finding (LintRoutesOverlap) at each rule of the route that meets
// another route's, from the same index.
func (rv *routeValidation) overlaps() {
	if rv.rt.Kind != "HTTPRoute" && rv.rt.Kind != "GRPCRoute" {
		return
	}
	self := routeID(rv.rt)
	byRule := map[int][]string{} // the routes each rule meets, and where
	for _, p := range rv.rt.Parents {
		if !p.Accepted || p.Gateway == nil {
			continue
		}
		var others []string
		for _, l := range p.Listeners {
			idx := rv.env.Memo(overlapMemo{l, rv.set}, func() any { return buildOverlapIndex(l, rv.set) }).(*overlapIndex)
			for _, rk := range idx.keys[self] {
				for _, o := range idx.routes[rk.key] {
					if o != self {
						others = append(others, routeDisplayName(o))
						byRule[rk.rule] = append(byRule[rk.rule], fmt.Sprintf("%s on listener %s#%s", routeDisplayName(o), p.Gateway.Namespace+"/"+p.Gateway.Name, l.Name))
					}
				}
			}
		}
		if len(others) == 0 {
			continue
		}
		slices.Sort(others)
		others = slices.Compact(others)
		if rv.verdict.ParentConditions == nil {
			rv.verdict.ParentConditions = map[int][]policy.Condition{}
		}
		rv.verdict.ParentConditions[p.Index] = append(rv.verdict.ParentConditions[p.Index], policy.Condition{
			Type: "RouteRulesOverlap", Status: string(metav1.ConditionTrue), Reason: "RouteRulesOverlap",
			Message: "Overlapping match conditions with route(s): " + strings.Join(others, ", "),
		})
	}
	rv.overlapFindings(byRule)
}

// maxOverlapsNamed is how many overlapping routes a finding names.
const maxOverlapsNamed = 3

// overlapFindings reports each rule that matches the same requests as
// another route's: one finding per rule, naming the routes and listeners.
func (rv *routeValidation) overlapFindings(byRule map[int][]string) {
	for _, i := range slices.Sorted(maps.Keys(byRule)) {
		if i < 0 || i >= len(rv.rt.Rules) {
			continue
		}
		rule := rv.rt.Rules[i].Rule
		where := byRule[i]
		slices.Sort(where)
		where = slices.Compact(where)
		if n := len(where) - maxOverlapsNamed; n > 0 {
			// many routes of one match: the first few say it
			where = append(where[:maxOverlapsNamed:maxOverlapsNamed], fmt.Sprintf("%d more", n))
		}
		rv.verdict.Diagnostics = append(rv.verdict.Diagnostics, diag.Diagnostic{Code: LintRoutesOverlap.Code, Severity: LintRoutesOverlap.Severity,
			Object: rv.rt.Key().Ref(), Field: rule.Path, Pos: rv.rt.Src.FieldPos(rule.Path),
			Message: fmt.Sprintf("rule %s matches the same requests (hostname, path, headers, query parameters, cookies) as %s: Envoy serves them by one route only, and Envoy Gateway sets RouteRulesOverlap on the route's status",
				rule.Section(), strings.Join(where, ", "))})
	}
}

func routeID(rt *topology.Route) string {
	return rt.Kind + "/" + rt.Meta.Namespace + "/" + rt.Meta.Name
}

// routeDisplayName is "Kind namespace/name" (routeDisplayNameFromKey).
func routeDisplayName(id string) string {
	kind, rest, _ := strings.Cut(id, "/")
	return kind + " " + rest
}

// buildOverlapIndex buckets the Envoy routes Envoy Gateway builds on l: of
// each HTTPRoute and GRPCRoute attached, per hostname it serves there,
// per rule it translates (not one whose matches or cookie matches do
// not compile, nor a route with too many rules), per match. A listener
// that is not ready gets none. Each route's keys are its own to work out
// (attachedKeys): in parallel, bucketed in the listener's route order —
// the validation of every other route on the listener waits for the
// index.
func buildOverlapIndex(l *topology.Listener, set *policy.Set) *overlapIndex {
	idx := &overlapIndex{routes: map[overlapKey][]string{}, keys: map[string][]ruleKey{}}
	if !listenerReady(l) {
		return idx
	}
	ids := make([]string, len(l.Routes))
	keys := make([][]ruleKey, len(l.Routes))
	parallel.Chunks(len(l.Routes), 16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ids[i], keys[i] = attachedKeys(l.Routes[i], set)
		}
	})
	for i, id := range ids {
		for _, rk := range keys[i] {
			if !slices.Contains(idx.routes[rk.key], id) {
				idx.routes[rk.key] = append(idx.routes[rk.key], id)
			}
			idx.keys[id] = append(idx.keys[id], rk)
		}
	}
	return idx
}

// attachedKeys are the keys of the Envoy routes an attachment of a route
// to a listener gives (buildOverlapIndex), with the route's id; none for
// a route Envoy Gateway does not build there.
func attachedKeys(a *topology.Attachment, set *policy.Set) (id string, out []ruleKey) {
	rt := a.Route
	if rt.Kind != "HTTPRoute" && rt.Kind != "GRPCRoute" || !a.Parent.Accepted || ruleCountProblem(rt.Route) != "" {
		return "", nil
	}
	id = routeID(rt)
	hosts := a.Hostnames
	if len(hosts) == 0 {
		hosts = []string{"*"}
	}
	for _, rule := range rt.Rules {
		if matchProblem(rule.Rule) != nil {
			continue
		}
		filterMatches := ruleFilterCookies(rule.Rule, rt.Meta.Namespace, set)
		if cookieMatchProblem(rule.Rule, slices.Concat(filterMatches...)) != nil {
			continue
		}
		for _, k := range ruleMatchKeys(rule.Rule, filterMatches) {
			for _, h := range hosts {
				k.hostname = h
				out = append(out, ruleKey{k, rule.Index})
			}
		}
	}
	return id, out
}

// listenerReady: Envoy Gateway builds routes only on a listener it
// programs (ListenerContext.IsReady).
func listenerReady(l *topology.Listener) bool {
	if l.Unserved != "" || l.Conflicted {
		return false
	}
	return !slices.ContainsFunc(l.Conditions, func(c metav1.Condition) bool {
		return c.Type == "Programmed" && c.Status == metav1.ConditionFalse
	})
}

// ruleFilterCookies are the cookie matches of the rule's HTTPRouteFilter
// with matches, one list per match (the first such filter: a second
// drops the rule's matches).
func ruleFilterCookies(rule *model.Rule, ns string, set *policy.Set) [][]egv1a1.HTTPCookieMatch {
	for _, f := range ruleFilters(rule) {
		ref := f.ExtensionRef
		if ref == nil || string(ref.Group) != Group || string(ref.Kind) != httpRouteFilter.name {
			continue
		}
		hrf := set.Get(model.Key{Group: Group, Kind: httpRouteFilter.name, Namespace: ns, Name: string(ref.Name)})
		if hrf == nil {
			continue
		}
		spec, ok := decoded(hrf).spec.(*egv1a1.HTTPRouteFilterSpec)
		if !ok || len(spec.Matches) == 0 {
			continue
		}
		out := make([][]egv1a1.HTTPCookieMatch, len(spec.Matches))
		for i, m := range spec.Matches {
			out[i] = m.Cookies
		}
		return out
	}
	return nil
}

// ruleMatchKeys are the keys (hostname unset) of the Envoy routes of a
// rule: one per match, each match crossed with the filter's matches when
// it has some (buildRouteMatchCombinations), one for a rule without
// matches; an HTTPRoute rule with a CORS filter adds a preflight route for
// each match of a method other than OPTIONS without cookies.
func ruleMatchKeys(rule *model.Rule, filterMatches [][]egv1a1.HTTPCookieMatch) []overlapKey {
	switch {
	case rule.HTTP != nil:
		matches := rule.HTTP.Matches
		if len(matches) == 0 && len(filterMatches) == 0 {
			return []overlapKey{{path: pathMatchKey(nil)}}
		}
		cors := slices.ContainsFunc(rule.HTTP.Filters, func(f gwv1.HTTPRouteFilter) bool { return f.Type == gwv1.HTTPRouteFilterCORS })
		var out []overlapKey
		for _, combo := range matchCombinations(matches, filterMatches) {
			out = append(out, httpMatchKeys(combo.match, combo.cookies, cors)...)
		}
		return out
	case rule.GRPC != nil:
		matches := rule.GRPC.Matches
		if len(matches) == 0 && len(filterMatches) == 0 {
			return []overlapKey{{path: pathMatchKey(nil)}}
		}
		var out []overlapKey
		for _, combo := range matchCombinations(matches, filterMatches) {
			out = append(out, grpcMatchKey(combo.match, combo.cookies))
		}
		return out
	}
	return nil
}

type matchCombination[M any] struct {
	match   M
	cookies []egv1a1.HTTPCookieMatch
}

// matchCombinations is buildRouteMatchCombinations: the rule's matches,
// or each crossed with every filter match (an empty match standing for
// none).
func matchCombinations[M any](matches []M, filterMatches [][]egv1a1.HTTPCookieMatch) []matchCombination[M] {
	var out []matchCombination[M]
	if len(filterMatches) == 0 {
		for _, m := range matches {
			out = append(out, matchCombination[M]{match: m})
		}
		return out
	}
	if len(matches) == 0 {
		matches = []M{*new(M)}
	}
	for _, m := range matches {
		for _, cookies := range filterMatches {
			out = append(out, matchCombination[M]{match: m, cookies: cookies})
		}
	}
	return out
}

// stringMatch is the part of an Envoy Gateway IR string match a key reads.
type stringMatch struct {
	name                         string
	exact, prefix, suffix, regex *string
}

// key is stringMatchKey's serialization.
func (s stringMatch) key(lowerName bool) string {
	name := s.name
	if lowerName {
		name = strings.ToLower(name)
	}
	part := func(tag byte, v *string) string {
		if v == nil {
			return "\x00"
		}
		return string(tag) + *v + "\x00"
	}
	// distinct and invert are never set on route matches: two empty parts.
	return name + "\x00" + part('e', s.exact) + part('p', s.prefix) + part('s', s.suffix) + part('r', s.regex) + "\x00"
}

// matchesKey is stringMatchSliceKey: the matches' keys, sorted, joined.
func matchesKey(ms []stringMatch, lowerName bool) string {
	keys := make([]string, len(ms))
	for i, m := range ms {
		keys[i] = m.key(lowerName)
	}
	slices.Sort(keys)
	return strings.Join(keys, "\x01")
}

// pathMatchKey: no path match is prefix "/", and a prefix other than "/"
// loses one trailing slash, as the xDS translator reads them.
func pathMatchKey(s *stringMatch) string {
	if s == nil {
		root := "/"
		return stringMatch{prefix: &root}.key(false)
	}
	if s.prefix != nil && *s.prefix != "/" {
		trimmed := strings.TrimSuffix(*s.prefix, "/")
		return stringMatch{prefix: &trimmed}.key(false)
	}
	return s.key(false)
}

func cookieMatches(cookies []egv1a1.HTTPCookieMatch) []stringMatch {
	var out []stringMatch
	for _, c := range cookies {
		v := c.Value
		m := stringMatch{name: c.Name, exact: &v}
		if c.Type != nil && *c.Type == egv1a1.CookieMatchRegularExpression {
			m = stringMatch{name: c.Name, regex: &v}
		}
		out = append(out, m)
	}
	return out
}

// httpMatchKeys is an HTTPRoute match's Envoy route (processHTTPRouteRule)
// and, with CORS, its preflight route.
func httpMatchKeys(m gwv1.HTTPRouteMatch, cookies []egv1a1.HTTPCookieMatch, cors bool) []overlapKey {
	var path *stringMatch
	if m.Path != nil && m.Path.Value != nil {
		v := *m.Path.Value
		switch {
		case m.Path.Type != nil && *m.Path.Type == gwv1.PathMatchExact:
			path = &stringMatch{exact: &v}
		case m.Path.Type != nil && *m.Path.Type == gwv1.PathMatchRegularExpression:
			path = &stringMatch{regex: &v}
		default:
			path = &stringMatch{prefix: &v}
		}
	}
	var headers []stringMatch
	for _, h := range m.Headers {
		v := h.Value
		if h.Type != nil && *h.Type == gwv1.HeaderMatchRegularExpression {
			headers = append(headers, stringMatch{name: string(h.Name), regex: &v})
		} else {
			headers = append(headers, stringMatch{name: string(h.Name), exact: &v})
		}
	}
	var query []stringMatch
	for _, q := range m.QueryParams {
		v := q.Value
		if q.Type != nil && *q.Type == gwv1.QueryParamMatchRegularExpression {
			query = append(query, stringMatch{name: string(q.Name), regex: &v})
		} else {
			query = append(query, stringMatch{name: string(q.Name), exact: &v})
		}
	}
	withMethod := headers
	if m.Method != nil {
		method := string(*m.Method)
		withMethod = append(slices.Clone(headers), stringMatch{name: ":method", exact: &method})
	}
	out := []overlapKey{{path: pathMatchKey(path), headers: matchesKey(withMethod, true), query: matchesKey(query, false), cookies: matchesKey(cookieMatches(cookies), false)}}
	if cors && m.Method != nil && *m.Method != "OPTIONS" && len(cookies) == 0 {
		options, anyValue := "OPTIONS", ".*"
		preflight := append(slices.Clone(headers), stringMatch{name: ":method", exact: &options},
			stringMatch{name: "origin", regex: &anyValue}, stringMatch{name: "access-control-request-method", regex: &anyValue})
		out = append(out, overlapKey{path: pathMatchKey(path), headers: matchesKey(preflight, true), query: matchesKey(query, false)})
	}
	return out
}

// The service and method names a GRPCRoute regular expression match
// stands in for when it leaves one out (route.go's validServiceName,
// validMethodName).
const (
	grpcAnyService = `(?i)\.?[a-z_][a-z_0-9]*(\.[a-z_][a-z_0-9]*)*`
	grpcAnyMethod  = `[A-Za-z_][A-Za-z_0-9]*`
)

// grpcMatchKey is a GRPCRoute match's Envoy route (processGRPCRouteRule):
// its method as a path (or, a method alone matched exactly, a :path
// suffix header), its headers.
func grpcMatchKey(m gwv1.GRPCRouteMatch, cookies []egv1a1.HTTPCookieMatch) overlapKey {
	var headers []stringMatch
	for _, h := range m.Headers {
		v := h.Value
		if h.Type != nil && *h.Type == gwv1.GRPCHeaderMatchRegularExpression {
			headers = append(headers, stringMatch{name: string(h.Name), regex: &v})
		} else {
			headers = append(headers, stringMatch{name: string(h.Name), exact: &v})
		}
	}
	var path *stringMatch
	if mm := m.Method; mm != nil {
		regex := mm.Type != nil && *mm.Type == gwv1.GRPCMethodMatchRegularExpression
		svc, method := mm.Service, mm.Method
		switch {
		case regex && (svc != nil || method != nil):
			s, me := grpcAnyService, grpcAnyMethod
			if svc != nil {
				s = *svc
			}
			if method != nil {
				me = *method
			}
			v := fmt.Sprintf("/%s/%s", s, me)
			path = &stringMatch{regex: &v}
		case svc != nil && method != nil:
			v := fmt.Sprintf("/%s/%s", *svc, *method)
			path = &stringMatch{exact: &v}
		case method != nil:
			v := "/" + *method
			headers = append(headers, stringMatch{name: ":path", suffix: &v})
		case svc != nil:
			v := "/" + *svc
			path = &stringMatch{prefix: &v}
		}
	}
	return overlapKey{path: pathMatchKey(path), headers: matchesKey(headers, true), cookies: matchesKey(cookieMatches(cookies), false)}
}
