package envoy

import (
	"cmp"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	routerv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	upstreamcodecv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/upstream_codec/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/parallel"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// rcBuild is one RouteConfiguration under construction, with the HTTP
// filters its resources need.
type rcBuild struct {
	rc      *routev3.RouteConfiguration
	scope   *scoped // the merge configuring the whole RouteConfiguration
	filters map[string]filterDef
	// merged are the configs merged into each merging filter so far
	// (rendered fields are shared, so each is merged once).
	merged map[string]map[*anypb.Any]bool
	// listeners are the Gateway listeners served through it, in order.
	listeners []*topology.Listener
	// listener is the merge of the one HTTP listener served through the
	// RouteConfiguration, nil when several share it: its connection
	// settings are the chain's own.
	listener *scoped
}

func (rb *rcBuild) use(s *scoped) {
	if s == nil {
		return
	}
	for _, r := range s.fields {
		for _, f := range r.filters {
			have, ok := rb.filters[f.name]
			switch {
			case !ok:
				rb.filters[f.name] = f
				rb.noteMerged(f)
			case f.merge && !rb.merged[f.name][f.config]:
				have.config = mergeAny(have.config, f.config)
				have.removes = unionHeaders(have.removes, f.removes)
				rb.filters[f.name] = have
				rb.noteMerged(f)
			}
		}
	}
}

// unionHeaders is a's headers, then those of b that a lacks.
func unionHeaders(a, b []string) []string {
	out := slices.Clone(a)
	for _, h := range b {
		if !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// removeHeaders makes every route of the RouteConfiguration remove the
// request headers its chain's filters ask all routes to remove
// (policy.HTTPFilter.RemoveRequestHeaders), after the route's own, in
// filter order.
func (rb *rcBuild) removeHeaders() {
	var hs []string
	defs := slices.Collect(mapValues(rb.filters))
	slices.SortFunc(defs, compareFilters)
	for _, d := range defs {
		hs = unionHeaders(hs, d.removes)
	}
	if len(hs) == 0 {
		return
	}
	for _, vh := range rb.rc.VirtualHosts {
		for _, r := range vh.Routes {
			r.RequestHeadersToRemove = unionHeaders(r.RequestHeadersToRemove, hs)
		}
	}
}

// noteMerged records a merging filter's config as part of the chain's.
func (rb *rcBuild) noteMerged(f filterDef) {
	if !f.merge {
		return
	}
	if rb.merged == nil {
		rb.merged = map[string]map[*anypb.Any]bool{}
	}
	if rb.merged[f.name] == nil {
		rb.merged[f.name] = map[*anypb.Any]bool{}
	}
	rb.merged[f.name][f.config] = true
}

// compareFilters orders the HCM chain: by order, then, between filters
// of one type (one typed_config type), precedence, higher first — the
// precedence of one filter type says nothing about another's — then by
// name.
func compareFilters(a, b filterDef) int {
	if c := cmp.Compare(a.order, b.order); c != 0 {
		return c
	}
	if a.config.GetTypeUrl() == b.config.GetTypeUrl() {
		if c := cmp.Compare(b.precedence, a.precedence); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.name, b.name)
}

// httpFilters is the HCM chain: every filter used below this
// RouteConfiguration, disabled by default (enabled per resource by its
// typed_per_filter_config) unless its fragment leaves it on, sorted by
// compareFilters, router last.
func (rb *rcBuild) httpFilters() []*hcmv3.HttpFilter {
	defs := slices.Collect(mapValues(rb.filters))
	slices.SortFunc(defs, compareFilters)
	out := make([]*hcmv3.HttpFilter, 0, len(defs)+1)
	var upstream []*hcmv3.HttpFilter
	for _, d := range defs {
		f := &hcmv3.HttpFilter{Name: d.name, Disabled: !d.enabled, ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: d.config}}
		if d.upstream {
			upstream = append(upstream, f)
			continue
		}
		out = append(out, f)
	}
	router := routerAny
	if len(upstream) > 0 {
		// Filters that run after routing, then the codec that ends every
		// upstream chain.
		router = mustAny(&routerv3.Router{UpstreamHttpFilters: append(upstream, &hcmv3.HttpFilter{
			Name: "envoy.filters.http.upstream_codec", ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: upstreamCodecAny}})})
	}
	return append(out, &hcmv3.HttpFilter{
		Name:       "envoy.filters.http.router",
		ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: router},
	})
}

var (
	routerAny        = mustAny(&routerv3.Router{})
	upstreamCodecAny = mustAny(&upstreamcodecv3.UpstreamCodec{})
)

func mapValues[K comparable, V any](m map[K]V) func(func(V) bool) {
	return func(yield func(V) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// vhostPlan is one virtual host: a hostname, the listener that owns it and
// the route attachments through that listener.
type vhostPlan struct {
	host  string
	owner *topology.Listener
	atts  []*topology.Attachment
}

// routeConfig builds a RouteConfiguration for listeners sharing it (the
// HTTP listeners of a port, or one HTTPS listener). rcScope is the merge
// configuring the whole RouteConfiguration; vhost-level merges are the
// HTTP listeners' own (HTTPS listeners merge into their RouteConfiguration).
func (gb *gatewayBuild) routeConfig(name string, ls []*topology.Listener, rcScope *scoped, https bool) *rcBuild {
	rb := &rcBuild{rc: &routev3.RouteConfiguration{Name: name, IgnorePortInHostMatching: true}, scope: rcScope, filters: map[string]filterDef{}, listeners: ls}
	if rcScope.replaced() {
		rb.rc.VirtualHosts = []*routev3.VirtualHost{fallbackVHost("default", []string{"*"}, rcScope.replaceStatus(), rcScope.replaceBody(gb.naming.InvalidBody))}
		return rb
	}
	rb.rc.Metadata = rcScope.metadata
	rb.rc.TypedPerFilterConfig = rcScope.perFilter()
	rb.use(rcScope)
	plans := planVHosts(ls)
	// A virtual host's own merge is its owning listener's: rendered once
	// per listener, not once per hostname.
	vhScopes := map[*topology.Listener]*scoped{}
	if !https {
		for _, p := range plans {
			if _, ok := vhScopes[p.owner]; !ok {
				vhScopes[p.owner] = gb.onListeners(gb.listenerScope(gb.res.Listener(p.owner).Own, len(ls) > 1), p.owner)
			}
		}
		if len(ls) == 1 {
			rb.listener = vhScopes[ls[0]]
			if rb.listener == nil {
				rb.listener = gb.onListeners(gb.listenerScope(gb.res.Listener(ls[0]).Own, false), ls[0])
			}
		}
	}
	vbs := make([]*vhostBuild, len(plans))
	parallel.Each(len(plans), func(i int) {
		vb := &vhostBuild{gatewayBuild: gb}
		vb.vh = vb.vhost(name, plans[i], vhScopes[plans[i].owner], rcScope, https)
		vbs[i] = vb
	})
	var scopes []*scoped
	for _, p := range plans {
		if s := vhScopes[p.owner]; s != nil && !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	for _, vb := range vbs {
		gb.apply(vb, rb)
		rb.rc.VirtualHosts = append(rb.rc.VirtualHosts, vb.vh)
	}
	slices.SortFunc(rb.rc.VirtualHosts, func(a, b *routev3.VirtualHost) int { return cmp.Compare(a.Name, b.Name) })
	rb.removeHeaders()
	return rb
}

// planVHosts assigns every hostname served through these listeners to the
// most specific listener that covers it, since the Gateway API sends a
// request that several listeners of a port match to the most specific
// one; routes reaching the hostname through a less specific listener are
// not programmed there.
func planVHosts(ls []*topology.Listener) []*vhostPlan {
	byHost := map[string]*vhostPlan{}
	for _, l := range ls {
		for _, a := range l.Routes {
			hosts := a.Hostnames
			if len(hosts) == 0 {
				hosts = []string{"*"}
			}
			for _, h := range hosts {
				p := byHost[h]
				if p == nil {
					p = &vhostPlan{host: h, owner: ownerOf(ls, h)}
					byHost[h] = p
				}
				if p.owner == l {
					p.atts = append(p.atts, a)
				}
			}
		}
	}
	out := make([]*vhostPlan, 0, len(byHost))
	for _, h := range slices.Sorted(mapKeys(byHost)) {
		if p := byHost[h]; len(p.atts) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// ownerOf picks the listener that owns a hostname, the most specific
// that covers it: an exact listener hostname beats a wildcard, a longer
// wildcard a shorter one (`*.foo.example.com` owns a.foo.example.com
// before `*.example.com` does, whatever their order), and any beats none;
// ties go to the first listener (the Gateway's own before its
// ListenerSets').
func ownerOf(ls []*topology.Listener, host string) *topology.Listener {
	var best *topology.Listener
	bestRank := -1
	for _, l := range ls {
		rank := -1
		switch lh := hostOf(l.Hostname); {
		case lh == "":
			rank = 0
		case lh == host:
			rank = math.MaxInt
		case strings.HasPrefix(lh, "*") && strings.HasSuffix(host, lh[1:]):
			rank = len(lh)
		}
		if rank > bestRank {
			best, bestRank = l, rank
		}
	}
	return best
}

func hostOf(h *gwv1.Hostname) string {
	if h == nil {
		return ""
	}
	return string(*h)
}

// vhostBuild builds one virtual host. Virtual hosts are built in parallel;
// what one adds to its Gateway and RouteConfiguration (clusters, HTTP
// filters, route names) is recorded and applied afterwards in virtual
// host order, so the output never depends on scheduling.
type vhostBuild struct {
	*gatewayBuild
	vh       *routev3.VirtualHost
	used     []*scoped // scopes whose HTTP filters the chain needs
	names    []namedRoute
	clusters []clusterOp
	filters  []filterDef // HTTP filters Gateway API routing needs (session persistence)
	// routeFilters are HTTP filters fields build per route
	// (perroute.go): the first of a name configures the chain.
	routeFilters []filterDef
	grpc         bool // serves a GRPCRoute where the target adds gRPC filters (servesGRPC)
	// backendPerFilter is, while a route is built, the per-filter
	// configuration of its one backend's policies (backendrefs.go).
	backendPerFilter map[string]*anypb.Any
	// ownClusters are, while a route is built, the settings of the
	// clusters of their own its backendRefs' policies give them, by
	// backendRef index (backendRefConfig).
	ownClusters map[int][]clusterSetting
	// skip are, while a route is built, its fields another family's
	// kind overrides (merge.Result.Overridden), by kindKey.
	skip []string
}

type namedRoute struct {
	key  routeKey
	name string
}

// apply adds what a virtual host recorded to its Gateway and
// RouteConfiguration.
func (gb *gatewayBuild) apply(vb *vhostBuild, rb *rcBuild) {
	for _, s := range vb.used {
		rb.use(s)
	}
	for _, n := range vb.names {
		gb.names[n.key] = append(gb.names[n.key], n.name)
	}
	for _, op := range vb.clusters {
		if f := gb.applyCluster(op); f != nil {
			rb.filters[f.name] = *f
		}
	}
	for _, f := range vb.filters {
		rb.filters[f.name] = f
	}
	for _, f := range vb.routeFilters {
		if _, ok := rb.filters[f.name]; !ok {
			rb.filters[f.name] = f
		}
	}
	if vb.grpc {
		for _, f := range grpcFilters {
			rb.filters[f.name] = f
		}
	}
}

// vhost builds one virtual host and its routes.
func (vb *vhostBuild) vhost(rcName string, plan *vhostPlan, vhScope, rcScope *scoped, https bool) *routev3.VirtualHost {
	name := vb.naming.VirtualHost(rcName, plan.host)
	vh := &routev3.VirtualHost{Name: name, Domains: []string{plan.host}}
	if https && terminatesTLS(plan.owner) {
		vh.RequireTls = routev3.VirtualHost_ALL
	}
	if vhScope.replaced() {
		return fallbackVHost(name, vh.Domains, vhScope.replaceStatus(), vhScope.replaceBody(vb.naming.InvalidBody))
	}
	applyVHostMaps(vh, vhScope, rcScope)
	if vhScope != nil {
		// Shared by every virtual host of the listener: fragments merge
		// over copies.
		vh.Metadata = withMetadata(vhScope.metadata, vh.Metadata)
		vh.TypedPerFilterConfig = withPerFilter(vhScope.perFilter(), vh.TypedPerFilterConfig)
		vb.used = append(vb.used, vhScope)
	}
	entries := routeEntries(plan.atts, routeOrder{regexByLength: vb.target.RegexPathsByLength, grpcServiceSegments: vb.target.GRPCServiceSegments, trimmedPrefixes: vb.target.PrefixesRankTrimmed})
	for i, e := range entries {
		if e.delegates && e.replaced == "" {
			continue // a delegating rule emits no route but keeps its index (topology's Flat)
		}
		if p := vb.problem(e); p != nil && p.Dropped {
			continue // left out, as status says (RouteRuleDropped); it keeps its index too
		}
		if _, out := vb.res.LeftOut(e.att.Route, e.rule, vb.gw); out {
			continue // the controller's validation leaves it out, as status says; it keeps its index too
		}
		r := vb.route(name, i, e, plan, vhScope, rcScope)
		vb.names = append(vb.names, namedRoute{routeKey{e.rule, plan.owner, nil}, r.Name})
		if path := vb.pathOf(e); path != nil {
			vb.names = append(vb.names, namedRoute{routeKey{e.rule, plan.owner, path}, r.Name})
		}
		vh.Routes = append(vh.Routes, r)
	}
	return vh
}

// fallbackVHost is a replaced virtual host: one unnamed catch-all route
// answering status.
func fallbackVHost(name string, domains []string, status uint32, body string) *routev3.VirtualHost {
	return &routev3.VirtualHost{Name: name, Domains: domains, Routes: []*routev3.Route{{
		Match:  &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}},
		Action: directResponse(status, body),
	}}}
}

func directResponse(status uint32, body string) *routev3.Route_DirectResponse {
	dr := &routev3.DirectResponseAction{Status: status}
	if body != "" {
		dr.Body = inlineString(body)
	}
	return &routev3.Route_DirectResponse{DirectResponse: dr}
}

// entry is one rule × match of a route served in a virtual host.
type entry struct {
	att       *topology.Attachment
	rule      *topology.Rule
	ruleIndex int // as the target's route names number it (policy.RouteName.Rule)
	match     int
	// hm is an HTTPRoute match as served: a delegated child's may be
	// merged with its parent's.
	hm        *gwv1.HTTPRouteMatch
	path      pathMatch
	method    bool
	headers   int
	queries   int
	delegates bool   // the rule delegates to child HTTPRoutes
	replaced  string // why a delegating entry answers 500 instead
	via       []*topology.Rule
	// flat is the flattened entry of an HTTPRoute attached to a listener
	// (topology's Route.Flat, held for the run): what it inherits and
	// what its controller cannot translate in it as served (problem);
	// nil for other routes.
	flat *topology.FlatMatch
	// top is the route the virtual host serves (the attachment's); a
	// delegated child's rules are served as its top parent's, so its age
	// and name order them first, then the child's own (src).
	top, src *topology.Route
}

// problem is what the Gateway's controller cannot translate in the entry
// as served (topology's FlatMatch.Problems; a rule served as written: its
// own Rule.Problems), the one problem that holds on the Gateway
// (topology.Graph.ProblemOn).
func (vb *vhostBuild) problem(e entry) *topology.RuleProblem {
	return vb.res.Graph.ProblemOn(e.problems(), vb.gw)
}

// skips are the header operations of the entry the Gateway's controller
// does not apply while it serves the rest (topology.Graph.SkipsOn).
func (vb *vhostBuild) skips(e entry) headerSkips {
	return vb.res.Graph.SkipsOn(e.problems(), vb.gw)
}

// problems are the controllers' problems with the entry as served
// (topology's FlatMatch.Problems; a rule served as written: its own
// Rule.Problems).
func (e entry) problems() topology.RuleProblems {
	if e.flat != nil {
		return e.flat.Problems
	}
	return e.rule.Problems
}

// pathMatch is a match's path in Envoy terms.
type pathMatch struct {
	kind  int // 0 exact, 1 regex, 2 prefix
	value string
	// segments: a prefix matched by whole path segments
	// (path_separated_prefix), as an HTTPRoute's PathPrefix is
	segments bool
}

// routeOrder is what of the target orders and writes a virtual host's
// route matches (policy.Target.RegexPathsByLength, GRPCServiceSegments).
type routeOrder struct {
	regexByLength, grpcServiceSegments, trimmedPrefixes bool
}

// rankLen is the length a path match ranks by: its value's, or a prefix's
// without trailing slashes under trimmed (policy.Target.
// PrefixesRankTrimmed), "/" itself staying "/".
func rankLen(p pathMatch, trimmed bool) int {
	if trimmed && p.kind == 2 {
		if v := strings.TrimRight(p.value, "/"); v != "" {
			return len(v)
		}
	}
	return len(p.value)
}

// routeEntries lists every rule × match of the attachments in Gateway API
// precedence order: exact path, then regex, then prefix, longer exact and
// prefix paths first (and longer regular expressions, under a target
// whose controller orders them so: order.regexByLength); then method, more headers, more query params; then the older
// route, then namespace/name (as one "namespace/name" string, the Gateway
// API's alphabetical order), each first of the route the virtual host
// serves and then, for a delegated child's rules, of the child, then rule
// and match order. Entries equal on all of these (one child reached
// through two parents) keep topology's flattening order (Route.Flat).
func routeEntries(atts []*topology.Attachment, order routeOrder) []entry {
	var out []entry
	for _, a := range atts {
		out = appendEntries(out, a, order.grpcServiceSegments)
	}
	slices.SortStableFunc(out, func(a, b entry) int { return compareEntries(a, b, order) })
	return out
}

// appendEntries adds a route's rule × match entries. An HTTPRoute's come
// from its flattened delegation tree (topology's Flat): a delegating rule
// keeps its own (route-less) entry, which consumes an index in the route
// names (policy.RouteName.Rule), and its children's kept rules follow in
// the parent's virtual host.
func appendEntries(out []entry, a *topology.Attachment, grpcServiceSegments bool) []entry {
	rt := a.Route
	if rt.Kind == "HTTPRoute" && rt.Flat != nil {
		out = slices.Grow(out, len(rt.Flat))
		// Delegated children's attachments, made when a child appears:
		// most routes delegate nothing, and need no map.
		var atts map[*topology.Route]*topology.Attachment
		for i := range rt.Flat {
			fm := &rt.Flat[i]
			att := a
			if fm.Route != rt {
				if att = atts[fm.Route]; att == nil {
					att = &topology.Attachment{Route: fm.Route, Parent: a.Parent, Hostnames: a.Hostnames}
					if atts == nil {
						atts = map[*topology.Route]*topology.Attachment{}
					}
					atts[fm.Route] = att
				}
			}
			e := entry{att: att, rule: fm.Rule, ruleIndex: fm.RuleIndex, match: fm.MatchIndex, hm: fm.Match,
				top: rt, src: fm.Route, delegates: fm.Delegates, replaced: fm.Replaced, via: fm.Via, flat: fm}
			e.path = httpPath(fm.Match.Path)
			e.method, e.headers, e.queries = fm.Match.Method != nil, len(fm.Match.Headers), len(fm.Match.QueryParams)
			out = append(out, e)
		}
		return out
	}
	for _, rule := range rt.Rules {
		for m := range matchCount(rule) {
			e := entry{att: a, rule: rule, ruleIndex: rule.Index, match: m, top: rt, src: rt}
			e.path, e.method, e.headers, e.queries = describeMatch(rule, m, grpcServiceSegments)
			if rule.HTTP != nil && m < len(rule.HTTP.Matches) {
				e.hm = &rule.HTTP.Matches[m]
			}
			out = append(out, e)
		}
	}
	return out
}

func compareEntries(a, b entry, order routeOrder) int {
	// Under the controller's weighted route precedence
	// (policy.Controller.WeightedRoutePrecedence) a route's weight comes
	// first (topology leaves it 0 otherwise).
	if c := cmp.Compare(b.att.Route.PrecedenceWeight, a.att.Route.PrecedenceWeight); c != 0 {
		return c
	}
	if c := cmp.Compare(a.path.kind, b.path.kind); c != 0 {
		return c
	}
	// Exact paths and prefixes, the longer first; regular expressions
	// too only where the target says so (policy.Target.RegexPathsByLength):
	// the Gateway API leaves their order to the implementation.
	if c := cmp.Compare(rankLen(b.path, order.trimmedPrefixes), rankLen(a.path, order.trimmedPrefixes)); c != 0 && (a.path.kind != 1 || order.regexByLength) {
		return c
	}
	if a.method != b.method {
		if a.method {
			return -1
		}
		return 1
	}
	if c := cmp.Or(cmp.Compare(b.headers, a.headers), cmp.Compare(b.queries, a.queries)); c != 0 {
		return c
	}
	return cmp.Or(compareRoutes(a.top, b.top), compareRoutes(a.src, b.src),
		cmp.Compare(a.rule.Index, b.rule.Index), cmp.Compare(a.match, b.match))
}

// compareRoutes orders two routes of equal match precedence: the older
// first (one without a creationTimestamp last), then by "namespace/name"
// — one string, so namespace "team-b" sorts before "team" as '-' comes
// before '/' —, then by kind.
func compareRoutes(a, b *topology.Route) int {
	ta, tb := a.Meta.CreationTimestamp.Time, b.Meta.CreationTimestamp.Time
	if !ta.Equal(tb) {
		switch {
		case ta.IsZero():
			return 1
		case tb.IsZero():
			return -1
		}
		return ta.Compare(tb)
	}
	return cmp.Or(compareQualified(a.Meta.Namespace, a.Meta.Name, b.Meta.Namespace, b.Meta.Name), cmp.Compare(a.Kind, b.Kind))
}

// compareQualified compares nsA+"/"+nameA with nsB+"/"+nameB without
// building either string (it runs in a sort).
func compareQualified(nsA, nameA, nsB, nameB string) int {
	if nsA == nsB {
		return cmp.Compare(nameA, nameB)
	}
	at := func(ns, name string, i int) byte {
		switch {
		case i < len(ns):
			return ns[i]
		case i == len(ns):
			return '/'
		}
		return name[i-len(ns)-1]
	}
	la, lb := len(nsA)+1+len(nameA), len(nsB)+1+len(nameB)
	for i := 0; i < la && i < lb; i++ {
		if c := cmp.Compare(at(nsA, nameA, i), at(nsB, nameB, i)); c != 0 {
			return c
		}
	}
	return cmp.Compare(la, lb)
}

func matchCount(rule *topology.Rule) int {
	n := 0
	switch {
	case rule.HTTP != nil:
		n = len(rule.HTTP.Matches)
	case rule.GRPC != nil:
		n = len(rule.GRPC.Matches)
	}
	return max(n, 1)
}

// describeMatch returns what precedence looks at.
func describeMatch(rule *topology.Rule, m int, grpcServiceSegments bool) (pathMatch, bool, int, int) {
	switch {
	case rule.HTTP != nil && m < len(rule.HTTP.Matches):
		hm := rule.HTTP.Matches[m]
		return httpPath(hm.Path), hm.Method != nil, len(hm.Headers), len(hm.QueryParams)
	case rule.GRPC != nil && m < len(rule.GRPC.Matches):
		gm := rule.GRPC.Matches[m]
		return grpcPath(gm.Method, grpcServiceSegments), false, len(gm.Headers), 0
	}
	return pathMatch{kind: 2, value: "/"}, false, 0, 0
}

func httpPath(p *gwv1.HTTPPathMatch) pathMatch {
	if p == nil {
		return pathMatch{kind: 2, value: "/"}
	}
	v := "/"
	if p.Value != nil {
		v = *p.Value
	}
	switch {
	case p.Type != nil && *p.Type == gwv1.PathMatchExact:
		return pathMatch{kind: 0, value: v}
	case p.Type != nil && *p.Type == gwv1.PathMatchRegularExpression:
		return pathMatch{kind: 1, value: v}
	}
	return pathMatch{kind: 2, value: v}
}

// grpcPath translates a gRPC method match: service and method → exact
// path, method only → regex /.+/method, service only → prefix /service/,
// or, under segments (policy.Target.GRPCServiceSegments), the prefix
// /service matched by whole segments.
func grpcPath(m *gwv1.GRPCMethodMatch, segments bool) pathMatch {
	if m == nil || (m.Service == nil && m.Method == nil) {
		return pathMatch{kind: 2, value: "/"}
	}
	svc, meth := deref(m.Service), deref(m.Method)
	if m.Type != nil && *m.Type == gwv1.GRPCMethodMatchRegularExpression {
		return pathMatch{kind: 1, value: "/" + orAny(svc) + "/" + orAny(meth)}
	}
	switch {
	case svc != "" && meth != "":
		return pathMatch{kind: 0, value: "/" + svc + "/" + meth}
	case meth != "":
		return pathMatch{kind: 1, value: "/.+/" + meth}
	}
	if segments {
		return pathMatch{kind: 2, value: "/" + svc, segments: true}
	}
	return pathMatch{kind: 2, value: "/" + svc + "/"}
}

func orAny(s string) string {
	if s == "" {
		return ".+"
	}
	return s
}

func deref[T ~string](p *T) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

// routeMatch translates a rule match.
func routeMatch(e entry) *routev3.RouteMatch {
	m := &routev3.RouteMatch{}
	switch e.path.kind {
	case 0:
		m.PathSpecifier = &routev3.RouteMatch_Path{Path: e.path.value}
	case 1:
		m.PathSpecifier = &routev3.RouteMatch_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: e.path.value}}
	default:
		// Gateway API prefixes match whole path segments; "/x/" and "/x"
		// are the same prefix, and "/" matches everything. A prefix Envoy
		// cannot match by segments (a "?" or "#": a delegated child's path
		// joined to a parent's regular expression, which no schema
		// bounds) is matched as a string prefix, the fallback a
		// controller's path matcher takes for such a prefix.
		v := e.path.value
		p := strings.TrimRight(v, "/")
		switch {
		case (e.att.Route.Kind == "HTTPRoute" || e.path.segments) && p != "" && strings.ContainsAny(p, "?#"):
			m.PathSpecifier = &routev3.RouteMatch_Prefix{Prefix: p}
		case (e.att.Route.Kind == "HTTPRoute" || e.path.segments) && p != "":
			m.PathSpecifier = &routev3.RouteMatch_PathSeparatedPrefix{PathSeparatedPrefix: p}
		default:
			m.PathSpecifier = &routev3.RouteMatch_Prefix{Prefix: v}
		}
	}
	rule := e.rule
	switch {
	case e.hm != nil:
		hm := e.hm
		for _, h := range hm.Headers {
			regex := h.Type != nil && *h.Type == gwv1.HeaderMatchRegularExpression
			m.Headers = append(m.Headers, headerMatcher(string(h.Name), h.Value, regex))
		}
		if hm.Method != nil {
			m.Headers = append(m.Headers, headerMatcher(":method", string(*hm.Method), false))
		}
		for _, q := range hm.QueryParams {
			sm := &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: q.Value}}
			if q.Type != nil && *q.Type == gwv1.QueryParamMatchRegularExpression {
				sm.MatchPattern = &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: q.Value}}
			}
			m.QueryParameters = append(m.QueryParameters, &routev3.QueryParameterMatcher{
				Name: string(q.Name), QueryParameterMatchSpecifier: &routev3.QueryParameterMatcher_StringMatch{StringMatch: sm},
			})
		}
	case rule.GRPC != nil && e.match < len(rule.GRPC.Matches):
		for _, h := range rule.GRPC.Matches[e.match].Headers {
			regex := h.Type != nil && *h.Type == gwv1.GRPCHeaderMatchRegularExpression
			m.Headers = append(m.Headers, headerMatcher(string(h.Name), h.Value, regex))
		}
	}
	return m
}

func headerMatcher(name, value string, regex bool) *routev3.HeaderMatcher {
	sm := &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: value}}
	if regex {
		sm.MatchPattern = &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: value}}
	}
	return &routev3.HeaderMatcher{Name: name, HeaderMatchSpecifier: &routev3.HeaderMatcher_StringMatch{StringMatch: sm}}
}

// route builds one Envoy route for a rule × match in a virtual host.
func (vb *vhostBuild) route(vh string, i int, e entry, plan *vhostPlan, vhScope, rcScope *scoped) *routev3.Route {
	l := plan.owner
	rt := e.att.Route
	name := vb.naming.Route(policy.RouteName{VirtualHost: vh, Position: i, Kind: rt.Kind, Namespace: rt.Meta.Namespace, Name: rt.Meta.Name,
		Rule: e.ruleIndex, RuleName: e.rule.Name, Match: e.match})
	r := &routev3.Route{Name: name, Match: routeMatch(e)}
	if key, fields := vb.res.Registry.RouteSource(vb.opt.Config); key != "" {
		defer addRouteSource(r, e, key, fields)
	}
	vb.servesGRPC(e)
	if e.replaced != "" {
		// a delegating match topology could not flatten (a cycle, no
		// child: FlatMatch.Replaced) answers itself, since falling
		// through to a broader route would send the traffic somewhere
		// nobody chose.
		r.Action = directResponse(500, vb.naming.InvalidBody)
		return r
	}
	if f, ok := vb.res.Verdict(e.att.Route, vb.gw).Fate(e.rule.Index); ok && f.Status != 0 {
		// the controller's validation answers the rule itself (Envoy
		// Gateway: 500 for filters it refuses), whatever it configures
		r.Action = directResponse(uint32(f.Status), "")
		return r
	}
	if skip := vb.res.Overridden(e.rule, vb.pathOf(e), l); len(skip) > 0 {
		// fields another family's kind overrides here (merge.PathOverride)
		sc := vb.withoutOverridden(skip, vhScope, rcScope)
		vhScope, rcScope = sc[0], sc[1]
		vb.skip = skip
		defer func() { vb.skip = nil }()
	}
	if fs, ok := vb.res.NoBackendOn(e.att.Route, e.rule, vb.gw); ok {
		// decided with the route, before any policy applies
		r.Action = directResponse(uint32(fs.Status), "")
		if vb.target.PoliciesOnUnrouted {
			vb.keepPolicies(r, e.rule.GRPC != nil, vb.ruleScopeOn(e, l), vhScope, rcScope)
		}
		return r
	}
	if status, body, broken := vb.brokenRule(e.rule); broken {
		r.Action = directResponse(status, body)
		return r
	}
	if vb.problem(e) != nil {
		// A rule the controller cannot translate as written or as served
		// under its parents (topology's FlatMatch.Problems,
		// RouteRuleReplaced).
		r.Action = directResponse(500, vb.naming.InvalidBody)
		return r
	}
	rs := vb.ruleScopeOn(e, l)
	if rs.failBody != "" && !rs.invalid {
		if _, answers := vb.res.FixedStatusAlong(e.att.Route, e.rule, vb.pathOf(e), vb.gw); answers {
			// The rule answers without forwarding, as the merge decided
			// before any policy applies (no backendRef takes traffic):
			// a field that cannot be rendered has no cluster to go
			// into there, and the rule answers what every view says.
			rs = &scoped{metadata: rs.metadata, fields: rs.fields, tpfc: rs.tpfc}
		}
	}
	if rs.replaced() {
		r.Action = directResponse(rs.replaceStatus(), rs.replaceBody(vb.naming.InvalidBody))
		if vb.target.PoliciesOnUnrouted {
			// what the controller keeps of an invalid policy
			// (policy.InvalidKeeper) stays beside the 500
			vb.keepPolicies(r, e.rule.GRPC != nil, rs, vhScope, rcScope)
		}
		return r
	}
	if from := answeredBy(rs); from != nil { // a policy answers the rule itself (policy.Answerer)
		if vb.target.AnswersKeepPolicies && rs.failBody == "" {
			// the answer among the rule's settings: the other policies'
			// stay beside it, and so do the rule's own header modifiers
			filters := ruleFilters(e.rule)
			if e.flat != nil {
				filters = withInherited(filters, e.flat.Inherited)
			}
			applyHeaderFilters(r, filters, &vb.target, vb.skips(e))
			vb.keepPolicies(r, e.rule.GRPC != nil, rs, vhScope, rcScope)
			r.StatPrefix = vb.statPrefix(r.StatPrefix, e)
			return r
		}
		proto.Merge(r, from) // the answer, with the response headers it sets
		r.Metadata = withMetadata(rs.metadata, r.Metadata)
		return r
	}
	levels := []*scoped{rs, vhScope, rcScope}
	from := len(vb.clusters)
	vb.backendPerFilter, vb.ownClusters = nil, nil
	if !vb.forward(r, e, l) {
		if vb.target.PoliciesOnUnrouted {
			vb.keepPolicies(r, e.rule.GRPC != nil, rs, vhScope, rcScope)
		}
		return r
	}
	vb.ruleClusters(r, e, l, rs, from)
	applyRouteMaps(r, e.rule.GRPC != nil, levels...)
	vb.defaultUpgrade(r, e, levels)
	tuneMirrors(r, levels...)
	vb.backendPerRoute(r, e.rule.Backends)
	r.StatPrefix = vb.statPrefix(r.StatPrefix, e)
	r.Metadata = withMetadata(rs.metadata, r.Metadata)
	r.TypedPerFilterConfig = offVariants(withPerFilter(rs.perFilter(), vb.withSession(r.TypedPerFilterConfig, e)), vhScope, rcScope)
	if bf := vb.backendPerFilter; bf != nil {
		// the one backend's policies, under the route's (backendrefs.go)
		r.TypedPerFilterConfig = withPerFilter(bf, r.TypedPerFilterConfig)
	}
	if body := vb.applyPerRoute(r, rs, routeSite(e, plan.host, l), from); body != "" {
		return &routev3.Route{Name: r.Name, Match: r.Match, Action: directResponse(503, body), Metadata: r.Metadata}
	}
	vb.usePolicies(rs, levels)
	return r
}

// ruleScopeOn is the scope of an entry's rule served on listener l
// (routeScope), without the fields another family's kind overrides there
// (vb.skip, merge.PathOverride).
func (vb *vhostBuild) ruleScopeOn(e entry, l *topology.Listener) *scoped {
	return vb.without(vb.routeScope(e.rule, vb.pathOf(e), l), vb.skip)
}

// defaultUpgrade writes the upgrade the target allows on every
// forwarding route of an HTTPRoute (Target.HTTPRoutesUpgrade), after the
// policies: one that sets the route's upgrade configs replaces it, one
// that buffers requests keeps it off (Fragment.NoUpgrade).
func (vb *vhostBuild) defaultUpgrade(r *routev3.Route, e entry, levels []*scoped) {
	ra, ok := r.Action.(*routev3.Route_Route)
	if vb.target.HTTPRoutesUpgrade == "" || !ok || e.att.Route.Kind != "HTTPRoute" || len(ra.Route.UpgradeConfigs) > 0 {
		return
	}
	// as in applyRouteMaps, a field of a more specific level hides the
	// same field of the others
	var seen []int32
	for _, s := range levels {
		if s == nil {
			continue
		}
		for _, f := range s.fields {
			if slices.Contains(seen, f.kindID) {
				continue
			}
			if f.noUpgrade {
				return
			}
			seen = append(seen, f.kindID)
		}
	}
	ra.Route.UpgradeConfigs = []*routev3.RouteAction_UpgradeConfig{{UpgradeType: vb.target.HTTPRoutesUpgrade}}
}

// usePolicies records what a route's policies need beyond the route
// itself: the HTTP filters of its chain (vb.used) and the clusters they
// call.
func (vb *vhostBuild) usePolicies(rs *scoped, levels []*scoped) {
	vb.used = append(vb.used, rs)
	for _, s := range levels {
		if s == nil {
			continue
		}
		for _, f := range s.fields {
			vb.addClusters(f.clusters)
		}
	}
}

// keepPolicies keeps, on a route answering 500 without forwarding (none
// of its backends takes traffic, or a policy on it is invalid), its
// policies' route-level settings, per-filter configuration and merge
// metadata, and records their filters and clusters
// (Target.PoliciesOnUnrouted: the target's translator keeps a route's
// security and traffic features beside its direct response, and of an
// invalid policy what translated, policy.InvalidKeeper). A route a field
// fails closed (503) keeps nothing: nothing partial is emitted.
func (vb *vhostBuild) keepPolicies(r *routev3.Route, grpc bool, rs, vhScope, rcScope *scoped) {
	if rs.failBody != "" {
		return
	}
	levels := []*scoped{rs, vhScope, rcScope}
	applyRouteMaps(r, grpc, levels...)
	r.TypedPerFilterConfig = offVariants(withPerFilter(rs.perFilter(), r.TypedPerFilterConfig), vhScope, rcScope)
	r.Metadata = withMetadata(rs.metadata, r.Metadata)
	vb.usePolicies(rs, levels)
}

// filterConfigURL is the type URL of a per-filter FilterConfig.
const filterConfigURL = "type.googleapis.com/envoy.config.route.v3.FilterConfig"

// offVariants: a filter a route switches off wherever the chain has it
// (a FilterConfig disabled and optional) is off in its variants too — the
// filters named after it with a "." suffix that a less specific level
// (levels) switched on with settings of their own, such as a
// compressor with a minimum length or content types. Without this, a
// route's disable would leave its Gateway's variant running, which every
// view says the route switched off. own is returned as is when nothing
// is added (it may be shared).
func offVariants(own map[string]*anypb.Any, levels ...*scoped) map[string]*anypb.Any {
	var off []string
	for name, a := range own {
		if a.GetTypeUrl() != filterConfigURL {
			continue
		}
		fc := &routev3.FilterConfig{}
		if a.UnmarshalTo(fc) == nil && fc.Disabled && fc.IsOptional {
			off = append(off, name)
		}
	}
	if len(off) == 0 {
		return own
	}
	var out map[string]*anypb.Any
	for _, s := range levels {
		for name := range s.perFilter() {
			if _, set := own[name]; set {
				continue
			}
			for _, o := range off {
				if strings.HasPrefix(name, o+".") {
					if out == nil {
						out = maps.Clone(own)
					}
					out[name] = own[o]
				}
			}
		}
	}
	if out == nil {
		return own
	}
	return out
}

// addRouteSource records on r, under the filter metadata key the
// controller declares (policy.Controller.RouteSourceKey), the route, rule
// and match it comes from, with the fields the controller gives them
// (policy.Controller.RouteSourceFields), for access logs to read.
func addRouteSource(r *routev3.Route, e entry, key string, fields func(policy.RouteOrigin) map[string]string) {
	src := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	for k, v := range fields(policy.RouteOrigin{Kind: e.att.Route.Kind, Namespace: e.att.Route.Meta.Namespace, Name: e.att.Route.Meta.Name,
		Rule: e.rule.Index, RuleName: e.rule.Name, Match: e.match}) {
		src.Fields[k] = structpb.NewStringValue(v)
	}
	md := &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{key: src}}
	if r.Metadata != nil {
		// the rule's merge metadata is shared by its routes: add to a copy
		md = proto.Clone(r.Metadata).(*corev3.Metadata)
		if md.FilterMetadata == nil {
			md.FilterMetadata = map[string]*structpb.Struct{}
		}
		md.FilterMetadata[key] = src
	}
	r.Metadata = md
}

// withPerFilter is withMetadata for typed_per_filter_config.
func withPerFilter(shared, own map[string]*anypb.Any) map[string]*anypb.Any {
	if own == nil {
		return shared
	}
	out := maps.Clone(shared)
	if out == nil {
		out = map[string]*anypb.Any{}
	}
	maps.Copy(out, own)
	return out
}

// withMetadata is a route's metadata: its rule's merge metadata, shared by
// every route of the rule, with what policy fragments set on the route
// merged over a copy of it.
func withMetadata(shared, own *corev3.Metadata) *corev3.Metadata {
	if own == nil {
		return shared
	}
	if shared == nil {
		return own
	}
	md := proto.Clone(shared).(*corev3.Metadata)
	proto.Merge(md, own)
	return md
}

// brokenRule reports a rule attach marked unusable: 503 when the broken
// kind fails closed, else 500 with the target's XDSNames.InvalidBody.
func (gb *gatewayBuild) brokenRule(rule *topology.Rule) (uint32, string, bool) {
	bs := gb.res.Attach.BrokenOn(rule, gb.gw)
	if len(bs) == 0 {
		return 0, "", false
	}
	for _, b := range bs {
		if b.Kind != nil && b.Kind.Spec().FailClosed {
			return 503, "gwpol: rule fails closed: " + b.Reason, true
		}
	}
	return 500, gb.naming.InvalidBody, true
}

// forward sets the route's action from the rule's backends and Gateway API
// filters. It reports false when the route became a direct response.
func (vb *vhostBuild) forward(r *routev3.Route, e entry, l *topology.Listener) bool {
	filters := ruleFilters(e.rule)
	if e.flat != nil {
		filters = withInherited(filters, e.flat.Inherited)
	}
	for _, f := range filters {
		if f.redirect != nil {
			r.Action = &routev3.Route_Redirect{Redirect: redirectAction(f.redirect, e, l, vb.target, vb.res.Graph.RedirectStatusOn(e.rule, vb.gw))}
			applyHeaderFilters(r, filters, &vb.target, vb.skips(e))
			return true
		}
	}
	act := &routev3.RouteAction{ClusterNotFoundResponseCode: routev3.RouteAction_INTERNAL_SERVER_ERROR}
	wcs, total, failBody := vb.clusterWeights(e)
	if failBody != "" {
		// a backendRef's policy cannot be rendered: nothing partial
		r.Action = directResponse(503, failBody)
		return false
	}
	switch {
	case len(e.rule.Backends) == 0 && vb.target.Blackhole:
		// nothing gives the rule an action: under Target.Blackhole the
		// controller replaces it (merge.NoAction)
		r.Action = directResponse(500, vb.naming.InvalidBody)
		return false
	case len(wcs) == 0 || total == 0 && !vb.loneForwards(e, wcs):
		r.Action = directResponse(500, "")
		return false
	case len(wcs) == 1 && !(vb.target.BackendRefDestinations && backendRefsFiltered(e.rule)):
		act.ClusterSpecifier = &routev3.RouteAction_Cluster{Cluster: wcs[0].Name}
	default:
		act.ClusterSpecifier = &routev3.RouteAction_WeightedClusters{WeightedClusters: &routev3.WeightedCluster{Clusters: wcs}}
	}
	if vb.target.HTTPRoutesUpgrade == "" && vb.websocketBackend(e.rule.Backends) {
		act.UpgradeConfigs = []*routev3.RouteAction_UpgradeConfig{{UpgradeType: "websocket"}}
	}
	for _, f := range filters {
		switch {
		case f.rewrite != nil:
			applyRewrite(act, f.rewrite, e, r.Match, vb.target)
		case f.mirror != nil && vb.res.Verdict(e.att.Route, vb.gw).Mirrors(e.rule.Index, f.index):
			if c := vb.mirrorCluster(f.mirrorTo, e.att.Route.Kind == "GRPCRoute"); c != "" {
				if mp := mirrorPolicy(c, f.mirror, vb.target); mp != nil {
					act.RequestMirrorPolicies = append(act.RequestMirrorPolicies, mp)
				}
			}
		}
	}
	vb.backendRoute(act, e.rule.Backends)
	r.Action = &routev3.Route_Route{Route: act}
	applyHeaderFilters(r, filters, &vb.target, vb.skips(e))
	if act.GetCluster() != "" {
		// One backend: its own header filters apply on the route, after
		// the rule's (without Target.BackendRefDestinations a backendRef
		// is no destination of its own); its policies' per-filter
		// configuration under the route's (route, below).
		c := wcs[0]
		vb.backendPerFilter = c.TypedPerFilterConfig
		r.RequestHeadersToAdd = append(r.RequestHeadersToAdd, c.RequestHeadersToAdd...)
		r.RequestHeadersToRemove = append(r.RequestHeadersToRemove, c.RequestHeadersToRemove...)
		r.ResponseHeadersToAdd = append(r.ResponseHeadersToAdd, c.ResponseHeadersToAdd...)
		r.ResponseHeadersToRemove = append(r.ResponseHeadersToRemove, c.ResponseHeadersToRemove...)
	}
	return true
}

// loneForwards: the rule's one backendRef takes traffic whatever its
// weight under the Gateway's controller (merge's LoneBackendForwards,
// which decided the rule is no fixed answer).
func (vb *vhostBuild) loneForwards(e entry, wcs []*routev3.WeightedCluster_ClusterWeight) bool {
	return len(wcs) == 1 && len(e.rule.Backends) == 1 && vb.res.LoneBackendForwards(vb.gw)
}

// clusterWeights are the clusters a rule forwards to, with their weights,
// the header filters of their backendRefs and the per-filter
// configuration of the policies those name (backendrefs.go), and the
// total weight; failBody is set when such a policy cannot be rendered. A
// backendRef that does not resolve, or that the controller refuses, takes
// no traffic: under Target.Blackhole it keeps its place as
// BlackholeCluster; under Target.InvalidShare the weights of all such
// backendRefs go, first, to that cluster — when another backend takes
// traffic (else the rule answers 500 itself); under neither it is left
// out.
func (vb *vhostBuild) clusterWeights(e entry) (wcs []*routev3.WeightedCluster_ClusterWeight, total uint32, failBody string) {
	invalid := uint32(0)
	for i, b := range e.rule.Backends {
		if b.Group == gwv1.GroupName && b.Kind == "HTTPRoute" {
			continue // a delegation: its child routes are served instead
		}
		w := uint32(max(b.Weight, 0))
		var name string
		switch {
		case vb.takesTraffic(e, i, b):
			name = vb.backendCluster(b, e.att.Route.Kind == "GRPCRoute")
		case vb.target.Blackhole:
			name = BlackholeCluster
		default:
			invalid += w
			continue
		}
		total += w
		h := &routev3.Route{}
		applyHeaderFilters(h, backendRefFilters(e.rule, i), &vb.target, vb.skips(e))
		var tpfc map[string]*anypb.Any
		if name != BlackholeCluster {
			// a backendRef that takes no traffic has no policies in
			// effect: nothing of theirs is rendered for it, and a field
			// of theirs that cannot be does not answer the rule
			var body string
			tpfc, body = vb.backendRefConfig(e.rule, i)
			if body != "" && failBody == "" {
				failBody = body
			}
		}
		cw := &routev3.WeightedCluster_ClusterWeight{Name: name, Weight: wrapUint32(w),
			RequestHeadersToAdd: h.RequestHeadersToAdd, RequestHeadersToRemove: h.RequestHeadersToRemove,
			ResponseHeadersToAdd: h.ResponseHeadersToAdd, ResponseHeadersToRemove: h.ResponseHeadersToRemove,
			TypedPerFilterConfig: tpfc}
		if vb.target.BackendRefDestinations {
			if host := backendRefHostRewrite(e.rule, i); host != "" {
				cw.HostRewriteSpecifier = &routev3.WeightedCluster_ClusterWeight_HostRewriteLiteral{HostRewriteLiteral: host}
			}
		}
		wcs = append(wcs, cw)
	}
	if share := vb.target.InvalidShare; share != "" && invalid > 0 && total > 0 {
		wcs = slices.Insert(wcs, 0, &routev3.WeightedCluster_ClusterWeight{Name: share, Weight: wrapUint32(invalid)})
		total += invalid
	}
	return wcs, total, failBody
}

// takesTraffic reports whether backendRef i of the entry's rule gets a
// cluster: it resolves and the controller managing the Gateway does not
// refuse it.
func (vb *vhostBuild) takesTraffic(e entry, i int, b *topology.Backend) bool {
	if !b.Resolved {
		return false
	}
	_, refused := vb.res.BackendRefused(e.att.Route, e.rule, i, vb.gw)
	return !refused
}

// forwardedRefs are the indexes of the backendRefs of the entry's rule
// that clusterWeights gives a cluster of their own, in its order.
func (vb *vhostBuild) forwardedRefs(e entry) []int {
	var out []int
	for i, b := range e.rule.Backends {
		if b.Group == gwv1.GroupName && b.Kind == "HTTPRoute" {
			continue
		}
		if vb.takesTraffic(e, i, b) || vb.target.Blackhole {
			out = append(out, i)
		}
	}
	return out
}

// tuneMirrors merges the most specific level's mirror tuning into each of
// the route's request mirror policies.
func tuneMirrors(r *routev3.Route, levels ...*scoped) {
	ra := r.GetRoute()
	if ra == nil || len(ra.RequestMirrorPolicies) == 0 {
		return
	}
	for _, s := range levels {
		if s == nil {
			continue
		}
		for _, f := range s.fields {
			if f.mirror == nil {
				continue
			}
			for i, p := range ra.RequestMirrorPolicies {
				tuned := &routev3.RouteAction_RequestMirrorPolicy{}
				proto.Merge(tuned, p)
				proto.Merge(tuned, f.mirror)
				ra.RequestMirrorPolicies[i] = tuned
			}
			return
		}
	}
}

// routeTemplate is a {{ variable }} in a route's stat prefix.
var routeTemplate = regexp.MustCompile(`\{\{\s*(route_namespace|route_name|rule_name)\s*\}\}`)

// statPrefix fills the route variables a policy kind's stat prefix field
// may name (its API's syntax, whatever the target), per route: a policy
// reaching many routes renders its prefix once, with the variables still
// in it. The target may then drop the empty segments they leave
// (Target.StatPrefixSegments).
func (vb *vhostBuild) statPrefix(s string, e entry) string {
	return StatPrefixOf(s, e.att.Route.Meta.Namespace, e.att.Route.Meta.Name, e.rule.Name, vb.target.StatPrefixSegments)
}

// StatPrefixOf is the stat prefix s written on a route of the route
// namespace/name, rule rule: its variables filled (expandRouteVars), and
// with segments set, its empty "."-separated segments left out.
func StatPrefixOf(s, namespace, name, rule string, segments bool) string {
	s = expandRouteVars(s, namespace, name, rule)
	if !segments || !strings.Contains(s, ".") {
		return s
	}
	parts := strings.Split(s, ".")
	kept := parts[:0]
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ".")
}

// expandRouteVars fills {{ route_namespace }}, {{ route_name }} and
// {{ rule_name }} (empty for an unnamed rule) in s.
func expandRouteVars(s, namespace, name, rule string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	return routeTemplate.ReplaceAllStringFunc(s, func(m string) string {
		switch routeTemplate.FindStringSubmatch(m)[1] {
		case "route_namespace":
			return namespace
		case "route_name":
			return name
		default:
			return rule
		}
	})
}

// answeredBy is the route configuration of the direct response a rule's
// own policy puts in place of forwarding (its action, and the response
// headers it adds), nil when none does.
func answeredBy(rs *scoped) *routev3.Route {
	if rs == nil {
		return nil
	}
	for _, f := range rs.fields {
		if _, ok := f.route.GetAction().(*routev3.Route_DirectResponse); ok {
			return f.route
		}
	}
	return nil
}

// applyRouteMaps merges the policy fields that configure a route directly
// (RouteAction and Route fields): per field, the most specific level that
// sets it wins — the rule's own, then the listener's, then the Gateway's —
// as Envoy's most-specific-wins does for per-filter config. On a
// GRPCRoute's route (grpc), a field that does not reach GRPCRoutes from
// the listener or Gateway (levels after the first) is left out.
func applyRouteMaps(r *routev3.Route, grpc bool, levels ...*scoped) {
	// The fields decided so far, by kindID: a route's levels have a dozen
	// or two, and a map of them, made per route, outgrew its stack space.
	var arr [32]int32
	seen := arr[:0]
	var written map[string]string // secondWriter's
	for i, s := range levels {
		if s == nil {
			continue
		}
		for _, f := range s.fields {
			if grpc && i > 0 && f.notGRPC {
				continue
			}
			if f.forwardOnly && r.GetRoute() == nil {
				continue // a redirect: the field configures forwarding routes only
			}
			// A field decided here hides the less specific levels' even
			// when it renders nothing onto the route (a rule's own
			// URLRewrite, rendered by Gateway API routing, beats a
			// Gateway's autoHostRewrite).
			if slices.Contains(seen, f.kindID) {
				if ra, ok := r.Action.(*routev3.Route_Route); ok && f.fills && f.routeAction != nil {
					fillUnset(ra.Route, f.routeAction)
				}
				continue
			}
			seen = append(seen, f.kindID)
			if secondWriter != nil {
				written = checkOneWriter(written, f)
			}
			if f.route != nil {
				proto.Merge(r, f.route)
			}
			if ra, ok := r.Action.(*routev3.Route_Route); ok && f.routeAction != nil {
				proto.Merge(ra.Route, f.routeAction)
			}
		}
	}
}

// secondWriter, when set (render's tests set it), is told of a singular
// Route or RouteAction field that a field of a kind of one API group sets
// on a route after a field of another group's kind set it: merge decides
// between kinds of different families writing one Envoy path
// (merge.PathOverride), and render leaves the loser out, so no last
// writer may win a path here.
var secondWriter func(path, first, second string)

// checkOneWriter records the singular route paths f sets (written: path
// → kindKey, marked "|rule" for a route rule's own value) and tells
// secondWriter of one another group's kind set, unless either is a route
// rule's own value (which every controller translates ahead of any
// policy, and which merge leaves out of its verdict).
func checkOneWriter(written map[string]string, f *rendered) map[string]string {
	if written == nil {
		written = map[string]string{}
	}
	group := func(kindKey string) string { g, _, _ := strings.Cut(kindKey, "/"); return g }
	// own: the value in effect is a route rule's own (its owner, the
	// first contributor, is built in), which every kind renders alike
	own := len(f.contributors) > 0 && f.contributors[0].BuiltIn != nil
	visit := func(prefix string, m proto.Message) {
		if m == nil || !m.ProtoReflect().IsValid() {
			return
		}
		m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
			if fd.IsList() || fd.IsMap() {
				return true // appended to or keyed: not one value
			}
			p := prefix + string(fd.Name())
			if first, ok := written[p]; ok && group(first) != group(f.kindKey) && !strings.HasSuffix(first, "|rule") && !own {
				secondWriter(p, strings.TrimSuffix(first, "|rule"), f.kindKey)
			}
			written[p] = f.kindKey
			if own {
				written[p] += "|rule"
			}
			return true
		})
	}
	if f.route != nil {
		visit("", f.route)
	}
	if f.routeAction != nil {
		visit("route.", f.routeAction)
	}
	return written
}

// checkOneWriterIn is checkOneWriter for the settings m a field makes
// in a resource built per listener (prefix "hcm.", "listener.",
// "chain."), leaf by leaf: two kinds may set different fields of one
// message there (one family's idle timeout and another's
// max_connection_duration in common_http_protocol_options), as their
// declared paths say (policy.FieldSpec.Writes).
func checkOneWriterIn(written map[string]string, f *rendered, prefix string, m proto.Message) map[string]string {
	if m == nil || !m.ProtoReflect().IsValid() {
		return written
	}
	if written == nil {
		written = map[string]string{}
	}
	group := func(kindKey string) string { g, _, _ := strings.Cut(kindKey, "/"); return g }
	var visit func(prefix string, m protoreflect.Message)
	visit = func(prefix string, m protoreflect.Message) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.IsList() || fd.IsMap() {
				return true // appended to or keyed: not one value
			}
			p := prefix + string(fd.Name())
			if md := fd.Message(); md != nil && md.FullName().Parent() != "google.protobuf" {
				visit(p+".", v.Message())
				return true
			}
			if first, ok := written[p]; ok && group(first) != group(f.kindKey) {
				secondWriter(p, first, f.kindKey)
			}
			written[p] = f.kindKey
			return true
		})
	}
	visit(prefix, m.ProtoReflect())
	return written
}

// fillUnset sets the fields of src that dst leaves unset (a Gateway's
// timeouts are defaults for each route: the timeout and the idle timeout
// each where the route has none).
func fillUnset(dst, src *routev3.RouteAction) {
	c, ok := proto.Clone(src).(*routev3.RouteAction) // src is shared by every route of its level
	if !ok {
		return
	}
	d := dst.ProtoReflect()
	c.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if !d.Has(fd) {
			d.Set(fd, v)
		}
		return true
	})
}

// applyVHostMaps merges VirtualHost fields from the listener level, else
// the RouteConfiguration level.
func applyVHostMaps(vh *routev3.VirtualHost, levels ...*scoped) {
	var arr [32]int32 // as in applyRouteMaps
	seen := arr[:0]
	for _, s := range levels {
		if s == nil {
			continue
		}
		for _, f := range s.fields {
			if f.vhost == nil || slices.Contains(seen, f.kindID) {
				continue
			}
			seen = append(seen, f.kindID)
			proto.Merge(vh, f.vhost)
		}
	}
}

// ruleScope renders a rule's own merge once, whatever the number of
// virtual hosts and matches it appears in: a delegated rule's merge along
// the parent path it is served through (path): each flattened copy
// merges with its own parents' policies (merge.RulePath).
func (gb *gatewayBuild) ruleScope(rule *topology.Rule, path *merge.RulePath) *scoped {
	var pts merge.Points
	if path != nil {
		pts = path.Own
	} else if rp := gb.res.Rule(rule); rp != nil {
		pts = rp.Own
	}
	key := ruleKey{rule: rule, path: path}
	// the kinds this Gateway's controller takes (a route served by
	// Gateways of several controllers): a merge of its own there
	if on := gb.res.OnGateway(pts, gb.gw); len(on) != len(pts) || len(on) > 0 && &on[0] != &pts[0] {
		pts, key.gw = on, gb.gw
	}
	gb.mu.Lock()
	s, ok := gb.rules[key]
	gb.mu.Unlock()
	if ok {
		return s
	}
	s = gb.scope(pts, policy.ScopeRoute)
	gb.mu.Lock()
	defer gb.mu.Unlock()
	if prev, ok := gb.rules[key]; ok {
		return prev
	}
	gb.rules[key] = s
	return s
}

// pathOf is the parent path an entry's rule is served through (nil when
// the rule is not delegated).
func (gb *gatewayBuild) pathOf(e entry) *merge.RulePath {
	return gb.res.Rule(e.rule).PathOf(e.via)
}

// perFilter is a scope's typed_per_filter_config, computed when the
// scope was and shared by every resource the scope configures (nothing
// modifies it afterwards, and output expands each Any once).
func (s *scoped) perFilter() map[string]*anypb.Any {
	if s == nil {
		return nil
	}
	return s.tpfc
}

func (s *scoped) buildPerFilter() map[string]*anypb.Any {
	var out map[string]*anypb.Any
	for _, f := range s.fields {
		for k, v := range f.perFilter {
			if out == nil {
				out = map[string]*anypb.Any{}
			}
			if _, ok := out[k]; !ok {
				out[k] = v
			}
		}
	}
	return out
}
