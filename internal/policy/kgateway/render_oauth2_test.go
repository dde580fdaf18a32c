package kgateway

import (
	"strings"
	"testing"

	jwtv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	oauth2v3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/oauth2/v3"
)

// TestOAuth2CookieNames: every cookie of an extension carries one suffix
// of its own, another extension's differs, and the token cookies the
// extension names keep their names.
func TestOAuth2CookieNames(t *testing.T) {
	a, b := cookieNames("default", "idp-a", nil), cookieNames("default", "idp-b", nil)
	suffix := strings.TrimPrefix(a.BearerToken, "AccessToken")
	if suffix == "" || !strings.HasPrefix(suffix, "-") {
		t.Fatalf("bearer cookie %q has no suffix", a.BearerToken)
	}
	for _, n := range []string{a.IdToken, a.RefreshToken, a.OauthHmac, a.OauthExpires, a.OauthNonce, a.CodeVerifier} {
		if !strings.HasSuffix(n, suffix) {
			t.Errorf("cookie %q does not end in the extension's suffix %q", n, suffix)
		}
	}
	if strings.HasSuffix(b.BearerToken, suffix) {
		t.Errorf("two extensions share the cookie suffix %q", suffix)
	}
	if again := cookieNames("default", "idp-a", nil); again.BearerToken != a.BearerToken {
		t.Errorf("suffix not deterministic: %q then %q", a.BearerToken, again.BearerToken)
	}
	access, id := "at", "it"
	named := cookieNames("default", "idp-a", &OAuth2CookieConfig{Names: &OAuth2CookieNames{AccessToken: &access, IDToken: &id}})
	if named.BearerToken != access || named.IdToken != id || named.OauthHmac != a.OauthHmac {
		t.Errorf("named cookies %v: want bearer %q, id %q, the rest suffixed", named, access, id)
	}
}

// TestOAuth2CookieSettings: one SameSite for every cookie, the domain and
// the cookies not set; an unknown SameSite is an error.
func TestOAuth2CookieSettings(t *testing.T) {
	domain, strict, yes := "example.com", "Strict", true
	cfg := &oauth2v3.OAuth2Config{Credentials: &oauth2v3.OAuth2Credentials{}}
	if err := cookieSettings(cfg, &OAuth2CookieConfig{Domain: &domain, SameSite: &strict, DisableIDTokenSetCookie: &yes}); err != nil {
		t.Fatal(err)
	}
	cc := cfg.CookieConfigs
	for _, c := range []*oauth2v3.CookieConfig{cc.GetBearerTokenCookieConfig(), cc.GetIdTokenCookieConfig(), cc.GetRefreshTokenCookieConfig(),
		cc.GetOauthHmacCookieConfig(), cc.GetOauthExpiresCookieConfig(), cc.GetOauthNonceCookieConfig(), cc.GetCodeVerifierCookieConfig()} {
		if c.GetSameSite() != oauth2v3.CookieConfig_STRICT {
			t.Errorf("cookie config %v, want SameSite STRICT", c)
		}
	}
	if cfg.Credentials.CookieDomain != domain || !cfg.DisableIdTokenSetCookie || cfg.DisableAccessTokenSetCookie || cfg.DisableRefreshTokenSetCookie {
		t.Errorf("domain %q, disable access/id/refresh %v/%v/%v; want %q and only the id token cookie off", cfg.Credentials.CookieDomain,
			cfg.DisableAccessTokenSetCookie, cfg.DisableIdTokenSetCookie, cfg.DisableRefreshTokenSetCookie, domain)
	}
	bad := "Sometimes"
	if err := cookieSettings(cfg, &OAuth2CookieConfig{SameSite: &bad}); err == nil {
		t.Errorf("SameSite %q accepted", bad)
	}
}

// TestOAuth2JWT: validating the obtained tokens adds a jwt_authn filter
// reading each token from its cookie, keys from jwksURI through the
// provider's cluster, requiring every configured token; none without a
// token to validate, an error without jwksURI.
func TestOAuth2JWT(t *testing.T) {
	names := cookieNames("default", "idp", nil)
	uri := "https://idp.example.com/jwks"
	both := &OAuth2JWTConfig{JWKSURI: &uri, AccessToken: &OAuth2JWTProcessingConfig{Audiences: []string{"aud"}},
		IDToken: &OAuth2JWTProcessingConfig{ClaimsToHeaders: []JWTClaimToHeader{{Name: "groups", Header: "x-groups"}}}}
	fr, err := oauth2JWT(both, names, "backend_default_idp_0", "default", "idp")
	if err != nil || fr == nil {
		t.Fatalf("fragment %v, error %v", fr, err)
	}
	cfg, ok := fr.Filter.Typed.(*jwtv3.JwtAuthentication)
	if !ok {
		t.Fatalf("filter config %T", fr.Filter.Typed)
	}
	at, it := cfg.Providers[oauth2AccessTokenJWT], cfg.Providers[oauth2IDTokenJWT]
	if at.GetFromCookies()[0] != names.BearerToken || it.GetFromCookies()[0] != names.IdToken {
		t.Errorf("providers read cookies %v and %v, want %q and %q", at.GetFromCookies(), it.GetFromCookies(), names.BearerToken, names.IdToken)
	}
	if at.GetRemoteJwks().GetHttpUri().GetUri() != uri || at.GetRemoteJwks().GetHttpUri().GetCluster() != "backend_default_idp_0" {
		t.Errorf("keys fetched from %v", at.GetRemoteJwks().GetHttpUri())
	}
	if at.GetClearRouteCache() || !it.GetClearRouteCache() {
		t.Errorf("clear route cache access/id %v/%v, want only where claims become headers", at.GetClearRouteCache(), it.GetClearRouteCache())
	}
	if n := len(cfg.RequirementMap[oauth2JWTRequirement].GetRequiresAll().GetRequirements()); n != 2 {
		t.Errorf("requirement needs %d tokens, want both", n)
	}
	if err := cfg.ValidateAll(); err != nil {
		t.Error(err)
	}
	if !strings.HasPrefix(fr.Filter.Name, "envoy.filters.http.oauth2/jwt/") || fr.TypedPerFilterConfig[fr.Filter.Name] == nil {
		t.Errorf("filter %q not switched on by name", fr.Filter.Name)
	}

	one, err := oauth2JWT(&OAuth2JWTConfig{JWKSURI: &uri, AccessToken: &OAuth2JWTProcessingConfig{}}, names, "c", "default", "idp")
	if err != nil || one.Filter.Typed.(*jwtv3.JwtAuthentication).RequirementMap[oauth2JWTRequirement].GetProviderName() != oauth2AccessTokenJWT {
		t.Errorf("one token: %v, %v; want the provider itself as the requirement", one, err)
	}
	if fr, err := oauth2JWT(&OAuth2JWTConfig{JWKSURI: &uri}, names, "c", "default", "idp"); fr != nil || err != nil {
		t.Errorf("no token to validate: %v, %v; want nothing", fr, err)
	}
	if _, err := oauth2JWT(&OAuth2JWTConfig{AccessToken: &OAuth2JWTProcessingConfig{}}, names, "c", "default", "idp"); err == nil {
		t.Error("no jwksURI accepted")
	}
}

// TestOAuth2RedirectPath: the redirect path the filter matches is what
// follows the first "/" after the scheme, query included, as kgateway
// reads it (parseRedirectPath); a URI without a scheme or a path is an
// error, which status reports and render refuses alike.
func TestOAuth2RedirectPath(t *testing.T) {
	for _, tc := range []struct {
		uri  *string
		want string // "" when an error
		err  string
	}{
		{uri: nil, want: "/oauth2/redirect"},
		{uri: ptrTo("https://app.example.com/callback"), want: "/callback"},
		{uri: ptrTo("https://app.example.com/a/b?tenant=1"), want: "/a/b?tenant=1"},
		{uri: ptrTo("https://app.example.com:8443/cb/"), want: "/cb/"},
		{uri: ptrTo("https://app.example.com"), err: "missing path"},
		{uri: ptrTo("https://app.example.com/"), err: "missing path"},
		{uri: ptrTo("app.example.com/callback"), err: "missing scheme"},
	} {
		got, err := oauth2RedirectPath(tc.uri)
		name := "<nil>"
		if tc.uri != nil {
			name = *tc.uri
		}
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %q, %v; want an error with %q", name, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%s: %q, %v; want %q", name, got, err, tc.want)
		}
	}
}

func ptrTo(s string) *string { return &s }
