package envoygateway

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// geoPlatform is a class and a Gateway in "default", each naming an
// EnvoyProxy (class-ep, gw-ep) that the cases define or leave out.
const geoPlatform = `---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
  parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: class-ep, namespace: default}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: default}
spec:
  gatewayClassName: eg
  infrastructure: {parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: gw-ep}}
  listeners: [{name: http, protocol: HTTP, port: 80}]
`

func proxyDoc(name, spec string) string {
	return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: " + name + ", namespace: default}\nspec:\n" + spec
}

func detection(d string) string {
	return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: ctp, namespace: default}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  clientIPDetection: " + d + "\n"
}

func geoRule(match string) string {
	return "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n" +
		"  authorization: {defaultAction: Deny, rules: [{action: Allow, principal: {clientIPGeoLocations: [" + match + "]}}]}\n"
}

// decodeGeo decodes the SecurityPolicy spec beside others, in a model that
// holds the ClientTrafficPolicies and EnvoyProxies as the pipeline's does.
func decodeGeo(t *testing.T, spec, others string) *policy.Policy {
	t.Helper()
	doc := "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: p, namespace: default}\nspec:\n" + spec + others
	objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: geoKinds})
	return SecurityPolicy().Decode(objs[0], &policy.Env{Model: m, Config: extensionsOn(policy.Config{})})
}

var geoKinds = map[model.GroupKind]bool{envoyProxy: true, {Group: Group, Kind: clientTrafficPolicy.name}: true}

// TestGeoLocationRequirements: validateAuthorizationGeoIP's checks, in its
// order — the listener's client IP detection (set, exactly one way, no
// trusted CIDRs), then the provider, then a database for each property
// the rules match (a country is also in the city database).
func TestGeoLocationRequirements(t *testing.T) {
	const xff = "{xForwardedFor: {numTrustedHops: 1}}"
	const prefix = "Authorization: authorization clientIPGeoLocations"
	db := func(kinds ...string) string {
		s := "  geoIP: {provider: {type: MaxMind, maxMind: {"
		for i, k := range kinds {
			if i > 0 {
				s += ", "
			}
			s += k + "DbSource: {local: {path: /geo/" + k + ".mmdb}}"
		}
		return s + "}}}\n"
	}
	for _, tc := range []struct {
		name, rule, others string
		want               []string
	}{
		{name: "detection is checked before the provider", rule: "{country: US}",
			want: []string{prefix + " requires ClientTrafficPolicy.spec.clientIPDetection to be configured."}},
		{name: "two detection modes", rule: "{country: US}", others: detection("{xForwardedFor: {numTrustedHops: 1}, customHeader: {name: x-ip}}") + proxyDoc("gw-ep", db("country")),
			want: []string{prefix + " requires exactly one of ClientTrafficPolicy.spec.clientIPDetection.{xForwardedFor,customHeader,directSourceIP}."}},
		{name: "trusted CIDRs", rule: "{country: US}", others: detection("{xForwardedFor: {trustedCIDRs: [10.0.0.0/8]}}") + proxyDoc("gw-ep", db("country")),
			want: []string{prefix + " does not support ClientIPDetection.XForwardedFor.TrustedCIDRs."}},
		{name: "no provider", rule: "{country: US}", others: detection(xff) + proxyDoc("gw-ep", "  luaValidation: Strict\n"),
			want: []string{prefix + " requires EnvoyProxy.spec.geoIP.provider to be configured."}},
		{name: "a country from the city database", rule: "{country: US}", others: detection(xff) + proxyDoc("gw-ep", db("city"))},
		{name: "a country without country or city database", rule: "{country: US}", others: detection(xff) + proxyDoc("gw-ep", db("asn")),
			want: []string{prefix + ".country requires EnvoyProxy.spec.geoIP.provider.maxMind.countryDbSource or cityDbSource."}},
		{name: "a region needs the city database", rule: "{country: US, region: CA}", others: detection("{directSourceIP: {}}") + proxyDoc("gw-ep", db("country")),
			want: []string{prefix + ".region requires EnvoyProxy.spec.geoIP.provider.maxMind.cityDbSource."}},
		{name: "an ASN needs its database", rule: "{asn: 64512}", others: detection(xff) + proxyDoc("gw-ep", db("city", "isp")),
			want: []string{prefix + ".asn requires EnvoyProxy.spec.geoIP.provider.maxMind.asnDbSource."}},
		{name: "an ISP needs its database", rule: "{isp: Acme}", others: detection(xff) + proxyDoc("gw-ep", db("asn")),
			want: []string{prefix + ".isp requires EnvoyProxy.spec.geoIP.provider.maxMind.ispDbSource."}},
		{name: "anonymity needs its database", rule: "{anonymous: {isAnonymous: true}}", others: detection(xff) + proxyDoc("gw-ep", db("city")),
			want: []string{prefix + ".anonymous requires EnvoyProxy.spec.geoIP.provider.maxMind.anonymousIpDbSource."}},
		{name: "every database present", rule: "{country: US, city: Paris, asn: 1, isp: Acme, anonymous: {isAnonymous: true}}",
			others: detection(xff) + proxyDoc("gw-ep", db("city", "asn", "isp", "anonymousIp"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decodeGeo(t, geoRule(tc.rule), geoPlatform+tc.others)
			if got := messages(p); !slices.Equal(got, tc.want) {
				t.Errorf("invalid =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// TestEffectiveEnvoyProxy: the EnvoyProxy a Gateway gets is its own laid
// over its class's by its own mergeType (attachEnvoyProxy →
// MergeEnvoyProxyConfigs), its class's alone where its own is not in the
// input or the class merges Gateways; each EnvoyProxy setting gwpol reads
// goes through it (here the geoIP provider a geolocation rule needs, and
// luaValidation).
func TestEffectiveEnvoyProxy(t *testing.T) {
	const classGeo = "  luaValidation: Disabled\n  geoIP: {provider: {type: MaxMind, maxMind: {cityDbSource: {local: {path: /geo/city.mmdb}}}}}\n"
	const noProvider = "Authorization: authorization clientIPGeoLocations requires EnvoyProxy.spec.geoIP.provider to be configured."
	for _, tc := range []struct {
		name, others string
		want         []string // the SecurityPolicy's messages
		lua          string   // luaValidation in effect
		owner        string   // the EnvoyProxy the references are read in
	}{
		{name: "the Gateway's own replaces its class's by default", others: proxyDoc("class-ep", classGeo) + proxyDoc("gw-ep", "  luaValidation: Strict\n"),
			want: []string{noProvider}, lua: `"Strict"`, owner: "gw-ep"},
		{name: "Replace written out", others: proxyDoc("class-ep", classGeo) + proxyDoc("gw-ep", "  mergeType: Replace\n  logging: {level: {default: info}}\n"),
			want: []string{noProvider}, lua: "null", owner: "gw-ep"},
		{name: "StrategicMerge keeps the class's settings the Gateway's does not set", others: proxyDoc("class-ep", classGeo) + proxyDoc("gw-ep", "  mergeType: StrategicMerge\n  logging: {level: {default: info}}\n"),
			lua: `"Disabled"`, owner: "gw-ep"},
		{name: "JSONMerge too, the Gateway's value winning", others: proxyDoc("class-ep", classGeo) + proxyDoc("gw-ep", "  mergeType: JSONMerge\n  luaValidation: Strict\n"),
			lua: `"Strict"`, owner: "gw-ep"},
		{name: "a Gateway EnvoyProxy not in the input leaves the class's", others: proxyDoc("class-ep", classGeo),
			lua: `"Disabled"`, owner: "class-ep"},
		{name: "a class that merges Gateways reads no Gateway's own", others: proxyDoc("class-ep", "  mergeGateways: true\n"+classGeo) + proxyDoc("gw-ep", "  luaValidation: Strict\n"),
			lua: `"Disabled"`, owner: "class-ep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			others := geoPlatform + detection("{xForwardedFor: {numTrustedHops: 1}}") + tc.others
			p := decodeGeo(t, geoRule("{city: Paris}"), others)
			if got := messages(p); !slices.Equal(got, tc.want) {
				t.Errorf("invalid =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			objs, err := manifest.Parse("p.yaml", []byte(others), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: geoKinds})
			ep, ok := effectiveProxy(m.Gateways[0], m)
			if !ok {
				t.Fatal("no EnvoyProxy in effect")
			}
			if ep.owner.Name != tc.owner {
				t.Errorf("owner %s, want %s", ep.owner.Name, tc.owner)
			}
			if b, err := ep.FieldJSON("spec.luaValidation"); err != nil || string(b) != tc.lua {
				t.Errorf("luaValidation %s (%v), want %s", b, err, tc.lua)
			}
		})
	}
}
