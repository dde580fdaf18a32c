package envoygateway

import (
	"fmt"
	"strconv"

	xdsmatcherv3 "github.com/cncf/xds/go/xds/type/matcher/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	geoipv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/geoip/v3"
	geoipcommonv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/geoip_providers/common/v3"
	maxmindv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/geoip_providers/maxmind/v3"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	"github.com/gwpol/gwpol/internal/model"

	"github.com/gwpol/gwpol/internal/policy"
)

// geoIPFilter is Envoy's IP geolocation filter: Envoy Gateway adds it,
// on, to the chain of a listener whose routes authorize by client IP
// geolocation, writing what it finds into internal request headers the
// routes' RBAC matches.
const geoIPFilter = "envoy.filters.http.geoip"

// geoField is a geolocation field Envoy Gateway looks up and the
// internal header it is written to, in Envoy Gateway's order.
type geoField int

const (
	geoCountry geoField = iota
	geoRegion
	geoCity
	geoASN
	geoISP
	geoAnon
	geoAnonVPN
	geoAnonHosting
	geoAnonTor
	geoAnonProxy
	geoFields
)

// geoHeaders are the internal headers, by field.
var geoHeaders = [geoFields]string{
	"x-eg-internal-geoip-country", "x-eg-internal-geoip-region", "x-eg-internal-geoip-city",
	"x-eg-internal-geoip-asn", "x-eg-internal-geoip-isp", "x-eg-internal-geoip-anon",
	"x-eg-internal-geoip-anon-vpn", "x-eg-internal-geoip-anon-hosting", "x-eg-internal-geoip-anon-tor",
	"x-eg-internal-geoip-anon-proxy",
}

// geoUse is the set of fields a policy's rules match on.
type geoUse [geoFields]bool

func (u geoUse) any() bool {
	for _, b := range u {
		if b {
			return true
		}
	}
	return false
}

// headers are the used fields' internal headers, in Envoy Gateway's order.
func (u geoUse) headers() []string {
	var out []string
	for f, used := range u {
		if used {
			out = append(out, geoHeaders[f])
		}
	}
	return out
}

// geoPredicate is Envoy Gateway's match of a rule's client IP
// geolocations: per location, each field it names compared with its
// internal header (names ignoring case, numbers and flags exactly), all
// of them; any of the locations. It records the fields used in use; nil
// when no location names a field.
func geoPredicate(locs []egv1a1.ClientIPGeoLocation, use *geoUse) (*xdsmatcherv3.Matcher_MatcherList_Predicate, error) {
	var perLocation []*xdsmatcherv3.Matcher_MatcherList_Predicate
	for _, l := range locs {
		var preds []*xdsmatcherv3.Matcher_MatcherList_Predicate
		add := func(f geoField, value string, ignoreCase bool) {
			use[f] = true
			preds = append(preds, headerPredicate(geoHeaders[f], &xdsmatcherv3.StringMatcher{MatchPattern: &xdsmatcherv3.StringMatcher_Exact{Exact: value}, IgnoreCase: ignoreCase}))
		}
		str := func(f geoField, v *string) {
			if v != nil {
				add(f, *v, true)
			}
		}
		flag := func(f geoField, v *bool) {
			if v != nil {
				add(f, strconv.FormatBool(*v), false)
			}
		}
		str(geoCountry, l.Country)
		str(geoRegion, l.Region)
		str(geoCity, l.City)
		if l.ASN != nil {
			add(geoASN, strconv.FormatUint(uint64(*l.ASN), 10), false)
		}
		str(geoISP, l.ISP)
		if a := l.Anonymous; a != nil {
			flag(geoAnon, a.IsAnonymous)
			flag(geoAnonVPN, a.IsVPN)
			flag(geoAnonHosting, a.IsHosting)
			flag(geoAnonTor, a.IsTor)
			flag(geoAnonProxy, a.IsProxy)
		}
		switch len(preds) {
		case 0:
		case 1:
			perLocation = append(perLocation, preds[0])
		default:
			perLocation = append(perLocation, &xdsmatcherv3.Matcher_MatcherList_Predicate{MatchType: &xdsmatcherv3.Matcher_MatcherList_Predicate_AndMatcher{
				AndMatcher: &xdsmatcherv3.Matcher_MatcherList_Predicate_PredicateList{Predicate: preds}}})
		}
	}
	if len(perLocation) == 0 {
		return nil, nil
	}
	return anyOf(perLocation), nil
}

// geoSetting is what the geolocation filter of a listener is configured
// with: the MaxMind databases of the Gateway's EnvoyProxy and how the
// listener's ClientTrafficPolicy detects the client IP.
type geoSetting struct {
	city, country, asn, isp, anon string
	customHeader                  string
	xffHops                       *uint32
}

// geoFragments are the geolocation filter, on in the chain, looking up
// the fields the policy's rules use (the chain's configuration is the
// merge of every route's, so it looks up what any of them uses), and the
// removal of those fields' internal headers from the requests of every
// route served through the chain, so that no client can set them. Envoy Gateway configures the
// filter from the listener; gwpol finds the listeners through the
// policy's targets, and reports it unsupported when they are configured
// differently. failed: the authorization is rendered as kept on routes
// the policy fails (policy.FieldInput.Failed).
func geoFragments(use geoUse, who policyName, m *model.Model, dec *geoDecision, failed bool) ([]policy.Fragment, error) {
	if dec == nil {
		d, err := modelGeoDecision(who, m)
		if err != nil {
			return nil, err
		}
		dec = &d
	}
	settings := dec.settings
	if len(dec.problems) > 0 && (!dec.split || failed) {
		// The policy failed the geolocation check, everywhere or on the
		// listener rendered (its routes answer 500 there): Envoy Gateway
		// configures no provider there, so no filter, but still removes
		// the internal headers. Where the decision is split, the
		// listeners that pass get the filter (settings).
		return []policy.Fragment{{TypedRoute: &routev3.Route{RequestHeadersToRemove: use.headers()}}}, nil
	}
	if len(settings) != 1 {
		return []policy.Fragment{{Capability: "envoygateway.SecurityPolicy.authorization.clientIPGeoLocations.differing-listeners"}}, nil
	}
	s := settings[0]
	keys := &geoipcommonv3.CommonGeoipProviderConfig_GeolocationFieldKeys{}
	for f, used := range use {
		if !used {
			continue
		}
		h := geoHeaders[f]
		switch geoField(f) {
		case geoCountry:
			keys.Country = h
		case geoRegion:
			keys.Region = h
		case geoCity:
			keys.City = h
		case geoASN:
			keys.Asn = h
		case geoISP:
			keys.Isp = h
		case geoAnon:
			keys.Anon = h
		case geoAnonVPN:
			keys.AnonVpn = h
		case geoAnonHosting:
			keys.AnonHosting = h
		case geoAnonTor:
			keys.AnonTor = h
		case geoAnonProxy:
			keys.AnonProxy = h
		}
	}
	provider := &maxmindv3.MaxMindConfig{CityDbPath: s.city, CountryDbPath: s.country, AsnDbPath: s.asn, IspDbPath: s.isp, AnonDbPath: s.anon,
		CommonProviderConfig: &geoipcommonv3.CommonGeoipProviderConfig{GeoFieldKeys: keys}}
	cfg := &geoipv3.Geoip{Provider: typedCoreExtension("envoy.geoip_providers.maxmind", provider)}
	switch {
	case s.customHeader != "":
		cfg.CustomHeaderConfig = &geoipv3.Geoip_CustomHeaderConfig{HeaderName: s.customHeader}
	case s.xffHops != nil:
		cfg.XffConfig = &geoipv3.Geoip_XffConfig{XffNumTrustedHops: *s.xffHops}
	}
	return []policy.Fragment{{
		Capability: "geoip",
		Filter: &policy.HTTPFilter{Name: geoIPFilter, Order: orderGeoIP, Enabled: true, Merge: true, Typed: cfg,
			RemoveRequestHeaders: use.headers()},
	}}, nil
}

// modelGeoDecision is the geolocation verdict worked out from the input
// alone (checkGeoLocations' listeners), for a value that holds none.
func modelGeoDecision(who policyName, m *model.Model) (geoDecision, error) {
	if m == nil {
		return geoDecision{}, fmt.Errorf("clientIPGeoLocations: no input to find the Gateway's EnvoyProxy in")
	}
	o, found := m.Object(model.Key{Group: Group, Kind: securityPolicy.name, Namespace: who.namespace, Name: who.name})
	if !found {
		return geoDecision{}, fmt.Errorf("clientIPGeoLocations: SecurityPolicy %s/%s not found", who.namespace, who.name)
	}
	var t egv1a1.PolicyTargetReferences
	if o.DecodeField("spec", &t) != nil {
		return geoDecision{}, fmt.Errorf("clientIPGeoLocations: SecurityPolicy %s/%s has no readable targets", who.namespace, who.name)
	}
	var auth egv1a1.Authorization
	if o.DecodeField("spec.authorization", &auth) != nil {
		return geoDecision{}, fmt.Errorf("clientIPGeoLocations: SecurityPolicy %s/%s has no readable authorization", who.namespace, who.name)
	}
	var ls []geoListener
	for _, gs := range reachedGateways(&policy.Policy{Obj: o, Targets: targets(t)}, m) {
		ls = append(ls, gs.geoListeners()...)
	}
	return decideGeo(ls, m, geoNeeds(&auth)), nil
}

func containsSetting(ss []geoSetting, s geoSetting) bool {
	for _, x := range ss {
		same := x.city == s.city && x.country == s.country && x.asn == s.asn && x.isp == s.isp && x.anon == s.anon && x.customHeader == s.customHeader
		if same && (x.xffHops == nil) == (s.xffHops == nil) && (x.xffHops == nil || *x.xffHops == *s.xffHops) {
			return true
		}
	}
	return false
}

// maxMindPaths are the local database paths of the MaxMind provider the
// Gateway's EnvoyProxy configures (spec.geoIP.provider.maxMind).
func maxMindPaths(gw *model.Gateway, m *model.Model) (geoSetting, bool) {
	o, ok := effectiveProxy(gw, m)
	if !ok {
		return geoSetting{}, false
	}
	var mm struct {
		City    *egv1a1.GeoIPDBSource `json:"cityDbSource"`
		Country *egv1a1.GeoIPDBSource `json:"countryDbSource"`
		ASN     *egv1a1.GeoIPDBSource `json:"asnDbSource"`
		ISP     *egv1a1.GeoIPDBSource `json:"ispDbSource"`
		Anon    *egv1a1.GeoIPDBSource `json:"anonymousIpDbSource"`
	}
	if o.DecodeField("spec.geoIP.provider.maxMind", &mm) != nil {
		return geoSetting{}, false
	}
	path := func(s *egv1a1.GeoIPDBSource) string {
		if s == nil {
			return ""
		}
		return s.Local.Path
	}
	return geoSetting{city: path(mm.City), country: path(mm.Country), asn: path(mm.ASN), isp: path(mm.ISP), anon: path(mm.Anon)}, true
}
