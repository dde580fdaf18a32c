package envoygateway

import (
	"cmp"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	"k8s.io/apimachinery/pkg/util/validation"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// validateRoute is Envoy Gateway's validation of the routes on its
// Gateways (policy.Family.ValidateRoute), by its translator's rules: a
// rule whose match or filter it cannot translate is dropped (Accepted False when every rule is, PartiallyInvalid otherwise);
// a backendRef or filter reference that does not resolve leaves the rule
// in place, answering 500, and sets ResolvedRefs False.
func validateRoute(rt *topology.Route, env *policy.Env, set *policy.Set) *policy.RouteVerdict {
	onHost := RunningOnHost.Bool(env.Config)
	noBackend := !EnableBackend.Bool(env.Config)
	rv := &routeValidation{rt: rt, m: env.Model, env: env, set: set, verdict: &policy.RouteVerdict{JoinReasons: true}, onHost: onHost, noBackend: noBackend}
	if msg := ruleCountProblem(rt.Route); msg != "" {
		for _, rule := range rt.Rules {
			p := dropRule("InvalidRule", "spec.rules", "%s", msg)
			p.routeWide = true
			rv.report(rule.Rule, p)
		}
		// processTCPRouteParentRefs (and UDP's) stop at the rule count,
		// before any backendRef: no ResolvedRefs condition.
		rv.verdict.RefsUnjudged = true
	} else {
		for _, rule := range rt.Rules {
			rv.rule(rule.Rule)
		}
	}
	rv.streamRefsMessages()
	rv.terminatedDynamicResolver()
	rv.serveNothing()
	rv.overlaps()
	rv.verdict.NotAccepted = notAccepted(rt)
	rv.acceptedAfterRules()
	for _, p := range rt.Parents {
		// Envoy Gateway translates only the ListenerSets its Gateways
		// accept: a parentRef to one they decline names nothing it knows.
		if p.Gateway == nil && p.Declined != nil {
			rv.verdict.Unreported = append(rv.verdict.Unreported, p.Index)
		}
	}
	rv.sharedEntries()
	return rv.verdict
}

// sharedEntries: Envoy Gateway finds a parentRef's status entry by the
// first entry whose reference it counts equal (contexts.go:
// GetRouteParentContext, IsParentRefEqual — group, kind and namespace
// defaulted, the name, the sectionName, and the port only where both
// give a sectionName), so the parentRefs it counts equal share the
// first's entry, which names the first as written; the route's CRD tells
// them apart as written (a namespace left out and the route's own
// differ; ports without a sectionName), so all are admitted. What the
// entry says: route.go: processAllowedListenersForParentRefs resets it
// for each in turn, so the last one's listeners decide Accepted; then
// each one's hostname check (processHTTPRouteParentRefs and its
// siblings) may turn it False, NoMatchingListenerHostname, which
// nothing after turns back — on a GRPCRoute only while it says Accepted
// True (processGRPCRouteParentRefs checks the entry first).
func (rv *routeValidation) sharedEntries() {
	rt := rv.rt
	done := map[int]bool{}
	for i, p := range rt.Parents {
		if done[p.Index] || p.Gateway == nil {
			continue
		}
		group := []*topology.Parent{p}
		for _, q := range rt.Parents[i+1:] {
			if q.Gateway != nil && sameParentRef(p.Ref, q.Ref) {
				group = append(group, q)
				done[q.Index] = true
				rv.verdict.Unreported = append(rv.verdict.Unreported, q.Index)
			}
		}
		if len(group) == 1 {
			continue
		}
		says := group[len(group)-1]
		// processGRPCRouteParentRefs skips the hostname check once the
		// entry says Accepted False
		listenersRefuse := says.Reason == "NoMatchingParent" || says.Reason == "NotAllowedByListeners"
		if k := slices.IndexFunc(group, func(q *topology.Parent) bool { return q.Reason == "NoMatchingListenerHostname" }); k >= 0 && !(rt.Kind == "GRPCRoute" && listenersRefuse) {
			says = group[k]
		}
		if says != p {
			if rv.verdict.SharedStatus == nil {
				rv.verdict.SharedStatus = map[int]int{}
			}
			rv.verdict.SharedStatus[p.Index] = says.Index
		}
	}
}

// sameParentRef is IsParentRefEqual on two references topology
// defaulted (group, kind and namespace set).
func sameParentRef(a, b gwv1.ParentReference) bool {
	if *a.Group != *b.Group || *a.Kind != *b.Kind || a.Name != b.Name || *a.Namespace != *b.Namespace {
		return false
	}
	switch {
	case a.SectionName == nil && b.SectionName == nil:
		return true // the port is not compared
	case a.SectionName == nil || b.SectionName == nil || *a.SectionName != *b.SectionName:
		return false
	case a.Port == nil || b.Port == nil:
		return a.Port == nil && b.Port == nil
	}
	return *a.Port == *b.Port
}

// notAccepted words the Accepted=False condition of each parent the route
// does not attach to as Envoy Gateway's translator does
// (route.go: processAllowedListenersForParentRefs, and the hostname check
// of each route kind's processXRouteParentRefs); the reason is the one
// topology decided, which is Envoy Gateway's too. A parent that names no
// Gateway the translator holds gets no status from it at all and is not
// worded here.
func notAccepted(rt *topology.Route) map[int]policy.Condition {
	var out map[int]policy.Condition
	for _, p := range rt.Parents {
		if p.Accepted || p.Gateway == nil {
			continue
		}
		msg := ""
		switch p.Reason {
		case "NoMatchingParent": // no listener has the parentRef's sectionName or port
			msg = "No listeners match this parent ref"
		case "NotAllowedByListeners":
			msg = "No listeners included by this parent ref allowed this attachment."
		case "NoMatchingListenerHostname":
			msg = fmt.Sprintf("There were no hostname intersections between the %s and this parent ref's Listener(s).", rt.Kind)
		default:
			continue
		}
		if out == nil {
			out = map[int]policy.Condition{}
		}
		out[p.Index] = policy.Condition{Type: "Accepted", Status: "False", Reason: p.Reason, Message: msg}
	}
	return out
}

// acceptedAfterRules is what processHTTPRouteParentRefs and
// processGRPCRouteParentRefs make of the Accepted condition of a parent
// the route does not attach to, once its rules are judged (they are
// judged on every parent): dropping some rules writes Accepted True
// beside PartiallyInvalid over the parent's NotAllowedByListeners or
// NoMatchingParent (nothing but a hostname check, which a parent without
// listeners passes, comes after it); dropping every rule writes the
// rules' reason, except on an HTTPRoute's parent whose listeners share no
// hostname with the route: its hostname check comes after the rules'.
func (rv *routeValidation) acceptedAfterRules() {
	dropped := map[int]bool{}
	for _, d := range rv.verdict.Dropped {
		dropped[d.Index] = true
	}
	rules := len(rv.rt.Rules)
	if len(dropped) == 0 || rv.rt.Kind != "HTTPRoute" && rv.rt.Kind != "GRPCRoute" {
		return
	}
	for _, p := range rv.rt.Parents {
		if p.Accepted || p.Gateway == nil {
			continue
		}
		switch hostnames := p.Reason == "NoMatchingListenerHostname"; {
		case len(dropped) < rules && !hostnames:
			if rv.verdict.NotAccepted == nil {
				rv.verdict.NotAccepted = map[int]policy.Condition{}
			}
			rv.verdict.NotAccepted[p.Index] = policy.Condition{Type: "Accepted", Status: "True", Reason: "Accepted", Message: "Route is accepted"}
		case len(dropped) == rules && hostnames && rv.rt.Kind == "HTTPRoute":
			// after the rules' Accepted=False, so that it stands
			if rv.verdict.ParentConditions == nil {
				rv.verdict.ParentConditions = map[int][]policy.Condition{}
			}
			rv.verdict.ParentConditions[p.Index] = append(rv.verdict.ParentConditions[p.Index], rv.verdict.NotAccepted[p.Index])
		}
	}
}

type routeValidation struct {
	rt      *topology.Route
	m       *model.Model
	env     *policy.Env
	set     *policy.Set
	verdict *policy.RouteVerdict
	onHost  bool // Envoy Gateway runs on the host (envoyGateway.runningOnHost)
	// noBackend: Envoy Gateway's Backend kind is disabled
	// (envoyGateway.enableBackend: false).
	noBackend bool
	// dynamic: a rule has a valid DynamicResolver destination with a
	// weight.
	dynamic bool
	// refErrors are the error texts of the verdict's Unresolved, in
	// order, as Envoy Gateway's errors carry them (streamRefsMessage).
	refErrors []string
}

// streamRefsMessages words a stream route's ResolvedRefs messages as
// processTCPRouteParentRefs and its TLS and UDP siblings write them: the
// condition's message is their collector's own text
// (MultiStatusError.Error, not passed through Error2ConditionMsg), which
// is one error's text as it is — no capital added, no full stop — and
// several errors' each capitalised and full-stopped, on lines of their
// own (status joins the verdict's Unresolved by new lines).
func (rv *routeValidation) streamRefsMessages() {
	v := rv.verdict
	if !rv.streamRoute() || len(v.Unresolved) != len(rv.refErrors) {
		return
	}
	for i := range v.Unresolved {
		if len(v.Unresolved) == 1 {
			v.Unresolved[i].Message = rv.refErrors[i]
		} else {
			v.Unresolved[i].Message = conditionMessage(rv.refErrors[i])
		}
	}
}

// terminatedDynamicResolver is processTLSRouteParentRefs' check on each
// served listener a TLSRoute attaches to: a dynamic resolver forwards by
// the SNI, so it needs TLS passthrough; on a listener that terminates TLS
// the parent gets ResolvedRefs False and the route is not served there
// (RouteVerdict.UnservedOn), though it is on the parent's passthrough
// listeners.
func (rv *routeValidation) terminatedDynamicResolver() {
	if rv.rt.Kind != "TLSRoute" || !rv.dynamic {
		return
	}
	c := policy.Condition{Type: "ResolvedRefs", Status: "False",
		Reason: "UnsupportedValue", Message: "Dynamic resolver backend is only supported with TLS passthrough listeners"}
	for _, p := range rv.rt.Parents {
		terminating := slices.DeleteFunc(slices.Clone(p.Listeners), func(l *topology.Listener) bool {
			return l.Unserved != "" || l.TLS != nil && l.TLS.Mode != nil && *l.TLS.Mode != gwv1.TLSModeTerminate
		})
		if len(terminating) == 0 {
			continue
		}
		if rv.verdict.ParentConditions == nil {
			rv.verdict.ParentConditions = map[int][]policy.Condition{}
		}
		rv.verdict.ParentConditions[p.Index] = append(rv.verdict.ParentConditions[p.Index], c)
		if rv.verdict.UnservedOn == nil {
			rv.verdict.UnservedOn = map[*topology.Listener]policy.Condition{}
		}
		for _, l := range terminating {
			rv.verdict.UnservedOn[l] = c
			path := fmt.Sprintf("spec.parentRefs[%d]", p.Index)
			rv.verdict.Diagnostics = append(rv.verdict.Diagnostics, diag.Diagnostic{Code: topology.LintStreamRouteNotProgrammed.Code, Severity: topology.LintStreamRouteNotProgrammed.Severity,
				Object: rv.rt.Key().Ref(), Field: path, Pos: rv.rt.Src.FieldPos(path),
				Message: fmt.Sprintf("TLSRoute %s/%s is refused (ResolvedRefs=False, %s) by TLS listener %s and carries no connection there: %s; the listener terminates TLS",
					rv.rt.Meta.Namespace, rv.rt.Meta.Name, c.Reason, l.ID(), c.Message)})
		}
	}
}

// routeProblem is one of Envoy Gateway's route status errors: the
// condition it turns False (Accepted drops the rule) and its reason.
type routeProblem struct {
	condition, reason, message string
	// path is the field at fault, for the finding.
	path string
	// reported: attach already reports it (an ExtensionRef it cannot
	// resolve), so no second finding.
	reported bool
	// status is the direct response answering the rule's requests in
	// place of forwarding them (Envoy Gateway's 500 for a rule whose
	// filters it refuses), 0 for none: a dropped rule without one has no
	// route at all.
	status int
	// ref is the backendRef at fault (its index in the rule), -1 for none.
	ref int
	// collected is the reason the route's condition counts it under when
	// it is collected in a group (collectFilterProblems), "" otherwise.
	collected string
	// destination: the problem is one only building the backend's
	// destination shows (processDestination: its TLS, its address
	// types), not one of validateBackendRef's.
	destination bool
	// routeWide: the route's own problem, which drops every rule
	// (policy.DroppedRule.RouteWide).
	routeWide bool
	// ownStop: Envoy Gateway's error text ends with a full stop of its
	// own (message's is not one Error2ConditionMsg added).
	ownStop bool
}

// collectFilterProblems gives a rule's filter problems the reasons Envoy
// Gateway's route conditions count them under: ProcessHTTPFilters and
// ProcessGRPCFilters collect them in a TypedErrorCollector of their own,
// one error per condition type whose reason is the distinct reasons of its
// problems, sorted and comma-joined (MultiStatusError.Reason), and the
// rule's collector joins that string with the other problems' reasons as
// one reason — so BackendNotFound,UnsupportedValue from a rule's filters
// beside a backendRef's BackendNotFound is
// BackendNotFound,BackendNotFound,UnsupportedValue.
func collectFilterProblems(probs []*routeProblem) {
	reasons := map[string][]string{}
	for _, p := range probs {
		reasons[p.condition] = append(reasons[p.condition], p.reason)
	}
	for _, p := range probs {
		rs := slices.Clone(reasons[p.condition])
		slices.Sort(rs)
		p.collected = strings.Join(slices.Compact(rs), ",")
	}
}

func dropRule(reason, path, format string, args ...any) *routeProblem {
	return &routeProblem{condition: "Accepted", reason: reason, path: path, message: fmt.Sprintf(format, args...), ref: -1}
}

func unresolved(reason, path, format string, args ...any) *routeProblem {
	return &routeProblem{condition: "ResolvedRefs", reason: reason, path: path, message: fmt.Sprintf(format, args...), ref: -1}
}

// rule validates one rule as Envoy Gateway's translator does
// (processHTTPRouteRules): its filters first, every one of them (a filter
// problem refuses the rule, whose requests are answered 500, but the rule
// is still processed); then its matches (a problem leaves the rule out of
// the configuration, and its backendRefs are not looked at); then its
// backendRefs, each of which is reported and refused (its share of the
// requests is answered 500).
func (rv *routeValidation) rule(rule *model.Rule) {
	filters := ruleFilters(rule)
	probs, st := rv.filtersProblems(filters, rule.GRPC != nil)
	collectFilterProblems(probs)
	for _, f := range filters {
		// A mirror is configured only where processRequestMirrorFilter
		// appends it, and stays unless a conflict clears the rule's.
		if f.Type == string(gwv1.HTTPRouteFilterRequestMirror) && f.Mirror != nil && !slices.Contains(st.mirrors, f.index) {
			rv.verdict.Unmirrored = append(rv.verdict.Unmirrored, policy.FilterRef{Rule: rule.Index, Filter: f.index})
		}
	}
	filtersFailed := false
	for _, p := range probs {
		if p.condition != "BackendsAvailable" {
			filtersFailed = true
			p.status = 500 // only its copies go nowhere otherwise
		}
	}
	// The cookies an HTTPRouteFilter adds to the rule's matches are
	// compiled with them (processHTTPRouteRule, after the filters).
	mp := matchProblem(rule)
	if mp == nil {
		mp = cookieMatchProblem(rule, st.cookies)
	}
	if mp != nil {
		// The rule has no route at all: no direct response answers it.
		for _, p := range probs {
			p.status = 0
			rv.report(rule, p)
		}
		rv.report(rule, mp)
		return
	}
	for _, p := range probs {
		rv.report(rule, p)
	}
	refused, noEndpoints, valid, dynamic := false, false, 0, false
	for j, b := range rule.BackendRefs {
		if p := rv.backendProblem(rule, j, b); p != nil {
			p.message = rv.backendRefMessage(rule, j, p.message)
			p.ref = j
			rv.report(rule, p)
			refused = true
			continue
		}
		if b.Weight == 0 {
			continue
		}
		if p := rv.endpointsProblem(b.BackendObjectReference); p != nil {
			p.path, p.ref = b.Path, j
			if rv.streamRoute() {
				// A stream route's destination errors are all
				// ResolvedRefs ones (processTCPRouteParentRefs and its
				// siblings collect them without telling them apart).
				p.condition = "ResolvedRefs"
				refused = true
			} else {
				p.message = "Failed to find endpoints: " + p.message
				noEndpoints = true
			}
			rv.report(rule, p)
			continue
		}
		if p := rv.sliceAddressTypeProblem(b.BackendObjectReference); p != nil {
			p.message = rv.backendRefMessage(rule, j, p.message)
			p.path, p.ref = b.Path, j
			rv.report(rule, p)
			refused = true
			continue
		}
		valid++
		dynamic = dynamic || rv.isDynamicResolverRef(b.BackendObjectReference)
	}
	rv.dynamic = rv.dynamic || dynamic
	// A rule none of whose backends has an endpoint, none refused, is
	// answered 503 (a refused one makes it 500, its filters' failure too),
	// unless its filters redirect or answer it themselves.
	if noEndpoints && !refused && !filtersFailed && valid == 0 && !st.redirect && st.directResponse == nil {
		rv.verdict.Answered = append(rv.verdict.Answered, policy.AnsweredRule{Index: rule.Index, Status: 503, Reason: "EndpointsNotFound",
			Message: "none of its backendRefs' Services has an endpoint for the port in the EndpointSlices of the input"})
	}
	// The dynamic resolver's checks come last in processHTTPRouteRules'
	// switch: only a rule whose filters pass and that has a valid
	// destination with a weight reaches them.
	if dynamic && !filtersFailed && valid > 0 {
		if p := rv.dynamicResolverProblem(rule, st, valid); p != nil {
			p.status = 500
			rv.report(rule, p)
		}
	}
}

// streamRoute: a TCPRoute, UDPRoute or TLSRoute, whose rules Envoy
// Gateway pools into one destination per parent (no filters, no matches).
func (rv *routeValidation) streamRoute() bool {
	switch rv.rt.Kind {
	case "TCPRoute", "UDPRoute", "TLSRoute":
		return true
	}
	return false
}

// backendRefMessage words a backendRef's problem as the route kind's
// translator does: an HTTPRoute's or GRPCRoute's names the rule and the
// backendRef; a stream route's is the problem alone.
func (rv *routeValidation) backendRefMessage(rule *model.Rule, j int, msg string) string {
	if rv.streamRoute() {
		return msg
	}
	return fmt.Sprintf("Failed to process route rule %d backendRef %d: %s", rule.Index, j, msg)
}

// cookieMatchProblem is buildCookieMatches: a RegularExpression cookie
// match of an HTTPRouteFilter must compile (RE2), as the rule's own
// regular expressions must.
func cookieMatchProblem(rule *model.Rule, cookies []egv1a1.HTTPCookieMatch) *routeProblem {
	for _, c := range cookies {
		if c.Type == nil || *c.Type != egv1a1.CookieMatchRegularExpression {
			continue
		}
		if _, err := regexp.Compile(c.Value); err != nil {
			return dropRule("UnsupportedValue", rule.Path+".filters", "Failed to process route rule %d: regex %q is invalid: %v.", rule.Index, c.Value, err)
		}
	}
	return nil
}

// serveNothing: Envoy Gateway serves a GRPCRoute none of whose rules it
// accepts on none of its parents, so those rules have no route at all (an
// HTTPRoute's still answer 500).
func (rv *routeValidation) serveNothing() {
	v := rv.verdict
	if rv.rt.Kind != "GRPCRoute" || len(rv.rt.Rules) == 0 {
		return
	}
	dropped := map[int]bool{}
	for _, d := range v.Dropped {
		dropped[d.Index] = true
	}
	if len(dropped) < len(rv.rt.Rules) {
		return
	}
	for i := range v.Dropped {
		v.Dropped[i].Status = 0
	}
}

// report records p in the verdict and, unless attach reported it, as a
// finding at the field (GWP212).
func (rv *routeValidation) report(rule *model.Rule, p *routeProblem) {
	v := rv.verdict
	switch p.condition {
	case "Accepted":
		v.Dropped = append(v.Dropped, policy.DroppedRule{Index: rule.Index, Reason: p.reason, Message: p.message, Status: p.status, Collected: p.collected, RouteWide: p.routeWide})
	case "ResolvedRefs":
		v.Unresolved = append(v.Unresolved, policy.Condition{Type: p.condition, Status: "False", Reason: cmp.Or(p.collected, p.reason), Message: p.message})
		text := p.message
		if !p.ownStop {
			text = strings.TrimSuffix(text, ".")
		}
		rv.refErrors = append(rv.refErrors, text)
		if p.status != 0 {
			v.Answered = append(v.Answered, policy.AnsweredRule{Index: rule.Index, Status: p.status, Reason: p.reason, Message: p.message})
		}
		if p.ref >= 0 {
			v.Refused = append(v.Refused, policy.RefusedBackend{Rule: rule.Index, Ref: p.ref, Reason: p.reason, Message: p.message})
		}
	default:
		v.Conditions = append(v.Conditions, policy.Condition{Type: p.condition, Status: "False", Reason: p.reason, Message: p.message})
	}
	if p.reported {
		return
	}
	what, sev := "Envoy Gateway answers its requests with 500 (ResolvedRefs False)", topology.LintRuleNotProgrammed.Severity
	switch {
	case p.ref >= 0 && rv.streamRoute():
		what = "Envoy Gateway sends this backendRef no connections (ResolvedRefs False)"
	case p.condition == "BackendsAvailable" && p.ref >= 0:
		what, sev = "the EndpointSlices in the input of the backendRef's Service (or ServiceImport) list no address for that port: Envoy answers the share of the rule's requests this backendRef's weight would get with 503 (BackendsAvailable False)", diag.Warning
	case p.ref >= 0:
		what = "Envoy Gateway answers the share of its requests this backendRef's weight would get with 500 (ResolvedRefs False)"
	case p.condition == "Accepted" && p.status != 0:
		what = fmt.Sprintf("Envoy Gateway drops the rule (Accepted False, or PartiallyInvalid when other rules remain) and answers its requests with %d", p.status)
	case p.condition == "Accepted":
		what = "Envoy Gateway leaves the rule out (Accepted False, or PartiallyInvalid when other rules remain)"
	case p.condition == "BackendsAvailable":
		// the rule is served; only its copies go nowhere
		what, sev = "its requests are served but not mirrored ("+p.condition+" False)", diag.Warning
	}
	path := p.path
	if path == "" {
		path = rule.Path
	}
	v.Diagnostics = append(v.Diagnostics, diag.Diagnostic{Code: topology.LintRuleNotProgrammed.Code, Severity: sev,
		Object: rv.rt.Key().Ref(), Field: path, Pos: rv.rt.Src.FieldPos(path),
		Message: fmt.Sprintf("rule %s: %s; %s — fix the value", rule.Section(), strings.TrimSuffix(p.message, "."), what)})
}

// matchProblem: a regular expression Go's RE2 syntax refuses drops the
// rule (Envoy would reject the whole route configuration).
func matchProblem(rule *model.Rule) *routeProblem {
	var regexes []string
	switch {
	case rule.HTTP != nil:
		for _, m := range rule.HTTP.Matches {
			regexes = append(regexes, topology.MatchRegexes(m)...)
		}
	case rule.GRPC != nil:
		for _, m := range rule.GRPC.Matches {
			regexes = append(regexes, grpcRegexes(m)...)
		}
	}
	for _, re := range regexes {
		if _, err := regexp.Compile(re); err != nil {
			return dropRule("UnsupportedValue", rule.Path+".matches", "Failed to process route rule %d: regex %q is invalid: %v.", rule.Index, re, err)
		}
	}
	return nil
}

func grpcRegexes(m gwv1.GRPCRouteMatch) []string {
	var out []string
	if mm := m.Method; mm != nil && mm.Type != nil && *mm.Type == gwv1.GRPCMethodMatchRegularExpression {
		for _, s := range []*string{mm.Service, mm.Method} {
			if s != nil {
				out = append(out, *s)
			}
		}
	}
	for _, h := range m.Headers {
		if h.Type != nil && *h.Type == gwv1.GRPCHeaderMatchRegularExpression {
			out = append(out, h.Value)
		}
	}
	return out
}

// routeFilter is an HTTPRoute or GRPCRoute filter, the fields Envoy
// Gateway validates.
type routeFilter struct {
	Type            string
	RequestHeaders  *gwv1.HTTPHeaderFilter
	ResponseHeaders *gwv1.HTTPHeaderFilter
	Mirror          *gwv1.HTTPRequestMirrorFilter
	Redirect        *gwv1.HTTPRequestRedirectFilter
	Rewrite         *gwv1.HTTPURLRewriteFilter
	ExtensionRef    *gwv1.LocalObjectReference
	path            string
	// index is the filter's in the filters that hold it.
	index int
}

func ruleFilters(rule *model.Rule) []routeFilter {
	switch {
	case rule.HTTP != nil:
		return httpFilters(rule.HTTP.Filters, rule.Path)
	case rule.GRPC != nil:
		return grpcFilters(rule.GRPC.Filters, rule.Path)
	}
	return nil
}

// httpFilters are an HTTPRoute rule's (or backendRef's) filters; path is
// the field that holds them.
func httpFilters(fs []gwv1.HTTPRouteFilter, path string) []routeFilter {
	out := make([]routeFilter, 0, len(fs))
	for i, f := range fs {
		out = append(out, routeFilter{Type: string(f.Type), RequestHeaders: f.RequestHeaderModifier, ResponseHeaders: f.ResponseHeaderModifier,
			Mirror: f.RequestMirror, Redirect: f.RequestRedirect, Rewrite: f.URLRewrite, ExtensionRef: f.ExtensionRef, path: fmt.Sprintf("%s.filters[%d]", path, i), index: i})
	}
	return out
}

// grpcFilters are a GRPCRoute rule's (or backendRef's) filters.
func grpcFilters(fs []gwv1.GRPCRouteFilter, path string) []routeFilter {
	out := make([]routeFilter, 0, len(fs))
	for i, f := range fs {
		out = append(out, routeFilter{Type: string(f.Type), RequestHeaders: f.RequestHeaderModifier, ResponseHeaders: f.ResponseHeaderModifier,
			Mirror: f.RequestMirror, ExtensionRef: f.ExtensionRef, path: fmt.Sprintf("%s.filters[%d]", path, i), index: i})
	}
	return out
}

// filterState is what the filters of one rule configured so far, as
// Envoy Gateway's HTTPFiltersContext holds it.
type filterState struct {
	rewrite rewriteState
	// matches: an HTTPRouteFilter with matches was applied.
	matches bool
	// cookies: the cookie matches of the HTTPRouteFilter with matches.
	cookies []egv1a1.HTTPCookieMatch
	// mirrors are the RequestMirror filters (their indexes) that
	// configured a mirror: their backend resolved and has an endpoint.
	mirrors []int
	// redirect: a RequestRedirect filter configured the redirect.
	redirect bool
	// directResponse is the status the rule answers with: an
	// HTTPRouteFilter's direct response, or 500 for a filter Envoy
	// Gateway cannot process or resolve. Once set, the filters after it
	// are not processed.
	directResponse *int
}

// answer records that the rule answers with status from now on.
func (st *filterState) answer(status int) {
	st.directResponse = &status
}

// supportedFilter: the filter types Envoy Gateway translates
// (helpers.go: ValidateHTTPRouteFilter, ValidateGRPCRouteFilter).
func supportedFilter(typ string, grpc bool) bool {
	switch gwv1.HTTPRouteFilterType(typ) {
	case gwv1.HTTPRouteFilterRequestMirror, gwv1.HTTPRouteFilterRequestHeaderModifier,
		gwv1.HTTPRouteFilterResponseHeaderModifier, gwv1.HTTPRouteFilterExtensionRef:
		return true
	case gwv1.HTTPRouteFilterURLRewrite, gwv1.HTTPRouteFilterRequestRedirect, gwv1.HTTPRouteFilterCORS:
		return !grpc
	}
	return false
}

// filtersProblems is ProcessHTTPFilters (ProcessGRPCFilters when grpc):
// every filter's problem, in order, until one configures a direct
// response (the filters after it are not processed), then the
// combinations Envoy Gateway refuses.
func (rv *routeValidation) filtersProblems(filters []routeFilter, grpc bool) ([]*routeProblem, *filterState) {
	st := &filterState{}
	var out []*routeProblem
	for _, f := range filters {
		if st.directResponse != nil {
			break
		}
		if p := rv.filterProblem(f, st, grpc); p != nil {
			out = append(out, p)
		}
	}
	path := ""
	if len(filters) > 0 {
		path = strings.TrimSuffix(filters[0].path, "[0]")
	}
	// A mirror beside a direct response (a filter's own, or the 500 of a
	// filter that failed) or a redirect: both are cleared.
	if len(st.mirrors) > 0 && st.directResponse != nil {
		out = append(out, dropRule("IncompatibleFilters", path, "RequestMirror filter cannot be used when the rule also configures a DirectResponse filter."))
		st.mirrors, st.directResponse = nil, nil
	}
	if len(st.mirrors) > 0 && st.redirect {
		out = append(out, dropRule("IncompatibleFilters", path, "RequestMirror filter cannot be used when the rule also configures a RequestRedirect filter."))
		st.mirrors, st.redirect = nil, false
	}
	if grpc && st.directResponse != nil && *st.directResponse >= 200 && *st.directResponse < 300 {
		out = append(out, dropRule("UnsupportedValue", path, "DirectResponse with a 2xx status code is not supported for GRPCRoute: a 2xx status maps to the gRPC OK status, "+
			"but a direct response cannot carry a gRPC response message, so the client would receive an invalid response. Use a non-2xx status code to deny or block the request instead."))
		st.directResponse = nil
	}
	return out, st
}

func (rv *routeValidation) filterProblem(f routeFilter, st *filterState, grpc bool) *routeProblem {
	if !supportedFilter(f.Type, grpc) {
		st.answer(500)
		return dropRule("UnsupportedValue", f.path+".type", "Invalid filter %s: unsupported filter type %s.", f.Type, f.Type)
	}
	switch f.Type {
	case string(gwv1.HTTPRouteFilterRequestHeaderModifier):
		return headerFilterProblem("RequestHeaderModifier", f.RequestHeaders, f.path)
	case string(gwv1.HTTPRouteFilterResponseHeaderModifier):
		return headerFilterProblem("ResponseHeaderModifier", f.ResponseHeaders, f.path)
	case string(gwv1.HTTPRouteFilterRequestRedirect):
		p := redirectProblem(f.Redirect, f.path)
		st.redirect = st.redirect || p == nil && f.Redirect != nil
		return p
	case string(gwv1.HTTPRouteFilterURLRewrite):
		if p := st.coreRewriteProblem(f.Rewrite, f.path); p != nil {
			return p
		}
		return rewriteProblem(f.Rewrite, f.path)
	case string(gwv1.HTTPRouteFilterRequestMirror):
		if f.Mirror == nil {
			return nil
		}
		if p := rv.mirrorProblem(f.Mirror.BackendRef); p != nil {
			p.path = f.path + ".requestMirror.backendRef"
			return p
		}
		st.mirrors = append(st.mirrors, f.index)
	case string(gwv1.HTTPRouteFilterExtensionRef):
		return rv.extensionRefProblem(f, st)
	}
	return nil
}

// headerValue is a value Envoy Gateway lets a header filter send: visible
// characters, single spaces or tabs between them.
var headerValue = regexp.MustCompile(`^[!-~]+([\t ]?[!-~]+)*$`)

// headerFilterProblem follows Envoy Gateway
// (processRequestHeaderModifierFilter, processResponseHeaderModifierFilter):
// every invalid header is an error, and a filter none of whose headers is
// valid says so instead. The wording is each function's own.
func headerFilterProblem(name string, f *gwv1.HTTPHeaderFilter, path string) *routeProblem {
	if f == nil {
		return nil
	}
	request := name == "RequestHeaderModifier"
	var errs []string
	valid := 0
	check := func(verb string, hs []gwv1.HTTPHeader) {
		for _, h := range hs {
			switch {
			case h.Name == "":
				errs = append(errs, fmt.Sprintf("%s Filter cannot %s a header with an empty name", name, verb))
			case !modifiableHeader(string(h.Name)) && request:
				errs = append(errs, fmt.Sprintf("Header: %q. The %s filter cannot %s the Host header or headers with a '/' or ':' character in them. "+
					"To modify the Host header use the URLRewrite or the HTTPRouteFilter filter.", h.Name, name, verb))
			case !modifiableHeader(string(h.Name)):
				// the response filter says "set" for an added header too
				errs = append(errs, fmt.Sprintf("Header: %q. The %s filter cannot set the Host header or headers with a '/' or ':' character in them.", h.Name, name))
			case !headerValue.MatchString(h.Value):
				errs = append(errs, fmt.Sprintf("Header: %q. %s Filter cannot %s a header with an invalid value.", h.Name, name, verb))
			default:
				valid++
			}
		}
	}
	check("add", f.Add)
	check("set", f.Set)
	for _, h := range f.Remove {
		switch {
		case h == "":
			errs = append(errs, fmt.Sprintf("%s Filter cannot remove a header with an empty name", name))
		case !modifiableHeader(h):
			errs = append(errs, fmt.Sprintf("Header: %q. The %s filter cannot remove the Host header or headers with a '/' or ':' character in them.", h, name))
		default:
			valid++
		}
	}
	empty := len(f.Add)+len(f.Set)+len(f.Remove) == 0
	switch {
	case valid == 0 && !empty && request:
		return dropRule("UnsupportedValue", path, "%s Filter did not provide valid configuration to add/set/remove any headers.", name)
	case valid == 0 && !empty:
		return dropRule("UnsupportedValue", path, "%s Filter did not provide valid configuration to add/remove any headers.", name)
	case len(errs) > 0:
		return dropRule("UnsupportedValue", path, "%s", strings.Join(errs, "\n"))
	}
	return nil
}

// modifiableHeader: the Gateway API forbids ':' and '/' in header names,
// and Envoy does not let a filter modify Host.
func modifiableHeader(name string) bool {
	return !strings.ContainsAny(name, "/:") && !strings.EqualFold(name, "host")
}

func redirectProblem(rd *gwv1.HTTPRequestRedirectFilter, path string) *routeProblem {
	if rd == nil {
		return nil
	}
	if rd.Scheme != nil && *rd.Scheme != "http" && *rd.Scheme != "https" {
		return dropRule("UnsupportedValue", path+".requestRedirect.scheme", "Scheme: %s is unsupported, only 'https' and 'http' are supported.", *rd.Scheme)
	}
	if rd.Hostname != nil {
		if p := hostnameProblem(string(*rd.Hostname), path+".requestRedirect.hostname"); p != nil {
			return p
		}
	}
	// A redirect's path modifier without its value redirects without
	// changing the path (processRedirectFilter checks only the type).
	if rd.Path != nil && rd.Path.Type != gwv1.FullPathHTTPPathModifier && rd.Path.Type != gwv1.PrefixMatchHTTPPathModifier {
		return dropRule("UnsupportedValue", path+".requestRedirect.path.type", "Redirect path type: %s is invalid, only \"ReplaceFullPath\" and \"ReplacePrefixMatch\" are supported.", rd.Path.Type)
	}
	if rd.StatusCode != nil && *rd.StatusCode != 301 && *rd.StatusCode != 302 {
		return dropRule("UnsupportedValue", path+".requestRedirect.statusCode", "Status code %d is invalid, only 302 and 301 are supported.", *rd.StatusCode)
	}
	return nil
}

func rewriteProblem(rw *gwv1.HTTPURLRewriteFilter, path string) *routeProblem {
	if rw == nil {
		return nil
	}
	if rw.Hostname != nil {
		if p := hostnameProblem(string(*rw.Hostname), path+".urlRewrite.hostname"); p != nil {
			return p
		}
	}
	if rw.Path != nil {
		return pathModifierProblem(rw.Path, path+".urlRewrite.path")
	}
	return nil
}

// hostnameProblem is validate.go: validateHostname, for a redirect's or
// rewrite's hostname: a DNS subdomain, not an IP address (which the
// Gateway API's hostname pattern admits), no label over 63 characters.
func hostnameProblem(h, path string) *routeProblem {
	if errs := validation.IsDNS1123Subdomain(h); len(errs) > 0 {
		return dropRule("UnsupportedValue", path, "Hostname %q is invalid: %v.", h, errs)
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return dropRule("UnsupportedValue", path, "Hostname: %q cannot be an ip address.", h)
	}
	for _, label := range strings.Split(h, ".") {
		if len(label) > 63 {
			return dropRule("UnsupportedValue", path, "Label: %q in hostname %q cannot exceed 63 characters.", label, h)
		}
	}
	return nil
}

// pathModifierProblem is processURLRewriteFilter's check of a rewrite's
// path: the value of its type set, and the other type's not.
func pathModifierProblem(pm *gwv1.HTTPPathModifier, path string) *routeProblem {
	full, prefix := gwv1.FullPathHTTPPathModifier, gwv1.PrefixMatchHTTPPathModifier
	switch pm.Type {
	case full:
		if pm.ReplacePrefixMatch != nil {
			return dropRule("UnsupportedValue", path, "ReplacePrefixMatch cannot be set when rewrite path type is %q.", full)
		}
		if pm.ReplaceFullPath == nil {
			return dropRule("UnsupportedValue", path, "ReplaceFullPath must be set when rewrite path type is %q.", full)
		}
	case prefix:
		if pm.ReplaceFullPath != nil {
			return dropRule("UnsupportedValue", path, "ReplaceFullPath cannot be set when rewrite path type is %q.", prefix)
		}
		if pm.ReplacePrefixMatch == nil {
			return dropRule("UnsupportedValue", path, "ReplacePrefixMatch must be set when rewrite path type is %q.", prefix)
		}
	default:
		return dropRule("UnsupportedValue", path+".type", "Rewrite path type: %s is invalid, only %q and %q are supported.", pm.Type, full, prefix)
	}
	return nil
}

// extensionRefProblem: an ExtensionRef names an HTTPRouteFilter (the one
// kind Envoy Gateway knows without an extension server), which must
// exist, and whose rewrite and credential are checked.
func (rv *routeValidation) extensionRefProblem(f routeFilter, st *filterState) *routeProblem {
	ref := f.ExtensionRef
	if ref == nil {
		st.answer(500)
		return dropRule("UnsupportedValue", f.path, "Invalid filter ExtensionRef: extensionRef field must be specified for an extended filter.")
	}
	if string(ref.Group) != Group || string(ref.Kind) != httpRouteFilter.name {
		st.answer(500)
		p := dropRule("UnsupportedValue", f.path+".extensionRef", "Invalid filter ExtensionRef: unknown kind %s/%s.", ref.Group, ref.Kind)
		p.reported = true
		return p
	}
	ns := rv.rt.Meta.Namespace
	hrf := rv.set.Get(model.Key{Group: Group, Kind: httpRouteFilter.name, Namespace: ns, Name: string(ref.Name)})
	if hrf == nil {
		st.answer(500)
		p := unresolved("UnsupportedValue", f.path+".extensionRef.name", "Unable to translate HTTPRouteFilter: %s/%s.", ns, ref.Name)
		p.reported = true
		return p
	}
	// The spec its Decode decoded; a value that did not fit its type makes
	// the HTTPRouteFilter's own findings say why, and no rule problem here.
	d := decoded(hrf)
	spec, ok := d.spec.(*egv1a1.HTTPRouteFilterSpec)
	if !ok || d.decodeFailed {
		return nil
	}
	// processExtensionRefHTTPFilter's order: matches, the rewrite, the
	// direct response, the credential.
	if len(spec.Matches) > 0 {
		if st.matches {
			return dropRule("UnsupportedValue", f.path, "Only one HTTPRouteFilter with matches is supported per HTTPRouteRule.")
		}
		st.matches = true
		for _, m := range spec.Matches {
			st.cookies = append(st.cookies, m.Cookies...)
		}
	}
	if p := st.routeFilterRewriteProblem(spec.URLRewrite, f.path); p != nil {
		return p
	}
	if dr := spec.DirectResponse; dr != nil {
		if p := rv.routeFilterBodyProblem(dr.Body, ns, f.path); p != nil {
			st.answer(500) // processInvalidHTTPFilter
			return p
		}
		code := 200
		if dr.StatusCode != nil {
			code = *dr.StatusCode
		}
		if code < 200 || code > 599 {
			// Envoy's direct response admits 200 to 599 only: a rule
			// answering anything else would be refused config.
			return dropRule("UnsupportedValue", f.path+".extensionRef", "Invalid directResponse statusCode %d in HTTPRouteFilter %s/%s: Envoy answers only 200 to 599.", code, ns, ref.Name)
		}
		st.directResponse = &code
	}
	if ci := spec.CredentialInjection; ci != nil {
		if p := rv.credentialRefProblem(ci.Credential.ValueRef, hrf.Obj.Namespace, f.path); p != nil {
			st.answer(500) // processInvalidHTTPFilter
			return p
		}
	}
	return nil
}

// mirrorProblem is processRequestMirrorFilter: the mirror's backendRef is
// validated as a backendRef of weight 1 (validateBackendRef; its problem
// is worded "failed to validate the RequestMirror filter"), then its
// destination is built (processDestination), whose problems — TLS, mixed
// address types — keep their own words; a Service without an endpoint is
// BackendsAvailable False, worded as a validation problem. The rule keeps
// no mirror for any of them.
func (rv *routeValidation) mirrorProblem(ref gwv1.BackendObjectReference) *routeProblem {
	p := rv.refProblem(ref, true)
	if p == nil {
		p = rv.endpointsProblem(ref)
	}
	if p == nil {
		p = rv.sliceAddressTypeProblem(ref)
	}
	switch {
	case p == nil:
		return nil
	case p.destination:
		p.message = conditionMessage(p.message)
	default:
		p.message = "Failed to validate the RequestMirror filter: " + p.message
	}
	return p
}

func (rv *routeValidation) backendProblem(rule *model.Rule, j int, b model.BackendRef) *routeProblem {
	if p := rv.backendRefFiltersProblem(rule, j); p != nil {
		p.path = b.Path + ".filters"
		return p
	}
	p := rv.refProblem(b.BackendObjectReference, b.Weight != 0)
	if p != nil {
		p.path = b.Path
		return p
	}
	if b.Weight != 0 {
		return rv.destinationFiltersProblem(rule, j, b)
	}
	return nil
}

// destinationFiltersProblem is processDestinationFilters: a weighted
// backendRef's own filters are processed as a rule's are
// (ProcessHTTPFilters, ProcessGRPCFilters, each backendRef afresh), and
// their errors, joined, refuse the backendRef (InvalidBackendFilters).
func (rv *routeValidation) destinationFiltersProblem(rule *model.Rule, j int, b model.BackendRef) *routeProblem {
	probs, _ := rv.filtersProblems(backendRefFilters(rule, j, b.Path), rule.GRPC != nil)
	if len(probs) == 0 {
		return nil
	}
	msgs := make([]string, len(probs))
	reported := true
	for i, p := range probs {
		msgs[i] = p.message
		reported = reported && p.reported
	}
	p := unresolved("InvalidBackendFilters", b.Path+".filters", "%s", strings.Join(msgs, "\n"))
	// a filter attach reports already (an HTTPRouteFilter not found)
	// makes no second finding
	p.reported = reported
	return p
}

// backendRefFilters are the filters of a rule's backendRef j.
func backendRefFilters(rule *model.Rule, j int, path string) []routeFilter {
	switch {
	case rule.HTTP != nil && j < len(rule.HTTP.BackendRefs):
		return httpFilters(rule.HTTP.BackendRefs[j].Filters, path)
	case rule.GRPC != nil && j < len(rule.GRPC.BackendRefs):
		return grpcFilters(rule.GRPC.BackendRefs[j].Filters, path)
	}
	return nil
}

// refProblem checks one backend reference the way Envoy Gateway does:
// its group and kind (matched by kind: a Backend without its group is
// still Envoy Gateway's Backend), the ReferenceGrant, then the object.
// weighted: the reference carries traffic (a weight other than 0), so
// Envoy Gateway builds its destination too (processDestination), which
// checks what only a destination shows.
func (rv *routeValidation) refProblem(ref gwv1.BackendObjectReference, weighted bool) *routeProblem {
	group, kind := "", "Service"
	if ref.Group != nil {
		group = string(*ref.Group)
	}
	if ref.Kind != nil && *ref.Kind != "" {
		kind = string(*ref.Kind)
	}
	ns := rv.rt.Meta.Namespace
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = string(*ref.Namespace)
	}
	name := string(ref.Name)
	switch {
	case group != "" && group != serviceImport.Group && group != Group:
		return unresolved("InvalidKind", "", "Group is invalid, only the core API group (specified by omitting the group field or setting it to an empty string), %s and %s are supported.", serviceImport.Group, Group)
	case kind != "Service" && kind != serviceImport.Kind && kind != backend.Kind:
		return unresolved("InvalidKind", "", "Kind is invalid, only Service, MCS ServiceImport and Envoy Gateway Backend are supported.")
	}
	gk := model.GroupKind{Group: group, Kind: kind}
	if !rv.m.GrantAllows(model.GatewayGroup, rv.rt.Kind, rv.rt.Meta.Namespace, model.ObjectRefTo{Group: gk.Group, Kind: gk.Kind, Namespace: ns, Name: name}) {
		p := unresolved("RefNotPermitted", "", "Backend ref to %s %s/%s not permitted by any ReferenceGrant.", kind, ns, name)
		p.ownStop = true
		return p
	}
	if kind != backend.Kind && ref.Port == nil {
		return unresolved("PortNotSpecified", "", "A valid port number corresponding to a port on the Service must be specified.")
	}
	switch kind {
	case "Service":
		if p := rv.serviceProblem(ns, name, int32(*ref.Port)); p != nil || !weighted {
			return p
		}
		return rv.destinationTLSProblem(model.Key{Kind: "Service", Namespace: ns, Name: name}, ref.Port, nil)
	case serviceImport.Kind:
		if p := rv.serviceImportProblem(ns, name, int32(*ref.Port)); p != nil || !weighted {
			return p
		}
		return rv.destinationTLSProblem(model.Key{Group: serviceImport.Group, Kind: serviceImport.Kind, Namespace: ns, Name: name}, ref.Port, nil)
	}
	// validateBackendRefBackend: the kind's switch comes after the
	// ReferenceGrant.
	if rv.noBackend {
		return unresolved("UnsupportedValue", "", "Backend is disabled in Envoy Gateway configuration (%s).", enables(EnableBackend))
	}
	if p := rv.backendObjectProblem(ns, name); p != nil || !weighted {
		return p
	}
	// The BackendTLSPolicy is matched by the reference's group as written.
	spec, _ := rv.backendOf(ns, name)
	if p := rv.destinationTLSProblem(model.Key{Group: group, Kind: backend.Kind, Namespace: ns, Name: name}, ref.Port, spec); p != nil {
		return p
	}
	return rv.backendAddressTypeProblem(ns, name)
}

func (rv *routeValidation) serviceProblem(ns, name string, port int32) *routeProblem {
	svc := rv.m.Service(ns, name)
	switch {
	case svc == nil:
		return unresolved("BackendNotFound", "", "service %s/%s not found.", ns, name)
	case svc.Spec.Type == "ExternalName":
		return unresolved("UnsupportedValue", "", "Service %s/%s is of type ExternalName, which is not supported as a backend; use an Envoy Gateway Backend resource with an FQDN endpoint instead.", ns, name)
	case !hasPortFor(svc, port, portProtocol(rv.rt.Kind)):
		return unresolved("PortNotFound", "", "%s Port %d not found on Service %s/%s.", portProtocol(rv.rt.Kind), port, ns, name)
	}
	return nil
}

// sliceEndpoints is what the endpoints check reads of an EndpointSlice.
type sliceEndpoints struct {
	Ports []struct {
		Name     *string `json:"name"`
		Protocol *string `json:"protocol"`
	} `json:"ports"`
	Endpoints []struct {
		Addresses []string `json:"addresses"`
	} `json:"endpoints"`
}

// endpointsProblem is processServiceDestinationSetting's endpoint lookup
// (and processServiceImportDestinationSetting's, for a ServiceImport):
// Envoy Gateway sends a port's traffic to the addresses of the Service's
// (ServiceImport's) EndpointSlices that list a port of the same name and
// protocol. An endpoint that is not ready still counts (Envoy drains it);
// none at all is EndpointsNotFound (BackendsAvailable False). A backend
// none of whose EndpointSlices is in the input is not judged: inputs
// rarely carry them, and a cluster has them. Nor is one Envoy Gateway
// may reach by its cluster IP (routingType Service, serviceRouting), a
// ServiceImport by its IPs unless it has none (headless).
func (rv *routeValidation) endpointsProblem(ref gwv1.BackendObjectReference) *routeProblem {
	kind := "Service"
	if ref.Kind != nil {
		kind = string(*ref.Kind)
	}
	if kind != "Service" && kind != serviceImport.Kind || ref.Port == nil {
		return nil
	}
	ns := rv.rt.Meta.Namespace
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = string(*ref.Namespace)
	}
	if !lacksEndpoints(rv.m, kind, ns, string(ref.Name), int32(*ref.Port), rv.serviceRouting) {
		return nil
	}
	return &routeProblem{condition: "BackendsAvailable", reason: "EndpointsNotFound", ref: -1,
		message: fmt.Sprintf("no ready endpoints for the related %s %s/%s.", kind, ns, ref.Name)}
}

// lacksEndpoints is endpointsProblem's rule for the Service or
// ServiceImport (by kind) ns/name's port; serviceRouting says whether
// Envoy Gateway reaches backends by their cluster IPs instead.
func lacksEndpoints(m *model.Model, kind, ns, name string, port int32, serviceRouting func() bool) bool {
	if kind == serviceImport.Kind {
		return serviceImportLacksEndpoints(m, ns, name, port, serviceRouting)
	}
	return !serviceRouting() && serviceLacksEndpoints(m, ns, name, port)
}

// sliceAddressTypeProblem is validateDestinationSettings for a Service
// or ServiceImport: Envoy Gateway builds one cluster per backendRef, of
// one address type, so one whose EndpointSlices mix FQDN with IP address
// types is refused where it routes to endpoints.
func (rv *routeValidation) sliceAddressTypeProblem(ref gwv1.BackendObjectReference) *routeProblem {
	kind := "Service"
	if ref.Kind != nil {
		kind = string(*ref.Kind)
	}
	if kind != "Service" && kind != serviceImport.Kind || rv.serviceRouting() {
		return nil
	}
	ns := rv.rt.Meta.Namespace
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = string(*ref.Namespace)
	}
	if !sliceAddressTypesMixed(backendSlices(rv.m, kind, ns, string(ref.Name))) {
		return nil
	}
	p := unresolved("UnsupportedAddressType", "", "mixed endpointslice address type for the same backendRef is not supported.")
	p.destination = true
	return p
}

// backendSlices are the EndpointSlices of the Service or ServiceImport
// (by kind) ns/name.
func backendSlices(m *model.Model, kind, ns, name string) []*manifest.Object {
	if kind == serviceImport.Kind {
		return m.ServiceImportEndpointSlices(ns, name)
	}
	return m.EndpointSlices(ns, name)
}

// sliceAddressTypesMixed: the EndpointSlices are of FQDN and of IP
// address types both (getIREndpointsFromEndpointSlices: ir.MIXED).
func sliceAddressTypesMixed(slices []*manifest.Object) bool {
	fqdn, ip := false, false
	for _, o := range slices {
		var t string
		if o.DecodeField("addressType", &t) != nil {
			continue
		}
		if t == "FQDN" {
			fqdn = true
		} else {
			ip = true
		}
	}
	return fqdn && ip
}

// serviceLacksEndpoints: the Service ns/name has EndpointSlices in the
// input and none lists an address for port (endpointsProblem's rule).
func serviceLacksEndpoints(m *model.Model, ns, name string, port int32) bool {
	svc := m.Service(ns, name)
	if svc == nil || svc.Assumed {
		return false
	}
	portName, proto := servicePortName(svc, port)
	return slicesLackAddresses(m.EndpointSlices(ns, name), portName, proto)
}

// serviceImportLacksEndpoints is serviceLacksEndpoints for a ServiceImport:
// its port of that number gives the name and protocol the slices must
// list; one with IPs is reached by them where Envoy Gateway routes to
// services (serviceRouting), a headless one by its endpoints always.
func serviceImportLacksEndpoints(m *model.Model, ns, name string, port int32, serviceRouting func() bool) bool {
	o, ok := m.Object(model.Key{Group: serviceImport.Group, Kind: serviceImport.Kind, Namespace: ns, Name: name})
	if !ok {
		return false
	}
	var spec struct {
		IPs   []string `json:"ips"`
		Ports []struct {
			Name     string `json:"name"`
			Port     int32  `json:"port"`
			Protocol string `json:"protocol"`
		} `json:"ports"`
	}
	// A ServiceImport's spec, not a policy's: no typed value holds it.
	if o.DecodeField("spec", &spec) != nil || len(spec.IPs) > 0 && serviceRouting() {
		return false
	}
	portName, proto := "", "TCP"
	for _, p := range spec.Ports {
		if p.Port == port {
			portName, proto = p.Name, servicePortProtocol(p.Protocol)
			break
		}
	}
	return slicesLackAddresses(m.ServiceImportEndpointSlices(ns, name), portName, proto)
}

// slicesLackAddresses: there are slices, and none that lists the port
// (by name and protocol) lists an address.
func slicesLackAddresses(slices []*manifest.Object, portName, proto string) bool {
	addresses := 0
	for _, o := range slices {
		var s sliceEndpoints
		// An EndpointSlice's ports and endpoints, not a policy spec: no typed value holds them.
		if o.Decode(&s) == nil && slicePortMatches(s, portName, proto) {
			for _, ep := range s.Endpoints {
				addresses += len(ep.Addresses)
			}
		}
	}
	return len(slices) > 0 && addresses == 0
}

// servicePortName is the name and protocol of the Service port numbered
// port: the first one, whatever its protocol, as Envoy Gateway looks it up.
func servicePortName(svc *model.Service, port int32) (name, proto string) {
	for _, p := range svc.Spec.Ports {
		if p.Port == port {
			return p.Name, servicePortProtocol(p.Protocol)
		}
	}
	return "", "TCP"
}

// slicePortMatches: the slice lists a port of that name and protocol (an
// unnamed one matches an unnamed Service port).
func slicePortMatches(s sliceEndpoints, name, proto string) bool {
	for _, p := range s.Ports {
		pn, pp := "", "TCP"
		if p.Name != nil {
			pn = *p.Name
		}
		if p.Protocol != nil {
			pp = *p.Protocol
		}
		if pn == name && pp == proto {
			return true
		}
	}
	return false
}

// serviceRouting: some EnvoyProxy or BackendTrafficPolicy of the input
// sets routingType Service, where Envoy Gateway reaches a Service by its
// cluster IP and reads no EndpointSlice. gwpol does not work out which
// routes that covers, so it judges no Service's endpoints then. The
// answer depends on the whole input, so it is worked out once per pass
// (policy.Env.Memo), not for every backendRef.
func (rv *routeValidation) serviceRouting() bool {
	return rv.env.Memo(serviceRoutingKey{rv.set}, func() any {
		if envoyProxyRoutesToServices(rv.m) {
			return true
		}
		for _, p := range rv.set.Policies {
			if p.Obj.Group == Group && p.Obj.Kind == "BackendTrafficPolicy" && policyRoutesToServices(p) {
				return true
			}
		}
		return false
	}).(bool)
}

// serviceRoutingKey is serviceRouting's answer for one policy set.
type serviceRoutingKey struct{ set *policy.Set }

// envoyProxyRoutesToServices: some EnvoyProxy of the input sets
// routingType Service (what decides for the services a policy calls).
func envoyProxyRoutesToServices(m *model.Model) bool {
	for _, o := range m.OfKind(envoyProxy) {
		if routingTypeService(o) {
			return true
		}
	}
	return false
}

// policyRoutesToServices: a BackendTrafficPolicy sets routingType
// Service. Its decoded spec answers — render and lint let the policies'
// trees go once they are decoded, and reading the field from the object
// would parse its document again on every pass —, also where another
// field did not fit its type (the rest decodes) and where the key is
// spelled in another case (read as Envoy Gateway reads it, decodeSpec).
func policyRoutesToServices(p *policy.Policy) bool {
	if d, ok := p.Data.(*data); ok {
		if s, ok := d.spec.(*egv1a1.BackendTrafficPolicySpec); ok {
			return s.RoutingType != nil && *s.RoutingType == egv1a1.ServiceRoutingType
		}
	}
	return routingTypeService(p.Obj)
}

func routingTypeService(o *manifest.Object) bool {
	var t string
	return o.DecodeField("spec.routingType", &t) == nil && t == string(egv1a1.ServiceRoutingType)
}
