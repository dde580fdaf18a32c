package envoygateway

import (
	"fmt"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	credentialinjectorv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/credential_injector/v3"
	upstreamcodecv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/upstream_codec/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	genericv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/injected_credentials/generic/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// status is the direct response's status: 200 unless it says.
func directStatus(d *egv1a1.HTTPDirectResponseFilter) int {
	if d.StatusCode != nil {
		return *d.StatusCode
	}
	return 200
}

var _ policy.Answerer = (*Kind)(nil)

// Answer implements policy.Answerer: an HTTPRouteFilter's directResponse
// answers the rules that name it with its status.
func (k *Kind) Answer(key string, v any) (int, bool) {
	if k != httpRouteFilter || key != "directResponse" {
		return 0, false
	}
	fv, err := valueOf(v)
	if err != nil {
		return 0, false
	}
	d, err := typedAs[*egv1a1.HTTPDirectResponseFilter](fv)
	if err != nil || d == nil {
		return 0, false
	}
	return directStatus(d), true
}

// renderDirectResponse is an HTTPRouteFilter's direct response, as Envoy
// Gateway writes it on the route of a rule naming the filter: Envoy's
// direct_response with the status (200 by default) and the body as a
// format string (command operators work in it), the content type and the
// filter's headers as response headers of the route (set ones replacing,
// added ones appended). A body from a ConfigMap is a
// ${configmap:ns/name#key} placeholder, as for responseOverride.
func renderDirectResponse(d *egv1a1.HTTPDirectResponseFilter, who policyName, m *model.Model) ([]policy.Fragment, error) {
	if d == nil {
		d = &egv1a1.HTTPDirectResponseFilter{}
	}
	if h := d.Header; h != nil && len(h.Remove) > 0 {
		return []policy.Fragment{{Capability: "envoygateway.HTTPRouteFilter.directResponse.header.remove"}}, nil
	}
	dr := &routev3.DirectResponseAction{Status: uint32(directStatus(d))}
	if b := d.Body; b != nil {
		var src *corev3.DataSource
		switch {
		case b.Type != nil && *b.Type == "ValueRef" && b.ValueRef != nil:
			name := string(b.ValueRef.Name)
			key := responseBodyConfigMapKey(m, who.namespace, name)
			src = &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: policy.ConfigMapPlaceholder(who.namespace, name, key)}}
		case b.Inline != nil && *b.Inline != "":
			src = &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: []byte(*b.Inline)}}
		}
		if src != nil {
			dr.BodyFormat = &corev3.SubstitutionFormatString{Format: &corev3.SubstitutionFormatString_TextFormatSource{TextFormatSource: src}}
		}
	}
	r := &routev3.Route{Action: &routev3.Route_DirectResponse{DirectResponse: dr}}
	if ct := d.ContentType; ct != nil {
		r.ResponseHeadersToAdd = append(r.ResponseHeadersToAdd, &corev3.HeaderValueOption{
			Header: &corev3.HeaderValue{Key: "Content-Type", Value: *ct}, AppendAction: corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD})
	}
	if h := d.Header; h != nil {
		for _, a := range h.Add {
			r.ResponseHeadersToAdd = append(r.ResponseHeadersToAdd, &corev3.HeaderValueOption{
				Header: &corev3.HeaderValue{Key: string(a.Name), Value: a.Value}, KeepEmptyValue: a.Value == ""})
		}
		for _, s := range h.Set {
			r.ResponseHeadersToAdd = append(r.ResponseHeadersToAdd, &corev3.HeaderValueOption{
				Header: &corev3.HeaderValue{Key: string(s.Name), Value: s.Value}, KeepEmptyValue: s.Value == "",
				AppendAction: corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD})
		}
	}
	return []policy.Fragment{{Capability: "route", TypedRoute: r}}, nil
}

// credentialInjectorFilter prefixes the name of Envoy's credential
// injector filter, one per HTTPRouteFilter:
// envoy.filters.http.credential_injector/httproutefilter/<ns>/<name>.
const credentialInjectorFilter = "envoy.filters.http.credential_injector"

// renderCredentialInjection is Envoy Gateway's credential injection: a
// credential_injector filter per HTTPRouteFilter, off in the chain and
// turned on by the routes whose rules name the filter, injecting a
// generic credential into the header (Authorization unless set). The
// credential is the "credential" key of the Secret the filter names,
// which Envoy Gateway serves over SDS as
// credential_injector/credential/httproutefilter/<ns>/<name>: gwpol
// references it by that name and never reads the Secret's data.
func renderCredentialInjection(c *egv1a1.HTTPCredentialInjectionFilter, who policyName) ([]policy.Fragment, error) {
	if c == nil || c.Credential.ValueRef.Name == "" {
		return nil, fmt.Errorf("credentialInjection.credential.valueRef: no Secret named")
	}
	generic := &genericv3.Generic{Credential: &tlsv3.SdsSecretConfig{
		Name: "credential_injector/credential/" + who.String(),
		SdsConfig: &corev3.ConfigSource{
			ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}},
			InitialFetchTimeout:   durationpb.New(0),
			ResourceApiVersion:    corev3.ApiVersion_V3,
		},
	}}
	if c.Header != nil {
		generic.Header = *c.Header
	}
	injector := &credentialinjectorv3.CredentialInjector{Credential: typedCoreExtension("envoy.http.injected_credentials.generic", generic)}
	if c.Overwrite != nil {
		injector.Overwrite = *c.Overwrite
	}
	name := credentialInjectorFilter + "/" + who.String()
	own, err := upstreamInjector(name, injector)
	if err != nil {
		return nil, err
	}
	return []policy.Fragment{{
		Capability:           "credential_injector",
		Filter:               &policy.HTTPFilter{Name: name, Order: orderCredentialInjector, Typed: injector},
		TypedPerFilterConfig: map[string]proto.Message{name: &routev3.FilterConfig{Config: &anypb.Any{}}},
		BackendCluster:       own,
	}}, nil
}

// upstreamInjector is the credential injector where a backendRef names
// the HTTPRouteFilter: Envoy Gateway gives that backendRef a cluster of
// its own (one per filtered backendRef) and injects there, with the same
// filter as an upstream HTTP filter of the cluster, on, before the
// upstream codec that ends the upstream chain
// (internal/xds/translator/cluster.go, buildClusterHTTPFilters).
func upstreamInjector(name string, injector *credentialinjectorv3.CredentialInjector) (*clusterv3.Cluster, error) {
	inj, err := anypb.New(injector)
	if err != nil {
		return nil, err
	}
	codec, err := anypb.New(&upstreamcodecv3.UpstreamCodec{})
	if err != nil {
		return nil, err
	}
	return httpOptions(&upstreamhttpv3.HttpProtocolOptions{HttpFilters: []*hcmv3.HttpFilter{
		{Name: name, ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: inj}},
		{Name: "envoy.extensions.filters.http.upstream_codec.v3.UpstreamCodec", ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: codec}},
	}})
}

// typedCoreExtension packs a message built here as Envoy's core typed
// extension (packing a known message cannot fail).
func typedCoreExtension(name string, m proto.Message) *corev3.TypedExtensionConfig {
	a, err := anypb.New(m)
	if err != nil {
		panic(fmt.Sprintf("envoygateway: packing %T: %v", m, err))
	}
	return &corev3.TypedExtensionConfig{Name: name, TypedConfig: a}
}

// renderURLRewrite is an HTTPRouteFilter's URL rewrite on the route of a
// rule naming it, as Envoy Gateway writes it: the host from a request
// header or from the path by a regular expression, and then the original
// host in x-forwarded-host unless appendXForwardedHost is false; the path
// by a regular expression. The host of the backend (type Backend) is not
// rendered yet.
func renderURLRewrite(u *egv1a1.HTTPURLRewriteFilter, _ policyName) ([]policy.Fragment, error) {
	if u == nil {
		u = &egv1a1.HTTPURLRewriteFilter{}
	}
	ra := &routev3.RouteAction{}
	if h := u.Hostname; h != nil {
		switch {
		case h.Type == "Header" && h.Header != nil:
			ra.HostRewriteSpecifier = &routev3.RouteAction_HostRewriteHeader{HostRewriteHeader: *h.Header}
		case h.Type == "PathRegex" && h.PathRegex != nil:
			ra.HostRewriteSpecifier = &routev3.RouteAction_HostRewritePathRegex{HostRewritePathRegex: &matcherv3.RegexMatchAndSubstitute{
				Pattern: &matcherv3.RegexMatcher{Regex: h.PathRegex.Pattern}, Substitution: h.PathRegex.Substitution}}
		default:
			return []policy.Fragment{{Capability: "envoygateway.HTTPRouteFilter.urlRewrite.hostname." + string(h.Type)}}, nil
		}
		ra.AppendXForwardedHost = u.AppendXForwardedHost == nil || *u.AppendXForwardedHost
	}
	if p := u.Path; p != nil {
		if p.Type != "ReplaceRegexMatch" || p.ReplaceRegexMatch == nil {
			return []policy.Fragment{{Capability: "envoygateway.HTTPRouteFilter.urlRewrite.path." + string(p.Type)}}, nil
		}
		ra.RegexRewrite = &matcherv3.RegexMatchAndSubstitute{
			Pattern: &matcherv3.RegexMatcher{Regex: p.ReplaceRegexMatch.Pattern}, Substitution: p.ReplaceRegexMatch.Substitution}
	}
	return []policy.Fragment{{Capability: "route", TypedRouteAction: ra}}, nil
}

// renderFilterMatches is an HTTPRouteFilter's matches on the routes of a
// rule naming it: Envoy Gateway crosses the rule's matches with the
// filter's (route.go: buildRouteMatchCombinations), one Envoy route per
// pair, each with the filter match's cookies (buildCookieMatches, the
// xDS translator's CookieMatcher). With one filter match every route of
// the rule takes its cookies; gwpol writes one Envoy route per rule
// match, so it cannot write the routes of several.
func renderFilterMatches(ms []egv1a1.HTTPRouteMatchFilter, _ policyName) ([]policy.Fragment, error) {
	switch len(ms) {
	case 0:
		return nil, nil
	case 1:
	default:
		return []policy.Fragment{{Capability: "envoygateway.HTTPRouteFilter.matches.several",
			Reason: "Envoy Gateway makes one Envoy route for each pair of a rule match and a match of the HTTPRouteFilter; gwpol writes one route per rule match, so it renders an HTTPRouteFilter of one match only"}}, nil
	}
	match := &routev3.RouteMatch{}
	for _, c := range ms[0].Cookies {
		sm := &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: c.Value}}
		if c.Type != nil && *c.Type == egv1a1.CookieMatchRegularExpression {
			sm = &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: c.Value}}}
		}
		match.Cookies = append(match.Cookies, &routev3.CookieMatcher{Name: c.Name, StringMatch: sm})
	}
	return []policy.Fragment{{Capability: "route", TypedRoute: &routev3.Route{Match: match}}}, nil
}
