package envoygateway

import (
	"fmt"
	"slices"
	"strings"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
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
func refineGeo(p *policy.Policy, g *topology.Graph) {
	a, ok := decoded(p).spec.(*egv1a1.SecurityPolicySpec)
	if !ok || !geoUsed(a.Authorization) {
		return
	}
	ls, known := graphGeoListeners(p, g)
	if !known {
		return
	}
	recordGeo(p, decideGeo(ls, g.Model, geoNeeds(a.Authorization)))
}

// recordGeo makes dec the policy's geolocation verdict: its finding (the
// one it replaces taken out) and, for render, on the authorization's
// value (fieldValue.geo), so that status, lint and render read one list
// of listeners.
func recordGeo(p *policy.Policy, dec geoDecision) {
	d := decoded(p)
	if old := d.geo; old != nil {
		p.Invalid = slices.DeleteFunc(p.Invalid, func(f diag.Diagnostic) bool { return f.Field == old.Field && f.Message == old.Message })
		d.geo = nil
	}
	if len(dec.problems) > 0 {
		f := p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "spec.authorization", "%s", dec.message())
		p.Invalid = append(p.Invalid, f)
		// Envoy Gateway checks this after translating the rules: it
		// keeps the authorization beside the 500 (KeptWhenInvalid).
		d.geo = &f
	}
	if v, ok := p.Values["authorization"].(*fieldValue); ok {
		v.geo = &dec
	}
}

// geoDecision is the geolocation check's verdict on a policy: the
// settings of the geolocation filter on the listeners it reaches, or the
// problem that refuses it.
type geoDecision struct {
	settings []geoSetting
	// problems are the failing listeners', one each, in order (Envoy
	// Gateway joins an error per failing listener); none when every
	// listener passes.
	problems []string
}

// message is the policy's condition message for the problems: each
// listener's error, joined by new lines, a full stop at the end
// (errors.Join, then Error2ConditionMsg).
func (d geoDecision) message() string {
	lines := make([]string, len(d.problems))
	for i, p := range d.problems {
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
}

// decideGeo checks each of ls in order (validateAuthorizationGeoIP: the
// client IP detection, then the provider): a failing listener refuses the
// policy, its error joined to the others'; otherwise each listener's
// filter settings, the distinct ones.
func decideGeo(ls []geoListener, m *model.Model, need geoNeed) geoDecision {
	ctps := clientTrafficPolicies(m)
	var out geoDecision
	for _, l := range ls {
		ctp := ctpFor(ctps, l.gw, l.name)
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
	if len(out.problems) > 0 {
		out.settings = nil
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
				out = append(out, geoListener{gw: l.Gateway.Gateway, name: string(l.Name)})
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
}

func clientTrafficPolicies(m *model.Model) []ctpDoc {
	var out []ctpDoc
	for _, o := range m.OfKind(model.GroupKind{Group: Group, Kind: clientTrafficPolicy.name}) {
		var spec egv1a1.ClientTrafficPolicySpec
		if o.DecodeField("spec", &spec) == nil {
			out = append(out, ctpDoc{ns: o.Namespace, ClientTrafficPolicySpec: spec})
		}
	}
	return out
}

// ctpFor is the ClientTrafficPolicy in effect on a listener: the first
// naming the listener, else the first naming the whole Gateway.
func ctpFor(ctps []ctpDoc, gw *model.Gateway, listener string) *ctpDoc {
	var whole *ctpDoc
	for i := range ctps {
		c := &ctps[i]
		if c.ns != gw.Namespace {
			continue
		}
		for _, t := range targets(c.PolicyTargetReferences) {
			if t.Kind != "Gateway" || t.Name != gw.Name {
				continue
			}
			if t.Section == listener {
				return c
			}
			if t.Section == "" && whole == nil {
				whole = c
			}
		}
	}
	return whole
}
