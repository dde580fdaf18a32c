package kgateway

import (
	"testing"

	corsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// renderCors renders one cors value and returns its per-route CorsPolicy.
func renderCors(t *testing.T, f gwv1.HTTPCORSFilter) *corsv3.CorsPolicy {
	t.Helper()
	in := policy.FieldInput{Key: "cors", Values: []any{&CorsPolicy{HTTPCORSFilter: f}}, Contributors: []string{Group + "/" + KindTrafficPolicy + "/default/p"}}
	frs, err := Kind{}.RenderField(in, &policy.Env{})
	if err != nil || len(frs) != 1 {
		t.Fatalf("fragments %v, error %v", frs, err)
	}
	per, ok := frs[0].TypedPerFilterConfig["envoy.filters.http.cors"].(*corsv3.CorsPolicy)
	if !ok {
		t.Fatalf("per-route config is a %T", frs[0].TypedPerFilterConfig["envoy.filters.http.cors"])
	}
	return per
}

// TestCorsOriginMatchers: each allowed origin becomes the matcher kgateway
// builds for it — exact without a wildcard, any origin for "*", a prefix
// for one trailing "*", otherwise an anchored regex where "*" spans any
// number of labels (and the rest of the origin is quoted).
func TestCorsOriginMatchers(t *testing.T) {
	exact := func(s string) *matcherv3.StringMatcher {
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: s}}
	}
	prefix := func(s string) *matcherv3.StringMatcher {
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Prefix{Prefix: s}}
	}
	regex := func(s string) *matcherv3.StringMatcher {
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: s}}}
	}
	tests := []struct {
		origin string
		want   *matcherv3.StringMatcher
	}{
		{"https://example.com", exact("https://example.com")},
		{"*", regex("^.*$")},
		{"https://*", prefix("https://")},
		{"https://example.*", prefix("https://example.")},
		{"https://*.example.com", regex(`^https://.*\.example\.com$`)},
		{"https://sub.*.example.com", regex(`^https://sub\..*\.example\.com$`)},
		{"https://example.*:8080", regex(`^https://example\..*:8080$`)},
		{"http://*.a.io:*", regex(`^http://.*\.a\.io:.*$`)},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			per := renderCors(t, gwv1.HTTPCORSFilter{AllowOrigins: []gwv1.CORSOrigin{gwv1.CORSOrigin(tt.origin)}})
			if got := per.GetAllowOriginStringMatch(); len(got) != 1 || !proto.Equal(got[0], tt.want) {
				t.Errorf("matchers %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCorsListsAndCredentials: methods and headers are joined with ", ",
// allow_credentials is written only when true, max_age defaults to the
// Gateway API's 5 seconds and non-matching preflights are never forwarded.
func TestCorsListsAndCredentials(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name        string
		f           gwv1.HTTPCORSFilter
		methods     string
		headers     string
		expose      string
		maxAge      string
		credentials bool
	}{
		{"lists", gwv1.HTTPCORSFilter{AllowMethods: []gwv1.HTTPMethodWithWildcard{"GET", "POST"}, AllowHeaders: []gwv1.HTTPHeaderName{"x-a", "x-b"}, ExposeHeaders: []gwv1.HTTPHeaderName{"x-c", "x-d", "x-e"}, MaxAge: 60},
			"GET, POST", "x-a, x-b", "x-c, x-d, x-e", "60", false},
		{"credentials true", gwv1.HTTPCORSFilter{AllowCredentials: &yes}, "", "", "", "5", true},
		{"credentials false: left out", gwv1.HTTPCORSFilter{AllowCredentials: &no}, "", "", "", "5", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			per := renderCors(t, tt.f)
			if per.GetAllowMethods() != tt.methods || per.GetAllowHeaders() != tt.headers || per.GetExposeHeaders() != tt.expose || per.GetMaxAge() != tt.maxAge {
				t.Errorf("methods %q headers %q expose %q max_age %q; want %q %q %q %q",
					per.GetAllowMethods(), per.GetAllowHeaders(), per.GetExposeHeaders(), per.GetMaxAge(), tt.methods, tt.headers, tt.expose, tt.maxAge)
			}
			if got := per.GetAllowCredentials(); (got != nil) != tt.credentials || (got != nil && !got.GetValue()) {
				t.Errorf("allow_credentials %v, want set=%v", got, tt.credentials)
			}
			if f := per.GetForwardNotMatchingPreflights(); f == nil || f.GetValue() {
				t.Errorf("forward_not_matching_preflights %v, want false", f)
			}
		})
	}
}
