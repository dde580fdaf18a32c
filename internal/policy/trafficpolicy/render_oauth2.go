package trafficpolicy

import (
	"fmt"
	"net/url"

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
	cfg := obj{
		"token_endpoint":         obj{"uri": *p.TokenEndpoint, "cluster": cluster, "timeout": "15s"},
		"authorization_endpoint": *p.AuthorizationEndpoint,
		"redirect_uri":           redirect,
		"redirect_path_matcher":  obj{"path": obj{"exact": redirectPath}},
		"credentials": obj{
			"client_id":    p.Credentials.ClientID,
			"token_secret": obj{"name": policy.SecretSDSName(ns, p.Credentials.ClientSecretRef.Name), "sds_config": obj{"ads": obj{}, "resource_api_version": "V3"}},
			"hmac_secret":  obj{"name": "hmac/" + ns + "/" + ext.Name, "sds_config": obj{"ads": obj{}, "resource_api_version": "V3"}},
		},
	}
	logout := "/logout"
	if p.LogoutPath != nil {
		logout = *p.LogoutPath
	}
	cfg["signout_path"] = obj{"path": obj{"exact": logout}}
	if len(p.Scopes) > 0 {
		cfg["auth_scopes"] = p.Scopes
	}
	if p.ForwardAccessToken != nil {
		cfg["forward_bearer_token"] = *p.ForwardAccessToken
	}
	name := "envoy.filters.http.oauth2/" + ns + "/" + ext.Name
	fr := fragment("oauth2", name, orderOAuth2, obj{
		"@type": typeURL("envoy.extensions.filters.http.oauth2.v3.OAuth2"), "config": cfg,
	}, enabledConfig())
	fr.Clusters = []map[string]any{cl}
	return append([]policy.Fragment{fr}, r.authMetadata("oauth2", "oauth2", orderOAuth2+1, false)...), nil
}
