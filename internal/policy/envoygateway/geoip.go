package envoygateway

import (
	"fmt"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
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
// (securitypolicy.go: validateAuthorizationGeoIP, in that order).
func checkGeoLocations(p *policy.Policy, spec *egv1a1.SecurityPolicySpec, m *model.Model) {
	if !geoUsed(spec.Authorization) {
		return
	}
	need := geoNeeds(spec.Authorization)
	ctps := clientTrafficPolicies(m)
	for _, gs := range reachedGateways(p, m) {
		if msg := geoProblem(gs, ctps, m, need); msg != "" {
			p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "spec.authorization", "Authorization: authorization clientIPGeoLocations%s", msg))
			// Envoy Gateway checks this after translating the rules: it
			// keeps the authorization beside the 500 (KeptWhenInvalid).
			decoded(p).geoInvalid = len(p.Invalid) - 1
			return
		}
	}
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

// httpListeners are the listeners of gs (its sectionName's, or all) that
// Envoy Gateway builds an HTTP listener for, HTTP and HTTPS ones: the
// geolocation check runs per HTTP listener of the Gateway IR
// (translateSecurityPolicyForListeners ranges over x.HTTP; the route path
// over each HTTP listener's routes), so a TCP, TLS or UDP listener takes
// no part, in the check (geoProblem) as in the filter (geoSettings).
func (gs gatewaySection) httpListeners() []gwv1.Listener {
	var out []gwv1.Listener
	for _, l := range gs.gw.Spec.Listeners {
		if gs.section != "" && string(l.Name) != gs.section {
			continue
		}
		if l.Protocol == gwv1.HTTPProtocolType || l.Protocol == gwv1.HTTPSProtocolType {
			out = append(out, l)
		}
	}
	return out
}

func geoProblem(gs gatewaySection, ctps []ctpDoc, m *model.Model, need geoNeed) string {
	for _, l := range gs.httpListeners() {
		if msg := clientIPDetectionProblem(ctpFor(ctps, gs.gw, string(l.Name))); msg != "" {
			return msg
		}
		if msg := geoProviderProblem(gs.gw, m, need); msg != "" {
			return msg
		}
	}
	return ""
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
