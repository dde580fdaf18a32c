package envoygateway

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// envoyProxy is Envoy Gateway's EnvoyProxy, the data plane's settings a
// GatewayClass or Gateway points at (parametersRef).
var envoyProxy = model.GroupKind{Group: Group, Kind: "EnvoyProxy"}

// geoUsed reports whether an authorization rule matches client IP
// geolocations.
func geoUsed(a *egv1a1.Authorization) bool {
	if a == nil {
		return false
	}
	for _, r := range a.Rules {
		if r.Principal != nil && len(r.Principal.ClientIPGeoLocations) > 0 {
			return true
		}
	}
	return false
}

// gatewaySection is a Gateway a policy reaches, and the listener when one
// is named.
type gatewaySection struct {
	gw      *model.Gateway
	section string
}

// checkGeoLocations: an authorization rule on client IP geolocation needs,
// on every listener it applies to, a ClientTrafficPolicy that detects the
// client IP in exactly one way other than by trusted X-Forwarded-For
// CIDRs, and the Gateway's EnvoyProxy (effectiveProxy) to configure a
// MaxMind provider with a database for each property the rules match.
// Envoy Gateway rejects the SecurityPolicy otherwise
// (securitypolicy.go: validateAuthorizationGeoIP, in that order). At
// decode the listeners are read from the input (modelGeoListeners);
// refineGeo decides again from the listener verdict once it is known.
func checkGeoLocations(p *policy.Policy, spec *egv1a1.SecurityPolicySpec, m *model.Model) {
	if !geoUsed(spec.Authorization) {
		return
	}
	var ls []geoListener
	for _, gs := range reachedGateways(p, m) {
		ls = append(ls, gs.geoListeners()...)
	}
	recordGeo(p, decideGeo(ls, m, geoNeeds(spec.Authorization)))
}

// refineGeo is the SecurityPolicy's part of RefineWithGraph: Envoy
// Gateway validates the geolocation rules, and configures the filter, on
// each HTTP listener of its Gateway IR the policy reaches
// (translateSecurityPolicyForGateway ranges over x.HTTP;
// translateSecurityPolicyForRoute over the HTTP listeners the route's
// parentRef attached to, where the route has a route) — listeners it
// programs only (translateGatewayListeners skips the others). The
// decision from the input (checkGeoLocations) is replaced by the one from
// the listener verdict, where every target resolves in g.
//
// Envoy Gateway decides per listener: a listener that fails the check
// gets no provider and the policy's routes there answer 500, while a
// listener that passes gets the provider and its routes the policy
// (both translators keep the geolocation error apart from the errors of
// the features built before, hasBaseErrs). So where some listener passes
// and the policy has no other finding, the decision is split
// (geoDecision.split): the policy keeps no finding of its own, and status
// refuses it on the failing listeners only (statusRun.geoRefused).
func refineGeo(p *policy.Policy, g *topology.Graph) {
	a, ok := decoded(p).spec.(*egv1a1.SecurityPolicySpec)
	if !ok || !geoUsed(a.Authorization) {
		return
	}
	ls, known := graphGeoListeners(p, g)
	if !known {
		return
	}
	dec := decideGeo(ls, g.Model, geoNeeds(a.Authorization))
	if len(dec.problems) > 0 && len(dec.settings) > 0 && !hasOtherFindings(p) {
		dec.split = true
	}
	recordGeo(p, dec)
}

// hasOtherFindings: p has a finding besides its geolocation one — an
// error of a feature Envoy Gateway builds before it checks the
// geolocation rules, which answers every route of the policy 500.
func hasOtherFindings(p *policy.Policy) bool {
	old := decoded(p).geo
	return slices.ContainsFunc(p.Invalid, func(f diag.Diagnostic) bool {
		return old == nil || f.Field != old.Field || f.Message != old.Message
	})
}

// recordGeo makes dec the policy's geolocation verdict: its finding (the
// one it replaces taken out), unless the decision is split per listener,
// and, for render, on the authorization's value (fieldValue.geo), so that
// status, lint and render read one list of listeners.
func recordGeo(p *policy.Policy, dec geoDecision) {
	d := decoded(p)
	if old := d.geo; old != nil {
		p.Invalid = slices.DeleteFunc(p.Invalid, func(f diag.Diagnostic) bool { return f.Field == old.Field && f.Message == old.Message })
		d.geo = nil
	}
	if len(dec.problems) > 0 && !dec.split {
		f := p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "spec.authorization", "%s", geoMessage(dec.problems))
		p.Invalid = append(p.Invalid, f)
		// Envoy Gateway checks this after translating the rules: it
		// keeps the authorization beside the 500 (KeptWhenInvalid).
		d.geo = &f
	}
	if v, ok := p.Values["authorization"].(*fieldValue); ok {
		v.geo = &dec
	}
}

// splitGeo is p's geolocation decision where it is split per listener,
// nil otherwise.
func splitGeo(p *policy.Policy) *geoDecision {
	if v, ok := p.Values["authorization"].(*fieldValue); ok && v.geo != nil && v.geo.split {
		return v.geo
	}
	return nil
}

// geoRefused makes c's policy Invalid on the listeners of its target that
// fail the geolocation check, where the decision is split (splitGeo): the
// target's ancestors say Accepted=False with the failing listeners'
// errors, and the policy's routes there answer 500 (policy.VerdictInvalid
// on the listener, or on the route as served through it) while the other
// listeners keep the policy. On a route target Envoy Gateway also answers
// 500 on every listener of a parentRef after one whose listener failed:
// translateSecurityPolicyForRoute counts the errors so far as the
// features' own (hasBaseErrs) for each parentRef in turn. It reports
// whether the target has a failing listener.
func (s *statusRun) geoRefused(c *claim, ancestors []entry) bool {
	dec := splitGeo(c.policy)
	if dec == nil {
		return false
	}
	var reached, failing []*topology.Listener
	var problems []string
	tainted := map[*topology.Listener]bool{}
	switch c.target.level {
	case levelRoute, levelRule:
		earlier := false
		for _, pa := range c.target.route.Parents {
			if pa.Gateway == nil || !s.managed(pa.Gateway) {
				continue
			}
			failed := false
			for _, l := range pa.Listeners {
				if slices.Contains(reached, l) {
					continue
				}
				reached = append(reached, l)
				if msg, ok := dec.failing[l]; ok {
					failing, problems, failed = append(failing, l), append(problems, msg), true
				} else if earlier {
					tainted[l] = true
				}
			}
			earlier = earlier || failed
		}
	default:
		reached = s.listenersOf(c.target)
		for _, l := range reached {
			if msg, ok := dec.failing[l]; ok {
				failing, problems = append(failing, l), append(problems, msg)
			}
		}
	}
	if len(failing) == 0 {
		return false
	}
	msg := geoMessage(problems)
	for _, a := range ancestors {
		s.set(c.policy, a, cond("Accepted", false, "Invalid", msg))
		s.warn(c.policy, a, c)
	}
	for i, l := range failing {
		s.finding(c.policy, "spec.authorization", fmt.Sprintf("%s (listener %s); Envoy Gateway answers the policy's routes there with 500 and applies it on the listeners that pass.",
			strings.TrimSuffix(geoMessage(problems[i:i+1]), "."), qualifiedID(l)))
	}
	refusal := &policy.Rejection{Verdict: policy.VerdictInvalid, Reason: "Invalid", Message: msg}
	refusals := map[*topology.Listener]*policy.Rejection{}
	for _, l := range reached {
		if tainted[l] || slices.Contains(failing, l) {
			refusals[l] = refusal
		}
	}
	switch c.target.level {
	case levelRoute, levelRule:
		s.refusedOn(c, reached, refusals)
	default:
		msgs := map[*topology.Listener]string{}
		for l := range refusals {
			msgs[l] = msg
		}
		s.rejectOn(c, reached, msgs, policy.VerdictInvalid)
	}
	return true
}

// geoDecision is the geolocation check's verdict on a policy: the
// settings of the geolocation filter on the listeners that pass, and the
// problems of those that fail.
type geoDecision struct {
	// settings are the distinct settings of the listeners that pass;
	// none when the policy is refused whole (problems, not split).
	settings []geoSetting
	// problems are the failing listeners', one each, in order (Envoy
	// Gateway joins an error per failing listener); none when every
	// listener passes.
	problems []string
	// failing are the failing listeners' problems by listener, where the
	// listeners come from the graph (refineGeo).
	failing map[*topology.Listener]string
	// split: some listeners pass and the policy has no other finding, so
	// it is refused on the failing listeners only — their routes answer
	// 500 — and applies, with the filter, on the others.
	split bool
}

// geoMessage is the condition message for geolocation problems: each
// listener's error, joined by new lines, a full stop at the end
// (errors.Join, then Error2ConditionMsg).
func geoMessage(problems []string) string {
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = "Authorization: authorization clientIPGeoLocations" + strings.TrimSuffix(p, ".")
	}
	return strings.Join(lines, "\n") + "."
}

// geoListener is a listener the geolocation check runs on: its Gateway
// (whose EnvoyProxy has the provider) and its name (which selects the
// ClientTrafficPolicy that detects the client IP).
type geoListener struct {
	gw   *model.Gateway
	name string
	// set and setNS name the listener's ListenerSet, "" for the
	// Gateway's own.
	set, setNS string
	// listener is the graph's (refineGeo), nil where the listeners come
	// from the input alone.
	listener *topology.Listener
}

// decideGeo checks each of ls in order (validateAuthorizationGeoIP: the
// client IP detection, then the provider): a failing listener's error is
// joined to the others'; a passing one gives its filter settings (the
// distinct ones are kept).
func decideGeo(ls []geoListener, m *model.Model, need geoNeed) geoDecision {
	ctps := clientTrafficPolicies(m)
	var out geoDecision
	for _, l := range ls {
		ctp := ctpFor(ctps, l)
		msg := clientIPDetectionProblem(ctp)
		if msg == "" {
			msg = geoProviderProblem(l.gw, m, need)
		}
		s, found := maxMindPaths(l.gw, m)
		if msg == "" && !found {
			msg = " requires EnvoyProxy.spec.geoIP.provider to be configured."
		}
		if msg != "" {
			out.problems = append(out.problems, msg)
			if l.listener != nil {
				if out.failing == nil {
					out.failing = map[*topology.Listener]string{}
				}
				out.failing[l.listener] = msg
			}
			continue
		}
		if d := ctp.ClientIPDetection; d != nil {
			switch {
			case d.CustomHeader != nil:
				s.customHeader = d.CustomHeader.Name
			case d.XForwardedFor != nil && d.XForwardedFor.NumTrustedHops != nil:
				hops := uint32(0)
				if n := *d.XForwardedFor.NumTrustedHops; n > 0 {
					hops = n - 1
				}
				s.xffHops = &hops
			}
		}
		if !containsSetting(out.settings, s) {
			out.settings = append(out.settings, s)
		}
	}
	return out
}

// graphGeoListeners are the HTTP and HTTPS listeners Envoy Gateway
// programs that p's targets reach: a Gateway's (its sectionName's) or a
// ListenerSet's, and those each parentRef of a targeted HTTPRoute or
// GRPCRoute attached to on Envoy Gateway's Gateways; known is false where
// a target does not resolve in g (a selector, another group, an object
// not in the input).
func graphGeoListeners(p *policy.Policy, g *topology.Graph) (out []geoListener, known bool) {
	ns := p.Obj.Namespace
	add := func(ls []*topology.Listener, section string) {
		for _, l := range ls {
			if section != "" && string(l.Name) != section || !listenerReady(l) || l.Gateway == nil {
				continue
			}
			if l.Protocol == gwv1.HTTPProtocolType || l.Protocol == gwv1.HTTPSProtocolType {
				gl := geoListener{gw: l.Gateway.Gateway, name: string(l.Name), listener: l}
				if l.Set != nil {
					gl.set, gl.setNS = l.Set.Name, l.Set.Namespace
				}
				out = append(out, gl)
			}
		}
	}
	ours := func(gw *topology.Gateway) bool {
		name, managed := g.Controller(gw, ControllerName)
		return managed && name == ControllerName
	}
	for _, t := range p.Targets {
		if t.Selector != nil || t.Group != model.GatewayGroup {
			return nil, false
		}
		switch t.Kind {
		case "Gateway":
			gw := g.Gateway(ns, t.Name)
			if gw == nil {
				return nil, false
			}
			if ours(gw) {
				add(gw.Listeners, t.Section)
			}
		case "ListenerSet":
			set := g.ListenerSet(ns, t.Name)
			if set == nil {
				return nil, false
			}
			if set.Parent != nil && ours(set.Parent) {
				add(slices.DeleteFunc(slices.Clone(set.Parent.Listeners), func(l *topology.Listener) bool { return l.Set != set }), t.Section)
			}
		case "HTTPRoute", "GRPCRoute":
			rt := g.Route(t.Kind, ns, t.Name)
			if rt == nil {
				return nil, false
			}
			for _, pa := range rt.Parents {
				if pa.Gateway != nil && ours(pa.Gateway) {
					add(pa.Listeners, "")
				}
			}
		default:
			// a TCPRoute's: no HTTP listener, nothing checked
		}
	}
	return out, true
}

// geoNeed is what the geolocation rules match on (ir.Authorization's
// GeoIPRequirements): each needs its MaxMind database.
type geoNeed struct{ country, region, city, asn, isp, anonymous bool }

func geoNeeds(a *egv1a1.Authorization) geoNeed {
	var n geoNeed
	for _, r := range a.Rules {
		if r.Principal == nil {
			continue
		}
		for _, g := range r.Principal.ClientIPGeoLocations {
			n.country = n.country || g.Country != nil
			n.region = n.region || g.Region != nil
			n.city = n.city || g.City != nil
			n.asn = n.asn || g.ASN != nil
			n.isp = n.isp || g.ISP != nil
			n.anonymous = n.anonymous || g.Anonymous != nil
		}
	}
	return n
}

// geoListeners are the listeners of gs (its sectionName's, or all) that
// Envoy Gateway builds an HTTP listener for, HTTP and HTTPS ones, as the
// input writes them: the geolocation check runs per HTTP listener of the
// Gateway IR, so a TCP, TLS or UDP listener takes no part (refineGeo
// narrows them to the ones Envoy Gateway programs).
func (gs gatewaySection) geoListeners() []geoListener {
	var out []geoListener
	for _, l := range gs.gw.Spec.Listeners {
		if gs.section != "" && string(l.Name) != gs.section {
			continue
		}
		if l.Protocol == gwv1.HTTPProtocolType || l.Protocol == gwv1.HTTPSProtocolType {
			out = append(out, geoListener{gw: gs.gw, name: string(l.Name)})
		}
	}
	return out
}

// clientIPDetectionProblem: the listener's ClientTrafficPolicy detects the
// client IP in exactly one way, and not from X-Forwarded-For with trusted
// CIDRs.
func clientIPDetectionProblem(ctp *ctpDoc) string {
	if ctp == nil || ctp.ClientIPDetection == nil {
		return " requires ClientTrafficPolicy.spec.clientIPDetection to be configured."
	}
	d := ctp.ClientIPDetection
	modes := 0
	for _, set := range []bool{d.XForwardedFor != nil, d.CustomHeader != nil, d.DirectSourceIP != nil} {
		if set {
			modes++
		}
	}
	switch {
	case modes != 1:
		return " requires exactly one of ClientTrafficPolicy.spec.clientIPDetection.{xForwardedFor,customHeader,directSourceIP}."
	case d.XForwardedFor != nil && len(d.XForwardedFor.TrustedCIDRs) > 0:
		return " does not support ClientIPDetection.XForwardedFor.TrustedCIDRs."
	}
	return ""
}

// geoProviderProblem: gw's EnvoyProxy configures a MaxMind provider
// (buildGeoIPProvider) holding the database each matched property is
// read from.
func geoProviderProblem(gw *model.Gateway, m *model.Model, need geoNeed) string {
	var prov *egv1a1.GeoIPProvider
	if o, ok := effectiveProxy(gw, m); ok {
		if o.DecodeField("spec.geoIP.provider", &prov) != nil {
			prov = nil
		}
	}
	if prov == nil {
		return " requires EnvoyProxy.spec.geoIP.provider to be configured."
	}
	if prov.Type != egv1a1.GeoIPProviderTypeMaxMind {
		return fmt.Sprintf(": unsupported geoIP provider type %q.", prov.Type)
	}
	mm := prov.MaxMind
	if mm == nil {
		return ": geoIP provider MaxMind is missing maxMind configuration."
	}
	const src = " requires EnvoyProxy.spec.geoIP.provider.maxMind."
	switch {
	case need.country && mm.CountryDBSource == nil && mm.CityDBSource == nil:
		return ".country" + src + "countryDbSource or cityDbSource."
	case need.region && mm.CityDBSource == nil:
		return ".region" + src + "cityDbSource."
	case need.city && mm.CityDBSource == nil:
		return ".city" + src + "cityDbSource."
	case need.asn && mm.ASNDBSource == nil:
		return ".asn" + src + "asnDbSource."
	case need.isp && mm.ISPDBSource == nil:
		return ".isp" + src + "ispDbSource."
	case need.anonymous && mm.AnonymousIPDBSource == nil:
		return ".anonymous" + src + "anonymousIpDbSource."
	}
	return ""
}

// reachedGateways are the Gateways (and listeners) p's targetRefs reach:
// a Gateway directly, a route through its parentRefs.
func reachedGateways(p *policy.Policy, m *model.Model) []gatewaySection {
	var out []gatewaySection
	ns := p.Obj.Namespace
	for _, t := range p.Targets {
		if t.Group != model.GatewayGroup || t.Selector != nil {
			continue
		}
		if t.Kind == "Gateway" {
			if gw := m.Gateway(ns, t.Name); gw != nil {
				out = append(out, gatewaySection{gw, t.Section})
			}
			continue
		}
		rt := m.Route(t.Kind, ns, t.Name)
		if rt == nil {
			continue
		}
		for _, pr := range rt.ParentRefs {
			if pr.Kind != nil && *pr.Kind != "Gateway" {
				continue
			}
			pns := ns
			if pr.Namespace != nil {
				pns = string(*pr.Namespace)
			}
			if gw := m.Gateway(pns, string(pr.Name)); gw != nil {
				gs := gatewaySection{gw: gw}
				if pr.SectionName != nil {
					gs.section = string(*pr.SectionName)
				}
				out = append(out, gs)
			}
		}
	}
	return out
}

// ctpDoc is one ClientTrafficPolicy as the check reads it.
type ctpDoc struct {
	ns string
	egv1a1.ClientTrafficPolicySpec
	// obj and created place it in Envoy Gateway's processing order.
	obj     *manifest.Object
	created time.Time
}

// clientTrafficPolicies are the input's ClientTrafficPolicies in Envoy
// Gateway's processing order (processingOrder: older first, else as
// given), the order in which they claim listeners.
func clientTrafficPolicies(m *model.Model) []ctpDoc {
	var out []ctpDoc
	for _, o := range m.OfKind(model.GroupKind{Group: Group, Kind: clientTrafficPolicy.name}) {
		var spec egv1a1.ClientTrafficPolicySpec
		if o.DecodeField("spec", &spec) != nil {
			continue
		}
		var meta struct {
			CreationTimestamp metav1.Time `json:"creationTimestamp"`
		}
		_ = o.DecodeField("metadata", &meta)
		out = append(out, ctpDoc{ns: o.Namespace, ClientTrafficPolicySpec: spec, obj: o, created: meta.CreationTimestamp.Time})
	}
	slices.SortStableFunc(out, func(a, b ctpDoc) int {
		return processingOrder(&policy.Policy{Obj: a.obj, Created: a.created}, &policy.Policy{Obj: b.obj, Created: b.created})
	})
	return out
}

// sharesPortOutside: the listener is a plain HTTP listener Envoy Gateway
// programs, and another it programs on its port is not among those a
// policy covers (covers) — the policy is refused on it before it is
// translated there (validatePortOverlapForClientTrafficPolicy, statusRun.
// samePort). False where the graph is not known.
func (l geoListener) sharesPortOutside(covers func(*topology.Listener) bool) bool {
	ln := l.listener
	if ln == nil || ln.Gateway == nil || ln.Protocol != gwv1.HTTPProtocolType || !listenerReady(ln) {
		return false
	}
	return slices.ContainsFunc(ln.Gateway.Listeners, func(o *topology.Listener) bool {
		return o != ln && o.Protocol == gwv1.HTTPProtocolType && o.Port == ln.Port && listenerReady(o) && !covers(o)
	})
}

// ctpFor is the ClientTrafficPolicy whose client IP detection a listener
// gets (translateClientIPDetection, run whatever else of the policy
// fails): the first, in processing order, that names the listener — by
// its Gateway and sectionName (a ListenerSet's listener too: C18), or by
// its ListenerSet and sectionName — else the first naming its ListenerSet
// whole, else the first naming the Gateway whole, as their claims go
// (ProcessClientTrafficPolicies: sections, then ListenerSets, then
// Gateways). A policy targets objects of its own namespace.
func ctpFor(ctps []ctpDoc, l geoListener) *ctpDoc {
	var wholeSet, wholeGateway *ctpDoc
	for i := range ctps {
		c := &ctps[i]
		for _, t := range targets(c.PolicyTargetReferences) {
			onGateway := t.Selector == nil && t.Kind == "Gateway" && c.ns == l.gw.Namespace && t.Name == l.gw.Name
			onSet := t.Selector == nil && t.Kind == "ListenerSet" && l.set != "" && c.ns == l.setNS && t.Name == l.set
			switch {
			case (onGateway || onSet) && t.Section == l.name:
				// the section is claimed before the port check: refused
				// there, the listener gets no policy's detection
				if l.sharesPortOutside(func(o *topology.Listener) bool { return false }) {
					return nil
				}
				return c
			case onSet && t.Section == "" && wholeSet == nil:
				// refused on this listener by the port check, the set's
				// policy leaves it unclaimed, for the Gateway's
				if l.sharesPortOutside(func(o *topology.Listener) bool { return o.Set == l.listener.Set }) {
					continue
				}
				wholeSet = c
			case onGateway && t.Section == "" && wholeGateway == nil:
				wholeGateway = c
			}
		}
	}
	return cmp.Or(wholeSet, wholeGateway)
}
