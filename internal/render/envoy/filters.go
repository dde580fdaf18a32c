package envoy

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ruleFilter is a Gateway API route filter, common to HTTPRoute and
// GRPCRoute.
type ruleFilter struct {
	reqHeaders, respHeaders *gwv1.HTTPHeaderFilter
	redirect                *gwv1.HTTPRequestRedirectFilter
	rewrite                 *gwv1.HTTPURLRewriteFilter
	mirror                  *gwv1.HTTPRequestMirrorFilter
	// mirrorTo is the mirror's backend as topology resolved it
	// (topology.Rule.Mirrors).
	mirrorTo *topology.Backend
	// index is the filter's in its rule's filters.
	index int
}

func ruleFilters(rule *topology.Rule) []ruleFilter {
	var out []ruleFilter
	switch {
	case rule.HTTP != nil:
		for _, f := range rule.HTTP.Filters {
			out = append(out, ruleFilter{reqHeaders: f.RequestHeaderModifier, respHeaders: f.ResponseHeaderModifier,
				redirect: f.RequestRedirect, rewrite: f.URLRewrite, mirror: f.RequestMirror})
		}
	case rule.GRPC != nil:
		for _, f := range rule.GRPC.Filters {
			out = append(out, ruleFilter{reqHeaders: f.RequestHeaderModifier, respHeaders: f.ResponseHeaderModifier, mirror: f.RequestMirror})
		}
	}
	k := 0
	for i := range out {
		out[i].index = i
		if out[i].mirror != nil && k < len(rule.Mirrors) {
			out[i].mirrorTo = rule.Mirrors[k]
			k++
		}
	}
	return out
}

// backendRefFilters are the header filters of a rule's i-th backendRef
// (the other filters a backendRef may carry are policy references).
func backendRefFilters(rule *topology.Rule, i int) []ruleFilter {
	var out []ruleFilter
	switch {
	case rule.HTTP != nil && i < len(rule.HTTP.BackendRefs):
		for _, f := range rule.HTTP.BackendRefs[i].Filters {
			out = append(out, ruleFilter{reqHeaders: f.RequestHeaderModifier, respHeaders: f.ResponseHeaderModifier})
		}
	case rule.GRPC != nil && i < len(rule.GRPC.BackendRefs):
		for _, f := range rule.GRPC.BackendRefs[i].Filters {
			out = append(out, ruleFilter{reqHeaders: f.RequestHeaderModifier, respHeaders: f.ResponseHeaderModifier})
		}
	}
	return out
}

// withInherited adds to a delegated child rule's filters those it takes
// from its delegating parents (topology's FlatMatch.Inherited, decided and
// judged there with the entry).
func withInherited(fs []ruleFilter, inherited []topology.InheritedFilter) []ruleFilter {
	if len(inherited) == 0 {
		return fs
	}
	out := slices.Clone(fs)
	for _, in := range inherited {
		if in.Session != nil {
			continue // a rule field, not a filter (withSession)
		}
		f := in.Filter
		out = append(out, ruleFilter{reqHeaders: f.RequestHeaderModifier, respHeaders: f.ResponseHeaderModifier, redirect: f.RequestRedirect,
			rewrite: f.URLRewrite, mirror: f.RequestMirror, mirrorTo: in.Mirror})
	}
	return out
}

// headerSkips are the header operations the Gateway's controller does not
// apply (topology.Graph.SkipsOn).
type headerSkips []topology.HeaderSkip

// has reports whether the operation op (set, add, remove) at index i of
// h is skipped.
func (s headerSkips) has(h *gwv1.HTTPHeaderFilter, op string, i int) bool {
	return slices.Contains(s, topology.HeaderSkip{Filter: h, Op: op, Index: i})
}

// applyHeaderFilters applies RequestHeaderModifier and
// ResponseHeaderModifier: set overwrites, add appends, remove removes —
// but the operations the Gateway's controller skips (skip). Under
// Target.HeaderNamesOnce the filters are one list: a name already written
// (or removed) in a direction is not written (or removed) again.
func applyHeaderFilters(r *routev3.Route, fs []ruleFilter, t *Target, skip headerSkips) {
	var req, resp headerNames
	for _, f := range fs {
		if h := f.reqHeaders; h != nil {
			r.RequestHeadersToAdd = append(r.RequestHeadersToAdd, req.options(h, t, skip)...)
			r.RequestHeadersToRemove = append(r.RequestHeadersToRemove, req.removals(h, t, skip)...)
		}
		if h := f.respHeaders; h != nil {
			r.ResponseHeadersToAdd = append(r.ResponseHeadersToAdd, resp.options(h, t, skip)...)
			r.ResponseHeadersToRemove = append(r.ResponseHeadersToRemove, resp.removals(h, t, skip)...)
		}
	}
}

// headerNames are the header names (lower case) a list of filters has
// written and removed so far in one direction, under
// Target.HeaderNamesOnce.
type headerNames struct {
	written, removed map[string]bool
}

// once reports whether name is new to seen, and records it.
func once(seen *map[string]bool, name string) bool {
	k := strings.ToLower(name)
	if (*seen)[k] {
		return false
	}
	if *seen == nil {
		*seen = map[string]bool{}
	}
	(*seen)[k] = true
	return true
}

// options are a header filter's set and add entries in the order the
// target's controller writes them: sets first, or adds first under
// Target.HeaderAddsFirst. Envoy applies them in order, so a header both
// added and set ends with the set value alone when the add comes first,
// and with both values when the set does. Under Target.HeaderNamesOnce
// an entry whose name is already written is left out. A skipped entry is
// left out (and names nothing); under Target.LiteralHeaderValues a % is
// doubled, so Envoy writes the value as the controller does.
func (n *headerNames) options(h *gwv1.HTTPHeaderFilter, t *Target, skip headerSkips) []*corev3.HeaderValueOption {
	var out []*corev3.HeaderValueOption
	write := func(op string, hs []gwv1.HTTPHeader, action corev3.HeaderValueOption_HeaderAppendAction) {
		for i, e := range hs {
			if skip.has(h, op, i) || t.HeaderNamesOnce && !once(&n.written, string(e.Name)) {
				continue
			}
			v := e.Value
			if t.LiteralHeaderValues {
				v = strings.ReplaceAll(v, "%", "%%")
			}
			out = append(out, &corev3.HeaderValueOption{Header: &corev3.HeaderValue{Key: string(e.Name), Value: v},
				AppendAction: action})
		}
	}
	sets := func() { write("set", h.Set, corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD) }
	adds := func() { write("add", h.Add, corev3.HeaderValueOption_APPEND_IF_EXISTS_OR_ADD) }
	if t.HeaderAddsFirst {
		adds()
		sets()
		return out
	}
	sets()
	adds()
	return out
}

// removals are a header filter's remove entries but the skipped ones,
// each name once under Target.HeaderNamesOnce.
func (n *headerNames) removals(h *gwv1.HTTPHeaderFilter, t *Target, skip headerSkips) []string {
	if !t.HeaderNamesOnce && len(skip) == 0 {
		return h.Remove
	}
	var out []string
	for i, name := range h.Remove {
		if !skip.has(h, "remove", i) && (!t.HeaderNamesOnce || once(&n.removed, name)) {
			out = append(out, name)
		}
	}
	return out
}

var redirectCodes = map[int]routev3.RedirectAction_RedirectResponseCode{
	301: routev3.RedirectAction_MOVED_PERMANENTLY,
	302: routev3.RedirectAction_FOUND,
	303: routev3.RedirectAction_SEE_OTHER,
	307: routev3.RedirectAction_TEMPORARY_REDIRECT,
	308: routev3.RedirectAction_PERMANENT_REDIRECT,
}

// wellKnownPort is the port a URL of the scheme leaves out.
var wellKnownPort = map[string]uint32{"http": 80, "https": 443}

// redirectAction translates RequestRedirect on a listener. Without a port
// the redirect keeps the scheme's well-known port when it names a scheme,
// else the listener's port, as the Gateway API asks; a port that is the
// well-known one of the scheme the Location uses — the filter's, else the
// listener's (https on an HTTPS listener, http on any other) — is left
// out of the Location, whether the filter or the listener gave it (for
// https, https_redirect says the scheme under targets with
// Target.HTTPSRedirect). Under Target.RedirectPortsByNumber the port is
// the filter's, else its scheme's well-known one, else the listener's,
// and left out when it is 80 or 443. A status other than 0 is the one the
// Gateway's controller reads off the route for it
// (topology.Graph.RedirectStatusOn), over the filter's.
func redirectAction(f *gwv1.HTTPRequestRedirectFilter, e entry, l *topology.Listener, t Target, status int) *routev3.RedirectAction {
	ra := &routev3.RedirectAction{}
	scheme := ""
	if f.Scheme != nil {
		scheme = strings.ToLower(*f.Scheme)
		ra.SchemeRewriteSpecifier = &routev3.RedirectAction_SchemeRedirect{SchemeRedirect: *f.Scheme}
		if scheme == "https" && t.HTTPSRedirect {
			ra.SchemeRewriteSpecifier = &routev3.RedirectAction_HttpsRedirect{HttpsRedirect: true}
		}
	}
	if f.Hostname != nil {
		ra.HostRedirect = string(*f.Hostname)
	}
	if scheme == "" && l != nil {
		scheme = "http"
		if l.Protocol == gwv1.HTTPSProtocolType {
			scheme = "https"
		}
	}
	switch {
	case f.Port != nil:
		ra.PortRedirect = uint32(*f.Port)
	case t.RedirectPortsByNumber && f.Scheme != nil && wellKnownPort[scheme] != 0:
		ra.PortRedirect = wellKnownPort[scheme]
	case (f.Scheme == nil || t.RedirectPortsByNumber) && l != nil:
		ra.PortRedirect = uint32(l.Port)
	}
	switch {
	case t.RedirectPortsByNumber:
		if ra.PortRedirect == 80 || ra.PortRedirect == 443 {
			ra.PortRedirect = 0
		}
	case wellKnownPort[scheme] == ra.PortRedirect:
		ra.PortRedirect = 0
	}
	// The HTTPRoute CRD defaults statusCode to 302, which the API server
	// writes and the model decodes; a filter without one (its CRD gave no
	// default) answers the controller's own default: 302 under
	// Target.RedirectFound, else Envoy's 301, for a translator that sets
	// no code.
	switch {
	case f.StatusCode != nil:
		ra.ResponseCode = redirectCodes[*f.StatusCode]
	case t.RedirectFound:
		ra.ResponseCode = routev3.RedirectAction_FOUND
	}
	if status != 0 {
		ra.ResponseCode = redirectCodes[status]
	}
	if p := f.Path; p != nil {
		switch {
		case p.Type == gwv1.FullPathHTTPPathModifier && p.ReplaceFullPath != nil:
			ra.PathRewriteSpecifier = &routev3.RedirectAction_PathRedirect{PathRedirect: *p.ReplaceFullPath}
		case p.Type == gwv1.PrefixMatchHTTPPathModifier && p.ReplacePrefixMatch != nil && t.PrefixModifiersEscaped:
			if re := escapedPrefixRewrite(*p.ReplacePrefixMatch, e); re != nil {
				ra.PathRewriteSpecifier = &routev3.RedirectAction_RegexRewrite{RegexRewrite: re}
			} else {
				ra.PathRewriteSpecifier = &routev3.RedirectAction_PrefixRewrite{PrefixRewrite: *p.ReplacePrefixMatch}
			}
		case p.Type == gwv1.PrefixMatchHTTPPathModifier && p.ReplacePrefixMatch != nil:
			ra.PathRewriteSpecifier = &routev3.RedirectAction_PrefixRewrite{PrefixRewrite: prefixReplacement(*p.ReplacePrefixMatch, e, t)}
		}
	}
	return ra
}

// prefixReplacement keeps the path separator between the replaced prefix
// and the rest of the path, unless the target writes the replacement as
// given (Target.PathModifiersAsWritten).
func prefixReplacement(repl string, e entry, t Target) string {
	if !t.PathModifiersAsWritten && e.path.kind == 2 && strings.TrimRight(e.path.value, "/") == "" && !strings.HasSuffix(repl, "/") {
		return repl + "/"
	}
	return repl
}

// applyRewrite translates URLRewrite on a route matching m (a hostname
// rewrite appends x-forwarded-host under targets with
// Target.HostRewriteAppendsXFH).
func applyRewrite(act *routev3.RouteAction, f *gwv1.HTTPURLRewriteFilter, e entry, m *routev3.RouteMatch, t Target) {
	if f.Hostname != nil {
		act.HostRewriteSpecifier = &routev3.RouteAction_HostRewriteLiteral{HostRewriteLiteral: string(*f.Hostname)}
		act.AppendXForwardedHost = t.HostRewriteAppendsXFH
	}
	p := f.Path
	if p == nil {
		return
	}
	if t.PathModifiersAsWritten {
		rewriteAsWritten(act, p, m)
		return
	}
	switch {
	case p.Type == gwv1.PrefixMatchHTTPPathModifier && p.ReplacePrefixMatch != nil && t.PrefixModifiersEscaped:
		if re := escapedPrefixRewrite(*p.ReplacePrefixMatch, e); re != nil {
			act.RegexRewrite = re
		} else {
			act.PrefixRewrite = strings.TrimSuffix(*p.ReplacePrefixMatch, "/")
		}
	case p.Type == gwv1.FullPathHTTPPathModifier && p.ReplaceFullPath != nil:
		act.RegexRewrite = &matcherv3.RegexMatchAndSubstitute{
			Pattern: &matcherv3.RegexMatcher{Regex: "^/.*$"}, Substitution: *p.ReplaceFullPath,
		}
	case p.Type == gwv1.PrefixMatchHTTPPathModifier && p.ReplacePrefixMatch != nil && *p.ReplacePrefixMatch == "/" && e.path.kind == 2 && e.path.value != "/":
		// Envoy's prefix rewrite to "/" would leave "//rest" for
		// "/prefix/rest", where the Gateway API asks for "/rest" (its
		// HTTPRouteRewritePath conformance test): a regex strips the
		// prefix and the slashes after it instead.
		act.RegexRewrite = &matcherv3.RegexMatchAndSubstitute{
			Pattern: &matcherv3.RegexMatcher{Regex: "^" + e.path.value + `\/*`}, Substitution: "/",
		}
	case p.Type == gwv1.PrefixMatchHTTPPathModifier && p.ReplacePrefixMatch != nil:
		act.PrefixRewrite = prefixReplacement(*p.ReplacePrefixMatch, e, t)
	}
}

// escapedPrefixRewrite is, under Target.PrefixModifiersEscaped, the
// regular expression that replaces a rule's path prefix (as written, its
// metacharacters escaped) and the slashes after it by "/", for a
// replacement of "" or "/"; nil for any other replacement, or a rule
// that matches no path prefix.
func escapedPrefixRewrite(repl string, e entry) *matcherv3.RegexMatchAndSubstitute {
	if e.path.kind != 2 || repl != "" && repl != "/" {
		return nil
	}
	return &matcherv3.RegexMatchAndSubstitute{
		Pattern: &matcherv3.RegexMatcher{Regex: "^" + regexp.QuoteMeta(e.path.value) + `\/*`}, Substitution: "/",
	}
}

// rewriteAsWritten is a URLRewrite path modifier under
// Target.PathModifiersAsWritten: the full path through .*, a prefix
// replaced by "/" through ^<the path m matches, as written>\/* (what
// the route matches by a regular expression keeps a prefix rewrite), any
// other prefix replacement as given; an empty replacement, nothing. A
// later rewrite (one a delegated route inherits from a parent that
// prefers its own) replaces the earlier's path rewrite whole: Envoy takes
// one of the two forms only.
func rewriteAsWritten(act *routev3.RouteAction, p *gwv1.HTTPPathModifier, m *routev3.RouteMatch) {
	switch {
	case p.Type == gwv1.FullPathHTTPPathModifier && p.ReplaceFullPath != nil && *p.ReplaceFullPath == "",
		p.Type == gwv1.PrefixMatchHTTPPathModifier && p.ReplacePrefixMatch != nil && *p.ReplacePrefixMatch == "":
		// an empty replacement rewrites nothing (the controller applies a
		// non-empty one only), and leaves what an earlier one set
	case p.Type == gwv1.FullPathHTTPPathModifier && p.ReplaceFullPath != nil:
		act.PrefixRewrite = ""
		act.RegexRewrite = &matcherv3.RegexMatchAndSubstitute{
			Pattern: &matcherv3.RegexMatcher{Regex: ".*"}, Substitution: *p.ReplaceFullPath,
		}
	case p.Type == gwv1.PrefixMatchHTTPPathModifier && p.ReplacePrefixMatch != nil:
		path := cmp.Or(m.GetPrefix(), m.GetPath(), m.GetPathSeparatedPrefix())
		if path != "" && *p.ReplacePrefixMatch == "/" {
			act.PrefixRewrite = ""
			act.RegexRewrite = &matcherv3.RegexMatchAndSubstitute{
				Pattern: &matcherv3.RegexMatcher{Regex: "^" + path + `\/*`}, Substitution: "/",
			}
			return
		}
		act.RegexRewrite = nil
		act.PrefixRewrite = *p.ReplacePrefixMatch
	}
}

// mirrorPolicy translates RequestMirror (percent or fraction → runtime
// fraction, as Target.MirrorFraction reads them); under
// Target.MirrorsKeepHost the mirrored request keeps its Host, else Envoy
// appends "-shadow" to it. Nil: the controller writes no mirror policy
// for f (MirrorShare.Off).
func mirrorPolicy(cluster string, f *gwv1.HTTPRequestMirrorFilter, t Target) *routev3.RouteAction_RequestMirrorPolicy {
	share := policy.DefaultMirrorShare(f)
	if t.MirrorFraction != nil {
		share = t.MirrorFraction(f)
	}
	if share.Off {
		return nil
	}
	p := &routev3.RouteAction_RequestMirrorPolicy{Cluster: cluster, DisableShadowHostSuffixAppend: t.MirrorsKeepHost}
	if !share.Every {
		den := typev3.FractionalPercent_HUNDRED
		switch share.Denominator {
		case 10_000:
			den = typev3.FractionalPercent_TEN_THOUSAND
		case 1_000_000:
			den = typev3.FractionalPercent_MILLION
		}
		p.RuntimeFraction = &corev3.RuntimeFractionalPercent{DefaultValue: &typev3.FractionalPercent{
			Numerator: share.Numerator, Denominator: den}}
	}
	return p
}

func inlineString(s string) *corev3.DataSource {
	return &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: s}}
}

func wrapUint32(v uint32) *wrapperspb.UInt32Value { return wrapperspb.UInt32(v) }

// backendRefsFiltered reports whether any backendRef of the rule carries
// a filter (Target.BackendRefDestinations).
func backendRefsFiltered(rule *topology.Rule) bool {
	switch {
	case rule.HTTP != nil:
		return slices.ContainsFunc(rule.HTTP.BackendRefs, func(b gwv1.HTTPBackendRef) bool { return len(b.Filters) > 0 })
	case rule.GRPC != nil:
		return slices.ContainsFunc(rule.GRPC.BackendRefs, func(b gwv1.GRPCBackendRef) bool { return len(b.Filters) > 0 })
	}
	return false
}

// backendRefHostRewrite is the hostname the URLRewrite filter of a rule's
// i-th backendRef rewrites the Host to, "" when none does (the last one
// wins: under Target.BackendRefDestinations the filters are read in
// order).
func backendRefHostRewrite(rule *topology.Rule, i int) string {
	host := ""
	if rule.HTTP != nil && i < len(rule.HTTP.BackendRefs) {
		for _, f := range rule.HTTP.BackendRefs[i].Filters {
			if f.URLRewrite != nil && f.URLRewrite.Hostname != nil {
				host = string(*f.URLRewrite.Hostname)
			}
		}
	}
	return host
}
