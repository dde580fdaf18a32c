package envoygateway

import (
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestSessionCookiePath: the session cookie's path is the route's path
// match (xds translator session_persistence.go routePathToCookiePath,
// getLongestNonRegexPrefix): a regular expression is cut at its first
// "/"-segment holding a "*", whatever other metacharacters come before.
func TestSessionCookiePath(t *testing.T) {
	typ := func(s gwv1.PathMatchType) *gwv1.PathMatchType { return &s }
	val := func(s string) *string { return &s }
	for _, tc := range []struct {
		name string
		path *gwv1.HTTPPathMatch
		want string
	}{
		{"no path match", nil, "/"},
		{"a prefix, its trailing slash kept", &gwv1.HTTPPathMatch{Type: typ(gwv1.PathMatchPathPrefix), Value: val("/a/b/")}, "/a/b/"},
		{"a prefix without its type", &gwv1.HTTPPathMatch{Value: val("/p")}, "/p"},
		{"exact", &gwv1.HTTPPathMatch{Type: typ(gwv1.PathMatchExact), Value: val("/x.html")}, "/x.html"},
		{"regex without a star, kept whole", &gwv1.HTTPPathMatch{Type: typ(gwv1.PathMatchRegularExpression), Value: val("/v[0-9]+/(a|b)")}, "/v[0-9]+/(a|b)"},
		{"regex cut at its first starred segment", &gwv1.HTTPPathMatch{Type: typ(gwv1.PathMatchRegularExpression), Value: val("/a/b.*/c/.*")}, "/a"},
		{"regex starred from the root", &gwv1.HTTPPathMatch{Type: typ(gwv1.PathMatchRegularExpression), Value: val("/.*")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cookiePath(tc.path); got != tc.want {
				t.Errorf("cookie path %q, want %q", got, tc.want)
			}
		})
	}
	sp := &gwv1.SessionPersistence{}
	if sessionPersistence(sp, policy.SessionSite{Kind: "GRPCRoute", Namespace: "n", Name: "r"}) != nil {
		t.Errorf("a GRPCRoute's sessionPersistence translated; Envoy Gateway does not read it")
	}
}
