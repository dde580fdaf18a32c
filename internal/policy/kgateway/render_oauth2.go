package kgateway

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	jwtv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	oauth2v3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/oauth2/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/gwpol/gwpol/internal/diag"
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
		return nil, diag.Errorf(diag.Unsupported, "GatewayExtension %s/%s: oauth2 names its endpoints through issuerURI, whose discovery document kgateway fetches and gwpol does not (offline): give tokenEndpoint and authorizationEndpoint", ns, ext.Name)
	}
	cluster, cl := serviceCluster(p.BackendRef.BackendObjectReference, ns, false)
	redirect := oauth2DefaultRedirectURI
	if p.RedirectURI != nil {
		redirect = *p.RedirectURI
	}
	redirectPath, err := oauth2RedirectPath(p.RedirectURI)
	if err != nil {
		return nil, fmt.Errorf("GatewayExtension %s/%s: invalid redirectURI: %w", ns, ext.Name, err)
	}
	ads := &corev3.ConfigSource{ResourceApiVersion: corev3.ApiVersion_V3, ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}}}
	exact := func(path string) *matcherv3.PathMatcher {
		return &matcherv3.PathMatcher{Rule: &matcherv3.PathMatcher_Path{Path: &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: path}}}}
	}
	logout := "/logout"
	if p.LogoutPath != nil {
		logout = *p.LogoutPath
	}
	names := cookieNames(ns, ext.Name, p.Cookies)
	forward := p.ForwardAccessToken != nil && *p.ForwardAccessToken
	cfg := &oauth2v3.OAuth2Config{
		TokenEndpoint:         &corev3.HttpUri{Uri: *p.TokenEndpoint, HttpUpstreamType: &corev3.HttpUri_Cluster{Cluster: cluster}, Timeout: durationpb.New(15 * time.Second)},
		AuthorizationEndpoint: *p.AuthorizationEndpoint,
		RedirectUri:           redirect,
		RedirectPathMatcher:   exact(redirectPath),
		SignoutPath:           exact(logout),
		Credentials: &oauth2v3.OAuth2Credentials{
			ClientId:    p.Credentials.ClientID,
			TokenSecret: &tlsv3.SdsSecretConfig{Name: policy.SecretSDSName(ns, p.Credentials.ClientSecretRef.Name), SdsConfig: ads},
			// kgateway signs every provider's cookies with one Secret of
			// its own namespace.
			TokenFormation: &oauth2v3.OAuth2Credentials_HmacSecret{
				HmacSecret: &tlsv3.SdsSecretConfig{Name: policy.SecretSDSName(hmacSecretNamespace, hmacSecretName), SdsConfig: ads}},
			CookieNames: names,
		},
		AuthScopes:         p.Scopes,
		ForwardBearerToken: forward,
		// The client's own Authorization header (basic auth, say) passes
		// unless the filter forwards the access token in it.
		PreserveAuthorizationHeader: !forward,
	}
	if p.EndSessionEndpoint != nil {
		cfg.EndSessionEndpoint = *p.EndSessionEndpoint
	}
	if err := cookieSettings(cfg, p.Cookies); err != nil {
		return nil, fmt.Errorf("GatewayExtension %s/%s: %w", ns, ext.Name, err)
	}
	if p.DenyRedirect != nil {
		for _, h := range p.DenyRedirect.Headers {
			m, err := headerMatchMatcher(h)
			if err != nil {
				return nil, fmt.Errorf("GatewayExtension %s/%s: denyRedirect: %w", ns, ext.Name, err)
			}
			cfg.DenyRedirectMatcher = append(cfg.DenyRedirectMatcher, m)
		}
	}
	name := "envoy.filters.http.oauth2/" + ns + "/" + ext.Name
	fr := policy.Fragment{
		Capability:           "oauth2",
		Filter:               &policy.HTTPFilter{Name: name, Order: orderOAuth2, Precedence: filterWeight("oidc", ext).Weight, Typed: &oauth2v3.OAuth2{Config: cfg}},
		TypedPerFilterConfig: map[string]proto.Message{name: enabledConfig()},
		TypedClusters:        []proto.Message{cl},
	}
	frs := []policy.Fragment{fr}
	if jf, err := oauth2JWT(p.JWT, names, cluster, ns, ext.Name); err != nil {
		return nil, fmt.Errorf("GatewayExtension %s/%s: %w", ns, ext.Name, err)
	} else if jf != nil {
		// kgateway gives the JWT filter its provider's weight too, so it
		// sorts among the stage's JWT filters by it (HttpFilters).
		jf.Filter.Precedence = fr.Filter.Precedence
		frs = append(frs, *jf)
	}
	return append(frs, r.authMetadata("oauth2", "oauth2", orderAuthEnabled, false)...), nil
}

// The Secret kgateway signs OAuth2 cookies with (its key hmac-secret), in
// kgateway's own namespace.
const (
	hmacSecretNamespace = "kgateway-system"
	hmacSecretName      = "oauth2-hmac-secret"
)

// cookieNames are kgateway's: each cookie's name suffixed with a hash of
// the GatewayExtension (FNV-1a of namespace/name), so that providers do
// not share cookies, unless the extension names the token cookies.
func cookieNames(ns, name string, c *OAuth2CookieConfig) *oauth2v3.OAuth2Credentials_CookieNames {
	h := fnv.New64a()
	h.Write([]byte(ns + "/" + name))
	suffix := "-" + strconv.FormatUint(h.Sum64(), 16)
	out := &oauth2v3.OAuth2Credentials_CookieNames{
		BearerToken: "AccessToken" + suffix, IdToken: "IdToken" + suffix, RefreshToken: "RefreshToken" + suffix,
		OauthHmac: "OauthHMAC" + suffix, OauthExpires: "OauthExpires" + suffix, OauthNonce: "OauthNonce" + suffix,
		CodeVerifier: "OauthCodeVerifier" + suffix,
	}
	if c != nil && c.Names != nil {
		if c.Names.AccessToken != nil {
			out.BearerToken = *c.Names.AccessToken
		}
		if c.Names.IDToken != nil {
			out.IdToken = *c.Names.IDToken
		}
	}
	return out
}

var sameSites = map[string]oauth2v3.CookieConfig_SameSite{
	"Lax":    oauth2v3.CookieConfig_LAX,
	"Strict": oauth2v3.CookieConfig_STRICT,
	"None":   oauth2v3.CookieConfig_NONE,
}

// cookieSettings: the cookies' domain, one SameSite for all of them, and
// which token cookies are not set.
func cookieSettings(cfg *oauth2v3.OAuth2Config, c *OAuth2CookieConfig) error {
	if c == nil {
		return nil
	}
	if c.Domain != nil {
		cfg.Credentials.CookieDomain = *c.Domain
	}
	if c.SameSite != nil {
		ss, ok := sameSites[*c.SameSite]
		if !ok {
			return fmt.Errorf("cookies.sameSite %q is not one of Lax, Strict, None", *c.SameSite)
		}
		cc := &oauth2v3.CookieConfig{SameSite: ss}
		cfg.CookieConfigs = &oauth2v3.CookieConfigs{
			BearerTokenCookieConfig: cc, IdTokenCookieConfig: cc, RefreshTokenCookieConfig: cc, OauthHmacCookieConfig: cc,
			OauthExpiresCookieConfig: cc, OauthNonceCookieConfig: cc, CodeVerifierCookieConfig: cc,
		}
	}
	deref := func(b *bool) bool { return b != nil && *b }
	cfg.DisableAccessTokenSetCookie = deref(c.DisableAccessTokenSetCookie)
	cfg.DisableIdTokenSetCookie = deref(c.DisableIDTokenSetCookie)
	cfg.DisableRefreshTokenSetCookie = deref(c.DisableRefreshTokenSetCookie)
	return nil
}

// OAuth2 token validation: kgateway's provider and requirement names.
const (
	oauth2JWTRequirement   = "oauth2"
	oauth2AccessTokenJWT   = "oauth2/accessToken"
	oauth2IDTokenJWT       = "oauth2/idToken"
	oauth2JWKSFetchTimeout = 5 * time.Second
)

// oauth2JWT is the jwt_authn filter kgateway adds after the OAuth2 filter
// when the extension validates the tokens it obtained: one provider per
// token, reading its cookie, keys fetched from jwksURI through the
// provider's cluster, both required; nil when nothing is validated.
func oauth2JWT(j *OAuth2JWTConfig, names *oauth2v3.OAuth2Credentials_CookieNames, cluster, ns, extName string) (*policy.Fragment, error) {
	if j == nil || (j.AccessToken == nil && j.IDToken == nil) {
		return nil, nil
	}
	if j.JWKSURI == nil || *j.JWKSURI == "" {
		return nil, diag.Errorf(diag.Unsupported, "jwt names its JWKS through issuerURI, whose discovery document kgateway fetches and gwpol does not (offline): give jwt.jwksURI")
	}
	jwks := &jwtv3.JwtProvider_RemoteJwks{RemoteJwks: &jwtv3.RemoteJwks{HttpUri: &corev3.HttpUri{
		Uri: *j.JWKSURI, HttpUpstreamType: &corev3.HttpUri_Cluster{Cluster: cluster}, Timeout: durationpb.New(oauth2JWKSFetchTimeout)}}}
	cfg := &jwtv3.JwtAuthentication{Providers: map[string]*jwtv3.JwtProvider{}}
	var reqs []*jwtv3.JwtRequirement
	add := func(provider, cookie, payload string, pc *OAuth2JWTProcessingConfig) {
		if pc == nil {
			return
		}
		p := &jwtv3.JwtProvider{FromCookies: []string{cookie}, PayloadInMetadata: payload, JwksSourceSpecifier: jwks, Audiences: pc.Audiences}
		for _, c := range pc.ClaimsToHeaders {
			p.ClaimToHeaders = append(p.ClaimToHeaders, &jwtv3.JwtClaimToHeader{ClaimName: c.Name, HeaderName: c.Header})
		}
		p.ClearRouteCache = len(p.ClaimToHeaders) > 0
		cfg.Providers[provider] = p
		reqs = append(reqs, &jwtv3.JwtRequirement{RequiresType: &jwtv3.JwtRequirement_ProviderName{ProviderName: provider}})
	}
	add(oauth2AccessTokenJWT, names.BearerToken, "accessToken", j.AccessToken)
	add(oauth2IDTokenJWT, names.IdToken, "idToken", j.IDToken)
	req := reqs[0]
	if len(reqs) > 1 {
		req = &jwtv3.JwtRequirement{RequiresType: &jwtv3.JwtRequirement_RequiresAll{RequiresAll: &jwtv3.JwtRequirementAndList{Requirements: reqs}}}
	}
	cfg.RequirementMap = map[string]*jwtv3.JwtRequirement{oauth2JWTRequirement: req}
	name := "envoy.filters.http.oauth2/jwt/" + ns + "/" + extName
	return &policy.Fragment{
		Capability: "jwt_authn",
		Filter:     &policy.HTTPFilter{Name: name, Order: orderJWT, Typed: cfg},
		TypedPerFilterConfig: map[string]proto.Message{name: &jwtv3.PerRouteConfig{
			RequirementSpecifier: &jwtv3.PerRouteConfig_RequirementName{RequirementName: oauth2JWTRequirement}}},
	}, nil
}

// oauth2DefaultRedirectURI is kgateway's redirect URI when the provider
// names none, and oauth2ClientSecretKey the client Secret's entry it reads.
const (
	oauth2DefaultRedirectURI = "%REQ(x-forwarded-proto)%://%REQ(:authority)%/oauth2/redirect"
	oauth2ClientSecretKey    = "client-secret"
)

// oauth2RedirectPath is the path the OAuth2 filter matches as its
// redirect, read off the redirect URI (kgateway's default when nil) as
// kgateway's parseRedirectPath does: what follows the first "/" after
// "://", query included; a URI without a scheme or a path is an error.
func oauth2RedirectPath(uri *string) (string, error) {
	redirect := oauth2DefaultRedirectURI
	if uri != nil {
		redirect = *uri
	}
	_, hostAndPath, found := strings.Cut(redirect, "://")
	if !found {
		return "", fmt.Errorf("invalid redirect URI: %s; missing scheme", redirect)
	}
	_, path, found := strings.Cut(hostAndPath, "/")
	if !found || path == "" {
		return "", fmt.Errorf("invalid redirect URI: %s; missing path", redirect)
	}
	return "/" + path, nil
}
