package envoy_test

import (
	"fmt"
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
)

// TestPrefixModifiersEscaped: under Envoy Gateway
// (Target.PrefixModifiersEscaped) a ReplacePrefixMatch of "" or "/" on a
// rule matching a path prefix — the root "/" too — is the regular
// expression ^<the prefix, its metacharacters escaped>\/* replaced by "/",
// on a URLRewrite and a redirect alike; a URLRewrite's other replacement
// loses a trailing "/", a redirect's is written as given (xds translator
// route.go: useRegexRewriteForPrefixMatchReplace, prefix2RegexRewrite,
// buildXdsURLRewriteAction, buildXdsRedirectAction). Upstream Envoy's
// target keeps the Gateway API's reading: only "/" on a prefix other than
// the root through a regular expression of the prefix as written, the
// root prefix's replacement ending in "/". Each Envoy Gateway shape was
// checked with egctl x translate v1.9.0 --to xds.
func TestPrefixModifiersEscaped(t *testing.T) {
	for _, tc := range []struct {
		name, filter, prefix, repl string
		want                       map[string]string // the path rewrite, by target
	}{
		{"rewrite to /", "URLRewrite", "/foo", "/",
			map[string]string{"envoygateway": `regex ^/foo\/* → /`, "envoy": `regex ^/foo\/* → /`}},
		{"rewrite of a prefix with metacharacters to /", "URLRewrite", "/a.b+", "/",
			map[string]string{"envoygateway": `regex ^/a\.b\+\/* → /`, "envoy": `regex ^/a.b+\/* → /`}},
		{"rewrite to nothing", "URLRewrite", "/foo", "",
			map[string]string{"envoygateway": `regex ^/foo\/* → /`, "envoy": `prefix ""`}},
		{"rewrite of the root to /", "URLRewrite", "/", "/",
			map[string]string{"envoygateway": `regex ^/\/* → /`, "envoy": `prefix "/"`}},
		{"rewrite of the root to nothing", "URLRewrite", "/", "",
			map[string]string{"envoygateway": `regex ^/\/* → /`, "envoy": `prefix "/"`}},
		{"rewrite with a trailing slash", "URLRewrite", "/foo", "/bar/",
			map[string]string{"envoygateway": `prefix "/bar"`, "envoy": `prefix "/bar/"`}},
		{"rewrite of a prefix with a trailing slash", "URLRewrite", "/foo/", "/bar/",
			map[string]string{"envoygateway": `prefix "/bar"`, "envoy": `prefix "/bar/"`}},
		{"rewrite of the root to a path", "URLRewrite", "/", "/bar",
			map[string]string{"envoygateway": `prefix "/bar"`, "envoy": `prefix "/bar/"`}},
		{"rewrite to a path", "URLRewrite", "/x.y", "/z",
			map[string]string{"envoygateway": `prefix "/z"`, "envoy": `prefix "/z"`}},
		{"redirect to /", "RequestRedirect", "/redir.p", "/",
			map[string]string{"envoygateway": `regex ^/redir\.p\/* → /`, "envoy": `prefix "/"`}},
		{"redirect to nothing", "RequestRedirect", "/redir", "",
			map[string]string{"envoygateway": `regex ^/redir\/* → /`, "envoy": `prefix ""`}},
		{"redirect with a trailing slash", "RequestRedirect", "/redir/", "/new/",
			map[string]string{"envoygateway": `prefix "/new/"`, "envoy": `prefix "/new/"`}},
		{"redirect of the root to a path", "RequestRedirect", "/", "/new",
			map[string]string{"envoygateway": `prefix "/new"`, "envoy": `prefix "/new/"`}},
	} {
		for _, target := range []string{"envoygateway", "envoy"} {
			t.Run(tc.name+"/"+target, func(t *testing.T) {
				field := map[string]string{"URLRewrite": "urlRewrite", "RequestRedirect": "requestRedirect"}[tc.filter]
				backends := "\n    backendRefs: [{name: web, port: 80}]"
				if tc.filter == "RequestRedirect" {
					backends = ""
				}
				input := behaviourBase + fmt.Sprintf(`---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: a}]
  rules:
  - matches: [{path: {type: PathPrefix, value: %q}}]
    filters: [{type: %s, %s: {path: {type: ReplacePrefixMatch, replacePrefixMatch: %q}}}]%s
`, tc.prefix, tc.filter, field, tc.repl, backends)
				gw := renderInline(t, input, target)
				got := ""
				for _, rc := range gw.RouteConfigurations {
					for _, vh := range rc.VirtualHosts {
						for _, r := range vh.Routes {
							if strings.Contains(r.Name, "-httproute-r-") {
								got = pathRewrite(r)
							}
						}
					}
				}
				if want := tc.want[target]; got != want {
					t.Errorf("path rewrite %s, want %s", got, want)
				}
			})
		}
	}
}

// pathRewrite says how a route's action rewrites the path: a regular
// expression and its substitution, or a prefix replacement.
func pathRewrite(r *routev3.Route) string {
	if rd := r.GetRedirect(); rd != nil {
		if re := rd.GetRegexRewrite(); re != nil {
			return "regex " + re.GetPattern().GetRegex() + " → " + re.GetSubstitution()
		}
		return fmt.Sprintf("prefix %q", rd.GetPrefixRewrite())
	}
	act := r.GetRoute()
	if re := act.GetRegexRewrite(); re != nil {
		return "regex " + re.GetPattern().GetRegex() + " → " + re.GetSubstitution()
	}
	return fmt.Sprintf("prefix %q", act.GetPrefixRewrite())
}
