package trafficpolicy

import (
	"fmt"
	"net/url"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	oauth2v3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/oauth2/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/gwpol/gwpol/internal/policy"
)

// oauth2: the OAuth2 filter of a GatewayExtension, switched on per
// resource.
func (r *fieldRenderer) oauth2() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*OAuth2Policy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	ext, ns, err := r.extension(&v.ExtensionRef, r.ns(0))
	if err != nil {
		return nil, err
	}
	p := ext.Spec.OAuth2
	if p == nil {
		return nil, fmt.Errorf("GatewayExtension %s/%s has no oauth2", ns, ext.Name)
	}
	if p.TokenEndpoint == nil || p.AuthorizationEndpoint == nil {
		return nil, fmt.Errorf("GatewayExtension %s/%s: oauth2 needs tokenEndpoint and authorizationEndpoint (issuer discovery is not done offline)", ns, ext.Name)
	}
	cluster, cl := serviceCluster(p.BackendRef.BackendObjectReference, ns, false)
	redirect := "%REQ(x-forwarded-proto)%://%REQ(:authority)%/oauth2/redirect"
	redirectPath := "/oauth2/redirect"
	if p.RedirectURI != nil {
		redirect = *p.RedirectURI
		if u, err := url.Parse(*p.RedirectURI); err == nil && u.Path != "" {
			redirectPath = u.Path
		}
	}
	ads := &corev3.ConfigSource{ResourceApiVersion: corev3.ApiVersion_V3, ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}}}
	exact := func(path string) *matcherv3.PathMatcher {
		return &matcherv3.PathMatcher{Rule: &matcherv3.PathMatcher_Path{Path: &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: path}}}}
	}
	logout := "/logout"
	if p.LogoutPath != nil {
		logout = *p.LogoutPath
	}
	cfg := &oauth2v3.OAuth2Config{
		TokenEndpoint:         &corev3.HttpUri{Uri: *p.TokenEndpoint, HttpUpstreamType: &corev3.HttpUri_Cluster{Cluster: cluster}, Timeout: durationpb.New(15 * time.Second)},
		AuthorizationEndpoint: *p.AuthorizationEndpoint,
		RedirectUri:           redirect,
		RedirectPathMatcher:   exact(redirectPath),
		SignoutPath:           exact(logout),
		Credentials: &oauth2v3.OAuth2Credentials{
			ClientId:    p.Credentials.ClientID,
			TokenSecret: &tlsv3.SdsSecretConfig{Name: policy.SecretSDSName(ns, p.Credentials.ClientSecretRef.Name), SdsConfig: ads},
			TokenFormation: &oauth2v3.OAuth2Credentials_HmacSecret{
				HmacSecret: &tlsv3.SdsSecretConfig{Name: "hmac/" + ns + "/" + ext.Name, SdsConfig: ads}},
		},
		AuthScopes: p.Scopes,
	}
	if p.ForwardAccessToken != nil {
		cfg.ForwardBearerToken = *p.ForwardAccessToken
	}
	name := "envoy.filters.http.oauth2/" + ns + "/" + ext.Name
	fr := policy.Fragment{
		Capability:      "oauth2",
		Filter:          &policy.HTTPFilter{Name: name, Order: orderOAuth2, Precedence: filterWeight("oidc", ext).Weight, Typed: &oauth2v3.OAuth2{Config: cfg}},
		PerFilterConfig: map[string]map[string]any{name: enabledConfig()},
		Clusters:        []map[string]any{cl},
	}
	return append([]policy.Fragment{fr}, r.authMetadata("oauth2", "oauth2", orderOAuth2+1, false)...), nil
}
